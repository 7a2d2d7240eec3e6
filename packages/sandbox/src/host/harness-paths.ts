import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const SANDBOX_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The compiled worker entry (workers run plain Node, so always the built file). */
export function workerScriptPath(): string {
  const script = path.join(SANDBOX_ROOT, 'dist', 'worker', 'worker-main.js');
  if (!existsSync(script)) throw new Error(`the sandbox worker is not built (${script} is missing); run npm run build`);
  return realpathSync(script);
}

/**
 * Folders a worker reads to run its own harness: the Tributary packages it imports and the
 * node_modules folder their dependencies (zod, croner) and workspace links live in. No other host
 * folder — not the data directory, not other components' code.
 */
export function harnessReadDirs(): string[] {
  const dirs = [realpathSync(SANDBOX_ROOT), packageRoot('@tributary/contracts'), packageRoot('@tributary/runtime')];
  const zod = packageRoot('zod');
  const nodeModules = zod.slice(0, zod.lastIndexOf(`${path.sep}node_modules${path.sep}`) + '/node_modules'.length);
  dirs.push(nodeModules);
  return [...new Set(dirs)].sort();
}

function packageRoot(name: string): string {
  let dir = path.dirname(require.resolve(name));
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === name) {
      return realpathSync(dir);
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`cannot find the folder of package ${name}`);
    dir = parent;
  }
}
