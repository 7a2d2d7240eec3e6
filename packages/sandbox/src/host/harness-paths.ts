import { createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppError } from '@tributary/contracts';

const SANDBOX_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The compiled worker entry (workers run plain Node, so always the built file). */
export function workerScriptPath(): string {
  const script = path.join(SANDBOX_ROOT, 'dist', 'worker-bundle', 'worker.mjs');
  if (!existsSync(script)) throw new Error(`the sandbox worker is not built (${script} is missing); run npm run build`);
  return realpathSync(script);
}

/** Where workers read their harness: the one bundled file and its folder, nothing else of the host. */
export interface Harness {
  readonly script: string;
  readonly readDirs: readonly string[];
}

/**
 * The harness as workers can reach it. Workers of a root host run as another uid, and the
 * repository may sit where that uid cannot enter (a clone in /root, mode 0700), so the bundled
 * file is copied into the cache (which workers reach anyway for their bundles), once per content.
 * `entry` is another worker entry than the built one, with the files of its folder.
 */
export function installHarness(cacheDir: string, copyForOtherUid: boolean, entry?: string): Harness {
  const built = entry === undefined ? workerScriptPath() : realpathSync(entry);
  if (!copyForOtherUid) return { script: built, readDirs: [path.dirname(built)] };
  // Every file of the bundle folder: the harness and what it loads on demand (egress-agents.cjs).
  const builtDir = path.dirname(built);
  const files = readdirSync(builtDir)
    .filter((name) => !name.endsWith('.map'))
    .sort()
    .map((name) => ({ name, code: readFileSync(path.join(builtDir, name)) }));
  const hash = createHash('sha256');
  for (const file of files) hash.update(file.name).update('\0').update(file.code);
  const dir = path.join(cacheDir, 'harness', hash.digest('hex').slice(0, 24));
  const script = path.join(dir, 'worker.mjs');
  if (!existsSync(script)) {
    // Written aside and renamed, so a worker never starts from a half-written copy.
    mkdirSync(path.dirname(dir), { recursive: true, mode: 0o755 });
    const staging = `${dir}.${randomBytes(6).toString('hex')}.tmp`;
    mkdirSync(staging, { mode: 0o755 });
    for (const file of files) writeFileSync(path.join(staging, file.name), file.code, { mode: 0o644 });
    chmodSync(staging, 0o755);
    try {
      renameSync(staging, dir);
    } catch (error) {
      rmSync(staging, { recursive: true, force: true });
      // Another process installed the same content first.
      if (!existsSync(script)) throw error;
    }
  }
  return { script: realpathSync(script), readDirs: [realpathSync(dir)] };
}

/**
 * Refuses a cache that workers running as another uid could not reach: every folder above it must
 * let others through (o+x), or each worker would fail at start with a bare "permission denied".
 */
export function assertReachableByOthers(cacheDir: string): void {
  let dir = path.resolve(cacheDir);
  const blocked: string[] = [];
  for (;;) {
    if ((statSync(dir).mode & 0o001) === 0) blocked.push(dir);
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  const first = blocked.at(-1);
  if (first === undefined) return;
  throw new AppError(
    'USAGE_ERROR',
    `the cache directory ${cacheDir} cannot be reached by sandbox workers, which run as an unprivileged user when the host runs as root: ${first} does not let others through; set TRIBUTARY_CACHE_DIR to a folder they can reach (the default as root is /var/cache/tributary) or run chmod o+x ${first}`,
    { field: 'TRIBUTARY_CACHE_DIR' },
  );
}
