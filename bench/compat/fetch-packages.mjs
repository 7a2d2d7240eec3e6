// Downloads each package's tarball with `npm pack` into a cache folder and extracts it, once.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';

/** The folder holding the extracted package (its package.json, app file, actions/ and sources/). */
export function fetchPackage(cacheDir, { name, version }) {
  const slug = `${name.replace('@', '').replace('/', '-')}-${version}`;
  const dir = path.join(cacheDir, 'packages', slug);
  const root = path.join(dir, 'package');
  if (existsSync(path.join(root, 'package.json'))) return root;
  mkdirSync(dir, { recursive: true });
  const tarball = execFileSync('npm', ['pack', `${name}@${version}`, '--silent', '--pack-destination', dir], {
    encoding: 'utf8',
  })
    .trim()
    .split('\n')
    .pop();
  execFileSync('tar', ['xzf', path.join(dir, tarball), '-C', dir]);
  return root;
}

/**
 * The package's components: `actions/<name>/<name>.mjs` and `sources/<name>/<name>.mjs`, Pipedream's
 * layout (shared code sits in `common/` folders and files named otherwise).
 */
export function findComponents(root) {
  const found = [];
  for (const kind of ['actions', 'sources']) {
    const base = path.join(root, kind);
    if (!existsSync(base)) continue;
    for (const entry of readdirSync(base, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      for (const ext of ['.mjs', '.js', '.ts']) {
        const file = path.join(base, entry.name, `${entry.name}${ext}`);
        if (existsSync(file)) {
          found.push({ kind, name: entry.name, file });
          break;
        }
      }
    }
  }
  return found.sort((a, b) => a.file.localeCompare(b.file));
}
