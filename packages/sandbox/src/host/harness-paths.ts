import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SANDBOX_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The compiled worker entry (workers run plain Node, so always the built file). */
export function workerScriptPath(): string {
  const script = path.join(SANDBOX_ROOT, 'dist', 'worker-bundle', 'worker.mjs');
  if (!existsSync(script)) throw new Error(`the sandbox worker is not built (${script} is missing); run npm run build`);
  return realpathSync(script);
}

/** The folder a worker reads to run its own harness: the one bundled file, nothing else of the host. */
export function harnessReadDirs(): string[] {
  return [path.dirname(workerScriptPath())];
}
