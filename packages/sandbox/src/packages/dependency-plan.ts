import { AppError } from '@tributary/contracts';
import type { PackageImport } from '@tributary/runtime';
import semver from 'semver';

/** One npm package a component needs, with the range its imports pinned (null = newest). */
export interface Dependency {
  readonly name: string;
  readonly range: string | null;
}

/**
 * Folds a component's bare imports into one dependency per package. The same package may be
 * imported several times (a root import and a subpath); two different pins of it are an error,
 * since one component gets one copy of each package.
 */
export function planDependencies(imports: readonly PackageImport[]): Dependency[] {
  const byName = new Map<string, { range: string | null; specifier: string }>();
  for (const imported of imports) {
    const known = byName.get(imported.name);
    if (!known) {
      byName.set(imported.name, { range: imported.range, specifier: imported.specifier });
      continue;
    }
    if (imported.range === null || imported.range === known.range) continue;
    if (known.range === null) {
      byName.set(imported.name, { range: imported.range, specifier: imported.specifier });
      continue;
    }
    // `lodash@4.17.21/fp` beside `lodash@^4.17.0` asks for one copy: the exact version, if it fits.
    const merged = narrower(known.range, imported.range);
    if (merged !== null) {
      byName.set(imported.name, {
        range: merged,
        specifier: merged === imported.range ? imported.specifier : known.specifier,
      });
      continue;
    }
    throw new AppError(
      'PACKAGE_INSTALL_FAILED',
      `package "${imported.name}" is pinned twice with different versions ("${known.specifier}" and "${imported.specifier}"); use one pin`,
      { package: imported.name },
    );
  }
  return [...byName.entries()]
    .map(([name, { range }]) => ({ name, range }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

function narrower(a: string, b: string): string | null {
  if (semver.valid(a) && semver.satisfies(a, b)) return a;
  if (semver.valid(b) && semver.satisfies(b, a)) return b;
  return null;
}
