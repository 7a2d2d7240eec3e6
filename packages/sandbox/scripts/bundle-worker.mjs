// Bundles the worker harness (and the runtime, zod and croner it uses) into one file. A worker
// then starts by loading one module instead of dozens, and may read only the folder holding it:
// none of the host's node_modules.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
await esbuild.build({
  entryPoints: [path.join(root, 'src/worker/worker-main.ts')],
  outfile: path.join(root, 'dist/worker-bundle/worker.mjs'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  conditions: ['@tributary/source'],
  logLevel: 'warning',
  legalComments: 'none',
});

// The egress proxy's clients, loaded by a worker on its first request (src/worker/egress-client.ts):
// CommonJS, like undici and https-proxy-agent themselves, so the harness can require it synchronously.
await esbuild.build({
  entryPoints: [path.join(root, 'src/worker/egress-agents.ts')],
  outfile: path.join(root, 'dist/worker-bundle/egress-agents.cjs'),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  logLevel: 'warning',
  legalComments: 'none',
});
