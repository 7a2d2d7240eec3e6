/**
 * Parses an import specifier as Pipedream authors write it: a package name with an optional pinned
 * version or range and an optional subpath (`lodash@4.17.21/fp`, `@scope/pkg@~1.2.0`).
 */
export interface PackageSpecifier {
  /** The specifier exactly as written in the source. */
  readonly specifier: string;
  /** npm package name, e.g. `@scope/pkg`. */
  readonly name: string;
  /** Version or range written after `@`, or null when unpinned. */
  readonly range: string | null;
  /** Subpath after the package, including its leading slash, or '' for the package root. */
  readonly subpath: string;
  /** What Node resolves once the package is installed: name plus subpath, pin removed. */
  readonly importPath: string;
}

const NAME_PART = /^[a-z0-9][a-z0-9._~-]*$/i;

export function isBareSpecifier(specifier: string): boolean {
  return !(
    specifier.startsWith('.') ||
    specifier.startsWith('/') ||
    specifier.startsWith('node:') ||
    specifier.startsWith('file:') ||
    specifier.startsWith('data:') ||
    /^[a-z]+:\/\//i.test(specifier)
  );
}

/** Returns null when the text is not a valid bare npm specifier. */
export function parsePackageSpecifier(specifier: string): PackageSpecifier | null {
  if (!isBareSpecifier(specifier)) return null;
  const scoped = specifier.startsWith('@');
  const segments = specifier.split('/');
  const headCount = scoped ? 2 : 1;
  if (segments.length < headCount) return null;
  const head = segments.slice(0, headCount);
  const rest = segments.slice(headCount);
  const last = head[head.length - 1] ?? '';
  // A pin sits on the last segment of the name: `pkg@1.2.3` or `@scope/pkg@^1`.
  const at = last.indexOf('@', 0);
  let bare = last;
  let range: string | null = null;
  if (at > 0) {
    bare = last.slice(0, at);
    range = last.slice(at + 1);
    if (range === '') return null;
  }
  if (scoped) {
    const scope = (head[0] ?? '').slice(1);
    if (!NAME_PART.test(scope) || !NAME_PART.test(bare)) return null;
  } else if (!NAME_PART.test(bare)) {
    return null;
  }
  const name = scoped ? `${head[0]}/${bare}` : bare;
  const subpath = rest.length > 0 ? `/${rest.join('/')}` : '';
  return { specifier, name, range, subpath, importPath: `${name}${subpath}` };
}
