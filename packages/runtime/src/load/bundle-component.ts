import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { AppError } from '@tributary/contracts';
import * as esbuild from 'esbuild';
import { isBareSpecifier, parsePackageSpecifier, type PackageSpecifier } from './parse-specifier.js';

/** A bare import found while bundling, with where it was written. */
export interface PackageImport extends PackageSpecifier {
  readonly importer: string;
}

export interface BundleOptions {
  /** Absolute or cwd-relative path of the component's entry file. */
  readonly file: string;
  /**
   * Directory whose `node_modules` supplies bare imports. Defaults to the importing file's own
   * directory, so a component next to an installed `package.json` works as plain Node would.
   */
  readonly packageDir?: string;
  /**
   * `resolve` (default) resolves npm imports to files now and fails with PACKAGE_NOT_FOUND when one
   * is missing; `external` only records them and leaves `name/subpath` imports (pins removed),
   * which is how the installer learns what to install.
   */
  readonly packages?: 'resolve' | 'external';
}

export interface ComponentBundle {
  readonly entry: string;
  /** The entry file's text, as the author wrote it. */
  readonly source: string;
  /** Lowercase hex SHA-256 of `source` (the `code_hash` of the API). */
  readonly codeHash: string;
  /** One ESM module with every relative import inlined; npm packages stay imports. */
  readonly code: string;
  /** Every local file the bundle was built from (what `dev` watches). */
  readonly files: readonly string[];
  readonly imports: readonly PackageImport[];
}

const RESOLVING = Symbol.for('tributary.resolving');

// CommonJS code bundled into an ESM file still calls `require`; give it Node's own.
const BANNER = [
  "import { createRequire as __tributaryCreateRequire } from 'node:module';",
  'const require = __tributaryCreateRequire(import.meta.url);',
].join('\n');

/**
 * Bundles a component and its relative imports into one ESM module with esbuild, leaving npm
 * packages as imports resolved to absolute paths. Rejects modules that mix ESM and CommonJS.
 */
export async function bundleComponent(options: BundleOptions): Promise<ComponentBundle> {
  const entry = path.resolve(options.file);
  if (!existsSync(entry)) {
    throw new AppError('FILE_NOT_FOUND', `component file not found: ${options.file}`, { file: options.file });
  }
  const source = readFileSync(entry, 'utf8');
  const imports: PackageImport[] = [];
  const plugin = packagesPlugin({ imports, packageDir: options.packageDir, mode: options.packages ?? 'resolve' });
  let result: esbuild.BuildResult<{ metafile: true; write: false }>;
  try {
    result = await esbuild.build({
      entryPoints: [entry],
      absWorkingDir: path.dirname(entry),
      bundle: true,
      write: false,
      metafile: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      // No "module" condition: it selects files meant for bundlers, and Node loads these packages.
      conditions: [],
      sourcemap: 'inline',
      logLevel: 'silent',
      banner: { js: BANNER },
      plugins: [plugin],
    });
  } catch (error) {
    throw buildFailure(error, entry);
  }
  assertSingleModuleFormat(result, entry);
  const code = withAbsoluteSources(result.outputFiles[0]?.text ?? '', path.dirname(entry));
  const files = Object.keys(result.metafile.inputs)
    .map((input) => path.resolve(path.dirname(entry), input))
    .filter((file) => existsSync(file));
  return {
    entry,
    source,
    codeHash: createHash('sha256').update(source, 'utf8').digest('hex'),
    code,
    files,
    imports,
  };
}

function packagesPlugin(options: {
  imports: PackageImport[];
  packageDir: string | undefined;
  mode: 'resolve' | 'external';
}): esbuild.Plugin {
  return {
    name: 'tributary-packages',
    setup(build) {
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.kind === 'entry-point' || (args.pluginData as Record<symbol, unknown> | undefined)?.[RESOLVING]) {
          return undefined;
        }
        if (isBuiltin(args.path)) return { path: args.path, external: true };
        if (!isBareSpecifier(args.path)) return undefined;
        const parsed = parsePackageSpecifier(args.path);
        if (!parsed) {
          return { errors: [{ text: `"${args.path}" is not a valid npm package specifier` }] };
        }
        options.imports.push({ ...parsed, importer: args.importer });
        if (options.mode === 'external') return { path: parsed.importPath, external: true };
        const resolved = await build.resolve(parsed.importPath, {
          kind: args.kind,
          resolveDir: options.packageDir ?? args.resolveDir,
          importer: args.importer,
          pluginData: { [RESOLVING]: true },
        });
        if (resolved.errors.length > 0) {
          return {
            errors: [
              {
                text: `package "${parsed.name}" (imported as "${parsed.specifier}") is not installed`,
                detail: { code: 'PACKAGE_NOT_FOUND', packageName: parsed.name },
              },
            ],
          };
        }
        return { path: resolved.path, external: true };
      });
    },
  };
}

function assertSingleModuleFormat(result: esbuild.BuildResult<{ metafile: true }>, entry: string): void {
  const base = path.dirname(entry);
  for (const warning of result.warnings) {
    if (warning.id === 'commonjs-variable-in-esm') {
      throw mixedFormat(path.resolve(base, warning.location?.file ?? entry), warning.location);
    }
  }
  for (const [file, input] of Object.entries(result.metafile.inputs)) {
    if (input.format !== 'esm') continue;
    const required = input.imports.find((imported) => imported.kind === 'require-call');
    if (required) throw mixedFormat(path.resolve(base, file), null, required.original ?? required.path);
  }
}

function mixedFormat(file: string, location: esbuild.Location | null | undefined, required?: string): AppError {
  const where = location ? `${file}:${location.line}:${location.column + 1}` : file;
  const what = required ? `require("${required}")` : '`module.exports`/`exports`';
  return new AppError(
    'MIXED_MODULE_FORMAT',
    `${where}: a module must use either ESM (import/export) or CommonJS (require/module.exports), not both; found ${what} in an ES module`,
    { file, ...(location ? { line: location.line, column: location.column + 1 } : {}) },
  );
}

function buildFailure(error: unknown, entry: string): AppError {
  const messages = (error as { errors?: esbuild.Message[] }).errors;
  const first = messages?.[0];
  if (!first) {
    return new AppError('INTERNAL', `bundling ${entry} failed: ${String(error)}`, {}, { cause: error });
  }
  const location = first.location;
  const file = location ? path.resolve(path.dirname(entry), location.file) : entry;
  const where = location ? `${file}:${location.line}:${location.column + 1}` : file;
  const details = { file, ...(location ? { line: location.line, column: location.column + 1 } : {}) };
  const detail = first.detail as { code?: string; packageName?: string } | undefined;
  if (detail?.code === 'PACKAGE_NOT_FOUND') {
    return new AppError('PACKAGE_NOT_FOUND', `${where}: ${first.text}`, { ...details, package: detail.packageName });
  }
  if (/^Could not resolve "[./]/.test(first.text)) {
    return new AppError('FILE_NOT_FOUND', `${where}: ${first.text}`, details);
  }
  return new AppError('COMPONENT_SYNTAX_ERROR', `${where}: ${first.text}`, details);
}

const INLINE_MAP = /\/\/# sourceMappingURL=data:application\/json;base64,([A-Za-z0-9+/=]+)\s*$/;

/**
 * esbuild writes source paths relative to where it would have put the output; the bundle is
 * written elsewhere (a cache folder), so stack traces would name files that do not exist. Absolute
 * paths make them point at the author's own files and lines.
 */
function withAbsoluteSources(code: string, baseDir: string): string {
  const match = INLINE_MAP.exec(code);
  if (!match?.[1]) return code;
  const map = JSON.parse(Buffer.from(match[1], 'base64').toString('utf8')) as { sources?: string[] };
  map.sources = (map.sources ?? []).map((source) => (path.isAbsolute(source) ? source : path.resolve(baseDir, source)));
  const encoded = Buffer.from(JSON.stringify(map), 'utf8').toString('base64');
  return `${code.slice(0, match.index)}//# sourceMappingURL=data:application/json;base64,${encoded}\n`;
}
