import os from 'node:os';
import path from 'node:path';
import { egressFromEnv, Sandbox, type InstallProgress } from '@tributary/sandbox';
import { installLine } from '../ui/install-lines.js';
import type { Output } from '../ui/output.js';

/**
 * Where bundles and installed packages are cached: TRIBUTARY_CACHE_DIR, else a system cache folder
 * when running as root (workers run as "nobody" and must be able to read it), else the user's.
 */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env['TRIBUTARY_CACHE_DIR']) return path.resolve(env['TRIBUTARY_CACHE_DIR']);
  if (typeof process.getuid === 'function' && process.getuid() === 0) return '/var/cache/tributary';
  return path.join(env['XDG_CACHE_HOME'] ?? path.join(os.homedir(), '.cache'), 'tributary');
}

/**
 * The sandbox of one CLI command. Missing isolation layers are reported once, on stderr, and the
 * command still runs; package installs show their progress there too.
 */
export function createSandbox(output: Output): Sandbox {
  const sandbox = new Sandbox({
    cacheDir: defaultCacheDir(),
    egress: egressFromEnv(process.env),
    onEgressRefused: (target, reason) => output.err(`${output.style('yellow', 'egress')} ${target} refused: ${reason}`),
    onInstallProgress: (progress) => reportProgress(output, progress),
  });
  for (const layer of sandbox.isolation.layers) {
    if (!layer.active)
      output.err(`${output.style('yellow', 'sandbox')} ${layer.name} is off: ${layer.note ?? 'not available here'}`);
  }
  return sandbox;
}

function reportProgress(output: Output, progress: InstallProgress): void {
  const line = installLine(output, progress);
  if (line !== null) output.err(line);
}
