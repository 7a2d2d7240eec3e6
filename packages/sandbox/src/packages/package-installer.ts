import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { AppError, errorMessage } from '@tributary/contracts';
import semver from 'semver';
import type { Dependency } from './dependency-plan.js';

/** Exact versions a component was prepared with, by package name. */
export type PackageLock = Readonly<Record<string, string>>;

export type InstallProgress =
  | { readonly phase: 'installing'; readonly packages: readonly string[] }
  | { readonly phase: 'installed'; readonly packages: readonly string[]; readonly durationMs: number }
  | { readonly phase: 'cached'; readonly packages: readonly string[] }
  | {
      readonly phase: 'failed';
      readonly packages: readonly string[];
      readonly durationMs: number;
      /** The error the save or deploy fails with (PACKAGE_NOT_FOUND, PACKAGE_INSTALL_FAILED). */
      readonly code: string;
      readonly message: string;
    };

export interface InstalledPackages {
  /** The folder whose `node_modules` holds the packages. */
  readonly dir: string;
  readonly lock: PackageLock;
}

export interface PackageInstallerOptions {
  /** Root of the shared cache; installs go to `<cacheDir>/deps/<content hash>`. */
  readonly cacheDir: string;
  /** The npm binary to run (default: `npm` on PATH). */
  readonly npmCommand?: string;
  readonly onProgress?: (progress: InstallProgress) => void;
}

/**
 * Installs the npm packages components import into a content-addressed cache shared by all of them:
 * one folder per exact set of versions, so the same set is installed once. Installs run with
 * install scripts disabled, into a temporary folder renamed into place only when complete, so a
 * failure leaves nothing half-installed. The npm CLI does the work because it honours the user's
 * registry, proxy and auth configuration exactly as `npm install` would.
 */
export class PackageInstaller {
  constructor(private readonly options: PackageInstallerOptions) {}

  /** Ensures the packages are installed; `lock` (when complete) pins every one to an exact version. */
  async ensure(dependencies: readonly Dependency[], lock: PackageLock | null): Promise<InstalledPackages | null> {
    if (dependencies.length === 0) return null;
    const locked = lock && dependencies.every((dependency) => lock[dependency.name] !== undefined) ? lock : null;
    if (locked) {
      const dir = this.dirFor(locked, dependencies);
      if (existsSync(path.join(dir, 'node_modules'))) {
        this.options.onProgress?.({ phase: 'cached', packages: describe(dependencies, locked) });
        // A set adopted from a larger one is a link to it (see `adopt`): workers get the real folder.
        return { dir: realpathSync(dir), lock: pick(locked, dependencies) };
      }
    }
    return this.install(dependencies, locked);
  }

  /**
   * Uses an installed larger set for these dependencies when it holds every one at a version
   * their ranges accept: the components of one npm package share one install instead of one per
   * combination of imports. The smaller set's cache folder becomes a link to the larger one, so a
   * later `ensure` with the recorded lock finds it. Null when the set does not cover them.
   */
  adopt(dependencies: readonly Dependency[], shared: InstalledPackages): InstalledPackages | null {
    if (dependencies.length === 0) return null;
    for (const dependency of dependencies) {
      const version = shared.lock[dependency.name];
      if (version === undefined) return null;
      if (
        dependency.range !== null &&
        semver.validRange(dependency.range) &&
        !semver.satisfies(version, dependency.range)
      )
        return null;
    }
    const lock = pick(shared.lock, dependencies);
    const dir = this.dirFor(lock, dependencies);
    if (!existsSync(dir)) {
      try {
        symlinkSync(shared.dir, dir, 'dir');
      } catch (error) {
        // Another process linked or installed the same set first; either is as good.
        if (!existsSync(dir)) throw error;
      }
    }
    return { dir: realpathSync(shared.dir), lock };
  }

  private async install(dependencies: readonly Dependency[], locked: PackageLock | null): Promise<InstalledPackages> {
    const root = path.join(this.options.cacheDir, 'deps');
    mkdirSync(root, { recursive: true, mode: 0o755 });
    const temporary = path.join(root, `.tmp-${randomBytes(6).toString('hex')}`);
    const wanted = Object.fromEntries(
      dependencies.map((dependency) => [dependency.name, locked?.[dependency.name] ?? dependency.range ?? 'latest']),
    );
    const packages = Object.entries(wanted).map(([name, range]) => `${name}@${range}`);
    const started = Date.now();
    this.options.onProgress?.({ phase: 'installing', packages });
    try {
      mkdirSync(temporary, { mode: 0o755 });
      writeFileSync(
        path.join(temporary, 'package.json'),
        `${JSON.stringify({ private: true, dependencies: wanted }, null, 2)}\n`,
      );
      await this.runNpm(temporary, dependencies);
      const resolved: Record<string, string> = {};
      for (const dependency of dependencies) {
        const manifest = path.join(temporary, 'node_modules', dependency.name, 'package.json');
        resolved[dependency.name] = (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
      }
      const dir = this.dirFor(resolved, dependencies);
      if (existsSync(dir)) {
        rmSync(temporary, { recursive: true, force: true });
      } else {
        try {
          renameSync(temporary, dir);
        } catch (error) {
          // Another process finished the same set first; theirs is as good as ours.
          if (!existsSync(dir)) throw error;
          rmSync(temporary, { recursive: true, force: true });
        }
      }
      this.options.onProgress?.({
        phase: 'installed',
        packages: describe(dependencies, resolved),
        durationMs: Date.now() - started,
      });
      return { dir, lock: resolved };
    } catch (error) {
      rmSync(temporary, { recursive: true, force: true });
      // Someone watching the install sees it end either way, with the reason the request gives.
      this.options.onProgress?.({
        phase: 'failed',
        packages,
        durationMs: Date.now() - started,
        code: error instanceof AppError ? error.code : 'PACKAGE_INSTALL_FAILED',
        message: errorMessage(error),
      });
      throw error;
    }
  }

  private dirFor(versions: PackageLock, dependencies: readonly Dependency[]): string {
    const key = dependencies
      .map((dependency) => `${dependency.name}@${versions[dependency.name]}`)
      .sort()
      .join('\n');
    const hash = createHash('sha256').update(key).digest('hex').slice(0, 32);
    return path.join(this.options.cacheDir, 'deps', hash);
  }

  private runNpm(dir: string, dependencies: readonly Dependency[]): Promise<void> {
    const args = [
      'install',
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
      '--no-package-lock',
      '--no-save',
      '--json',
      '--loglevel=error',
    ];
    return new Promise((resolve, reject) => {
      execFile(
        this.options.npmCommand ?? 'npm',
        args,
        {
          cwd: dir,
          timeout: 300_000,
          maxBuffer: 16 * 1024 * 1024,
          // npm's own default, whatever settings launched us (`npm run` and `npx` hand a project's
          // .npmrc down as npm_config_* variables): a package whose `engines` asks for a newer
          // Node is installed with a warning, as npm and Pipedream do, and fails only if it breaks.
          env: { ...process.env, npm_config_engine_strict: 'false' },
        },
        (error, stdout, stderr) => {
          if (!error) {
            resolve();
            return;
          }
          reject(installError(`${stdout}\n${stderr}`, dependencies, error));
        },
      );
    });
  }
}

function installError(output: string, dependencies: readonly Dependency[], cause: unknown): AppError {
  const summary = npmSummary(output);
  const culprit = dependencies.find((dependency) => summary.includes(dependency.name)) ?? null;
  const spec = culprit
    ? `${culprit.name}${culprit.range ? `@${culprit.range}` : ''}`
    : dependencies.map((d) => d.name).join(', ');
  if (/\bE404\b|404 Not Found|is not in this registry|Not Found - GET/i.test(output)) {
    return new AppError(
      'PACKAGE_NOT_FOUND',
      `package "${culprit?.name ?? spec}" does not exist in the npm registry (${summary})`,
      {
        package: culprit?.name ?? spec,
      },
      { cause },
    );
  }
  if (/\bETARGET\b|No matching version/i.test(output)) {
    return new AppError(
      'PACKAGE_NOT_FOUND',
      `no published version of "${culprit?.name ?? spec}" matches "${culprit?.range ?? ''}" (${summary})`,
      {
        package: culprit?.name ?? spec,
      },
      { cause },
    );
  }
  return new AppError('PACKAGE_INSTALL_FAILED', `installing ${spec} failed: ${summary}`, { package: spec }, { cause });
}

function npmSummary(output: string): string {
  const json = /\{[\s\S]*"error"[\s\S]*\}/.exec(output);
  if (json) {
    try {
      const parsed = JSON.parse(json[0]) as { error?: { summary?: string; code?: string } };
      if (parsed.error?.summary) return parsed.error.summary.split('\n')[0] ?? parsed.error.summary;
    } catch {
      // Not JSON after all: fall back to the first error line.
    }
  }
  const line = output.split('\n').find((text) => /npm (error|ERR!)/.test(text));
  return (line ?? output.trim().split('\n')[0] ?? 'npm failed').replace(/^npm (error|ERR!)\s*/, '').trim();
}

function describe(dependencies: readonly Dependency[], versions: PackageLock): string[] {
  return dependencies.map(
    (dependency) => `${dependency.name}@${versions[dependency.name] ?? dependency.range ?? 'latest'}`,
  );
}

function pick(lock: PackageLock, dependencies: readonly Dependency[]): PackageLock {
  return Object.fromEntries(dependencies.map((dependency) => [dependency.name, lock[dependency.name] as string]));
}
