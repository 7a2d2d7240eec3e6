import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { AppError } from '@tributary/contracts/errors';
import { bundleComponent, type ComponentBundle } from '@tributary/runtime';

/** What `deploy`, `update --code`, `publish` and `run --remote` send for FILE | KEY | URL. */
export type ComponentRef =
  | { readonly kind: 'code'; readonly code: string; readonly file: string; readonly files: readonly string[] }
  | { readonly kind: 'url'; readonly url: string }
  | { readonly kind: 'key'; readonly key: string };

const REGISTRY_KEY = /^[a-z0-9][a-z0-9_-]{0,127}$/;
const INLINE_MAP = /\n?\/\/# sourceMappingURL=data:application\/json;base64,([A-Za-z0-9+/=]+)\s*$/;
const UPLOADABLE = new Set(['.mjs', '.js', '.cjs']);
// The runtime's bundle starts with a `require` shim; the server bundles the upload again and adds its own.
const REQUIRE_SHIM =
  /^import \{ createRequire as __tributaryCreateRequire \} from 'node:module';\nconst require = __tributaryCreateRequire\(import\.meta\.url\);\n/;

/** A local file wins over a key of the same name; URLs start with http(s)://. */
export async function resolveComponentRef(
  arg: string,
  options: { readonly allowKey?: boolean } = {},
): Promise<ComponentRef> {
  if (/^https?:\/\//i.test(arg)) return { kind: 'url', url: rawGithubUrl(arg) };
  if (existsSync(arg) && statSync(arg).isFile()) return { kind: 'code', ...(await codeForUpload(arg)) };
  if (options.allowKey !== false && REGISTRY_KEY.test(arg) && !/\.(m?[jt]s|cjs|cts|mts)$/.test(arg))
    return { kind: 'key', key: arg };
  throw new AppError(
    'FILE_NOT_FOUND',
    `component file not found: ${arg}${options.allowKey === false ? '' : ' (and it is not a registry key or a URL)'}`,
    { file: arg },
  );
}

/**
 * The code the server receives for a local file. A plain JavaScript file without relative imports
 * goes as written, so `describe --code` shows the author's own text; otherwise esbuild (the
 * runtime's bundler, the one `run` and `dev` use) inlines the relative imports and compiles
 * TypeScript, npm imports stay imports with their version pins put back, and the inline source
 * map, which names paths on this machine, is dropped.
 */
export async function codeForUpload(file: string): Promise<{ code: string; file: string; files: readonly string[] }> {
  const bundle = await bundleComponent({ file, packages: 'external' });
  const plain = UPLOADABLE.has(path.extname(bundle.entry)) && bundle.files.length <= 1;
  return {
    code: plain ? bundle.source : withRelativeMap(repin(bundle), path.dirname(bundle.entry)),
    file: bundle.entry,
    files: bundle.files,
  };
}

/**
 * The bundle's source map with its files named relative to the component's folder
 * (`main.mjs`, `lib/helper.mjs`) and without their text: stacks on the server then name the
 * author's files and lines, and no path of this machine travels.
 */
function withRelativeMap(bundled: string, baseDir: string): string {
  const code = bundled.replace(REQUIRE_SHIM, '');
  const match = INLINE_MAP.exec(code);
  if (!match?.[1]) return code;
  const map = JSON.parse(Buffer.from(match[1], 'base64').toString('utf8')) as {
    sources?: string[];
    sourcesContent?: unknown;
    mappings?: string;
  };
  // The shim's two lines are gone: so are their (empty) groups of the line-by-line mappings.
  const shimLines = code === bundled ? 0 : 2;
  const mappings = (map.mappings ?? '').split(';').slice(shimLines).join(';');
  const sources = (map.sources ?? []).map((source) =>
    path.relative(baseDir, path.resolve(baseDir, source)).split(path.sep).join('/'),
  );
  const relative = { ...map, sources, mappings, sourcesContent: undefined };
  const encoded = Buffer.from(JSON.stringify(relative), 'utf8').toString('base64');
  return `${code.slice(0, match.index)}\n//# sourceMappingURL=data:application/json;base64,${encoded}\n`;
}

/** `external` mode writes npm imports without their pins (`ms@2.1.3` → `ms`); the server needs the pins. */
function repin(bundle: ComponentBundle): string {
  let code = bundle.code;
  const seen = new Set<string>();
  for (const imported of bundle.imports) {
    if (imported.range === null || seen.has(imported.importPath)) continue;
    seen.add(imported.importPath);
    const quoted = new RegExp(`((?:from|import)\\s*\\(?\\s*)(["'])${escapeRegExp(imported.importPath)}\\2`, 'g');
    code = code.replace(
      quoted,
      (_match, prefix: string, quote: string) => `${prefix}${quote}${imported.specifier}${quote}`,
    );
  }
  return code;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** GitHub `blob` pages become their raw file, as `pd deploy <url>` does. */
export function rawGithubUrl(url: string): string {
  const match = /^https?:\/\/github\.com\/([^/]+)\/([^/]+)\/blob\/(.+)$/i.exec(url);
  return match ? `https://raw.githubusercontent.com/${match[1]}/${match[2]}/${match[3]}` : url;
}

/** The body fields of POST /v1/sources and PUT /v1/sources/{id} for a reference. */
export function componentFields(ref: ComponentRef): {
  component_code?: string;
  component_url?: string;
  component_key?: string;
} {
  switch (ref.kind) {
    case 'code':
      return { component_code: ref.code };
    case 'url':
      return { component_url: ref.url };
    case 'key':
      return { component_key: ref.key };
  }
}
