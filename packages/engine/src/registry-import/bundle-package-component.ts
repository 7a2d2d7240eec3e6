import { readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { AppError } from '@tributary/contracts';
import { isBareSpecifier, parsePackageSpecifier } from '@tributary/runtime';
import * as esbuild from 'esbuild';
import semver from 'semver';

export interface PackageComponentBundle {
  /** One self-contained module: the component with the package's files it imports inlined. */
  readonly code: string;
  /** The npm packages it imports, with the range each was pinned to (null: newest). */
  readonly imports: Readonly<Record<string, string | null>>;
}

/**
 * Bundles one component of an unpacked package with its relative imports (the app file, common
 * modules), so the stored code stands alone as any submitted component does. npm imports stay
 * imports, rewritten to carry the range the package's own package.json declares
 * (`@pipedream/platform` -> `@pipedream/platform@^1.1.1`): the sandbox's installer honours pins
 * written in a specifier, so the component gets the versions its package was published with.
 */
export async function bundlePackageComponent(options: {
  readonly packageDir: string;
  /** The component's path inside the package. */
  readonly file: string;
  readonly dependencies: Readonly<Record<string, string>>;
  /** First line of the bundle, naming where it came from. */
  readonly banner: string;
}): Promise<PackageComponentBundle> {
  const entry = path.join(options.packageDir, options.file);
  const imports: Record<string, string | null> = {};
  const pinPlugin: esbuild.Plugin = {
    name: 'pin-package-imports',
    setup(build) {
      build.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === 'entry-point') return undefined;
        if (isBuiltin(args.path)) return { path: args.path, external: true };
        if (!isBareSpecifier(args.path)) return undefined;
        const parsed = parsePackageSpecifier(args.path);
        if (!parsed) return { errors: [{ text: `"${args.path}" is not a valid npm package specifier` }] };
        const range = parsed.range ?? declaredRange(options.dependencies[parsed.name]);
        imports[parsed.name] = range;
        return { path: range === null ? parsed.specifier : `${parsed.name}@${range}${parsed.subpath}`, external: true };
      });
    },
  };
  let result: esbuild.BuildResult<{ write: false }>;
  try {
    result = await esbuild.build({
      entryPoints: [entry],
      absWorkingDir: options.packageDir,
      bundle: true,
      write: false,
      format: formatOf(entry),
      platform: 'node',
      target: 'node20',
      conditions: [],
      logLevel: 'silent',
      legalComments: 'inline',
      banner: { js: `// ${options.banner}` },
      plugins: [pinPlugin],
    });
  } catch (error) {
    const first = (error as { errors?: esbuild.Message[] }).errors?.[0];
    const where = first?.location
      ? `${first.location.file}:${first.location.line}:${first.location.column + 1}`
      : options.file;
    throw new AppError(
      first && /^Could not resolve "[./]/.test(first.text) ? 'FILE_NOT_FOUND' : 'COMPONENT_SYNTAX_ERROR',
      `${where}: ${first?.text ?? String(error)}`,
      { file: options.file },
    );
  }
  return { code: result.outputFiles[0]?.text ?? '', imports };
}

/**
 * A range the installer can pin (`^1.1.1`, `1.x`, `latest` is not one); git URLs, `file:` and
 * `workspace:` ranges mean nothing outside the package's own repository, so those imports take
 * the newest version, as an unpinned import does.
 */
function declaredRange(range: string | undefined): string | null {
  if (range === undefined || range.includes('/') || range.includes(':')) return null;
  return semver.validRange(range) === null ? null : range;
}

/** CommonJS stays CommonJS (its `require` calls are what the installer scans); everything else is ESM. */
function formatOf(entry: string): 'esm' | 'cjs' {
  if (entry.endsWith('.cjs')) return 'cjs';
  if (entry.endsWith('.mjs') || entry.endsWith('.ts')) return 'esm';
  const text = readFileSync(entry, 'utf8');
  return /\bmodule\.exports\b/.test(text) && !/^\s*(import|export)\s/m.test(text) ? 'cjs' : 'esm';
}
