import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { AppError } from '@tributary/contracts';
import npa from 'npm-package-arg';
import pacote from 'pacote';

/** An npm package unpacked on disk, with what its package.json declares. */
export interface FetchedPackage {
  readonly name: string;
  readonly version: string;
  readonly dir: string;
  /** The package.json `dependencies`: the ranges its components' imports are pinned to. */
  readonly dependencies: Readonly<Record<string, string>>;
}

export interface FetchOptions {
  /** Unpacked packages go to `<cacheDir>/registry-packages`, pacote's tarball cache to `<cacheDir>/npm-cache`. */
  readonly cacheDir: string;
  /** npm registry URL (default: https://registry.npmjs.org/). */
  readonly registry?: string;
}

/**
 * What a spec resolves to now (`@pipedream/x`, `@pipedream/x@^1`, a tarball path), without
 * unpacking it. pacote is npm's own fetcher: it parses every spec form npm accepts, follows
 * dist-tags and ranges, and checks the tarball's integrity.
 */
export async function resolvePackage(spec: string, options: FetchOptions): Promise<{ name: string; version: string }> {
  try {
    const manifest = await pacote.manifest(spec, pacoteOptions(options));
    return { name: manifest.name, version: manifest.version };
  } catch (error) {
    throw fetchError(spec, error);
  }
}

/** Downloads and unpacks the package once per name and version (later calls reuse the folder). */
export async function fetchPackage(spec: string, options: FetchOptions): Promise<FetchedPackage> {
  const { name, version } = await resolvePackage(spec, options);
  const root = path.join(options.cacheDir, 'registry-packages');
  const dir = path.join(root, `${name.replace('/', '+')}@${version}`);
  if (!existsSync(path.join(dir, 'package.json'))) {
    mkdirSync(root, { recursive: true });
    // Unpacked beside its final place and renamed when complete, so a failed fetch leaves nothing.
    const temporary = path.join(root, `.tmp-${randomBytes(6).toString('hex')}`);
    try {
      // A registry spec is fetched at the version just resolved, so a publish in between changes nothing.
      await pacote.extract(isRegistrySpec(spec) ? `${name}@${version}` : spec, temporary, pacoteOptions(options));
      writeFileSync(path.join(temporary, '.tributary-complete'), '');
      if (!existsSync(dir)) renameSync(temporary, dir);
    } catch (error) {
      throw fetchError(spec, error);
    } finally {
      rmSync(temporary, { recursive: true, force: true });
    }
  }
  const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  return { name, version, dir, dependencies: manifest.dependencies ?? {} };
}

function pacoteOptions(options: FetchOptions): pacote.Options {
  return {
    cache: path.join(options.cacheDir, 'npm-cache'),
    ...(options.registry ? { registry: options.registry } : {}),
    // Install scripts of the package itself never run: its files are only read and bundled.
    ignoreScripts: true,
    fullMetadata: false,
    // outdated and a range resolve against what the registry has now, not a packument cached minutes ago.
    preferOnline: true,
  } as pacote.Options;
}

function fetchError(spec: string, error: unknown): AppError {
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
  switch (code) {
    case 'E404':
    case 'ENOENT':
      return new AppError('PACKAGE_NOT_FOUND', `npm package "${spec}" does not exist (${message})`, { package: spec });
    case 'ETARGET':
      return new AppError('PACKAGE_NOT_FOUND', `no published version of "${spec}" matches (${message})`, {
        package: spec,
      });
    case 'EINVALIDPACKAGENAME':
    case 'EINVALIDTAGNAME':
    case 'EUNSUPPORTEDPROTOCOL':
      return new AppError('VALIDATION_FAILED', `"${spec}" is not an npm package spec: ${message}`, { field: 'spec' });
    default:
      return new AppError(
        'PACKAGE_INSTALL_FAILED',
        `fetching "${spec}" failed: ${message}`,
        { package: spec },
        { cause: error },
      );
  }
}

/** True for specs npm resolves through a registry (names, ranges, tags), false for files and URLs. */
export function isRegistrySpec(spec: string): boolean {
  try {
    return npa(spec).registry === true;
  } catch {
    return false;
  }
}
