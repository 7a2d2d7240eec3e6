import { BUILTIN_APPS } from '@tributary/engine/local-run';
import type { AppAuthModes } from '@tributary/runtime';
import type { AppsFileT } from '@tributary/contracts';

/**
 * Which apps of these props run locally without `--auth`: those the built-in catalog says take no
 * credentials (`none`), and those it does not know (`unknown`: an empty `$auth` and a warning in
 * the run's logs). A catalog app that needs credentials is left out, so the runtime asks for them.
 */
export function localAppAuth(
  props: readonly Readonly<Record<string, unknown>>[],
  catalog: AppsFileT = BUILTIN_APPS,
): AppAuthModes {
  const modes: Record<string, 'none' | 'unknown'> = {};
  for (const prop of props) {
    const slug = prop['app'];
    if (prop['type'] !== 'app' || typeof slug !== 'string') continue;
    const entry = catalog.apps.find((app) => app.slug === slug);
    if (!entry) modes[slug] = 'unknown';
    else if (entry.auth_type === 'none') modes[slug] = 'none';
  }
  return modes;
}
