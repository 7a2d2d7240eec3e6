// Warm invocation overhead: N sequential invocations of an empty action through one warm sandbox
// worker, against N direct in-process calls of the same component through the runtime API.
// Run: node bench/sandbox-warm-invocation.mjs [--n 2000] [--warmup 100]
import { spawn } from 'node:child_process';
import console from 'node:console';
import path from 'node:path';
import process from 'node:process';
import { parseArgs } from 'node:util';
import { invokeComponent, loadComponentFile, resolveProps } from '@tributary/runtime';
import { Sandbox } from '@tributary/sandbox';
import {
  COMPONENTS_DIR,
  measure,
  onInterrupt,
  printTable,
  ratioOf,
  round,
  summarize,
  temporaryCacheDir,
  writeResult,
} from './lib.mjs';

const NAME = 'sandbox-warm-invocation';
const TARGET_OVERHEAD_P99_MS = 2;
const { values: args } = parseArgs({
  options: { n: { type: 'string', default: '2000' }, warmup: { type: 'string', default: '100' } },
});
const N = Number(args.n);
const WARMUP = Number(args.warmup);
const TIMEOUT_MS = 30_000;
const file = path.join(COMPONENTS_DIR, 'empty-action.mjs');

function check(result, where) {
  if (!result.ok || result.returnValue !== 1) {
    throw new Error(
      `${where}: unexpected result ${JSON.stringify({ ok: result.ok, returnValue: result.returnValue, error: result.error })}`,
    );
  }
}

/** Times `fn` N times after `warmup` untimed calls; returns the samples in ms. */
/**
 * Diagnostic floor: a round trip of a small JSON message to a bare `node` child over the same kind
 * of IPC channel the sandbox uses (no bubblewrap, no permission flags, no validation).
 */
async function bareIpcRoundTrip(n, warmup) {
  const child = spawn(
    process.execPath,
    ['-e', "process.on('message', (m) => process.send(m)); process.send('ready');"],
    {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      serialization: 'json',
    },
  );
  await new Promise((resolve) => child.once('message', resolve));
  const message = {
    type: 'invoke',
    id: 'r1',
    payload: { configured: {}, accounts: {}, state: { db: {}, dedupe: null } },
  };
  const once = () =>
    new Promise((resolve) => {
      child.once('message', resolve);
      child.send(message);
    });
  const samples = await measure(once, n, warmup);
  child.kill();
  return samples;
}

const cache = temporaryCacheDir('warm');
let sandbox = null;
onInterrupt(async () => {
  await sandbox?.close();
  cache.remove();
});

try {
  sandbox = new Sandbox({ cacheDir: cache.dir });
  const prepared = await sandbox.prepare(file);
  const handle = await sandbox.open(prepared, { key: 'bench-warm', purpose: 'run' });
  const request = { kind: 'run', configured: {}, accounts: {}, state: { db: {}, dedupe: null }, timeoutMs: TIMEOUT_MS };
  const viaSandbox = async () => check(await handle.invoke(request), 'sandbox');

  const { component } = await loadComponentFile({ file, purpose: 'run' });
  // What the worker does per invocation, minus the process boundary: resolve props, invoke.
  const direct = async () => {
    const props = resolveProps({ specs: component.props, configured: {}, accounts: {} });
    check(
      await invokeComponent({ component, props, kind: 'run', state: { db: {}, dedupe: null }, timeoutMs: TIMEOUT_MS }),
      'direct',
    );
  };

  console.log(`${NAME}: ${WARMUP} warm-up + ${N} timed invocations each way`);
  const ours = await measure(viaSandbox, N, WARMUP);
  const baseline = await measure(direct, N, WARMUP);
  const ipc = await bareIpcRoundTrip(N, WARMUP);

  const s = summarize(ours);
  const b = summarize(baseline);
  const floor = summarize(ipc);
  const overhead = {
    p50Ms: round(s.p50Ms - b.p50Ms),
    p99Ms: round(s.p99Ms - b.p99Ms),
    meanMs: round(s.meanMs - b.meanMs),
  };
  const pass = overhead.p99Ms <= TARGET_OVERHEAD_P99_MS;

  printTable(
    `${NAME} (N=${N}, isolation: ${sandbox.isolation.layers
      .filter((l) => l.active)
      .map((l) => l.name)
      .join(', ')})`,
    [
      { metric: 'invocation p50', ours: s.p50Ms, baseline: b.p50Ms, ratio: ratioOf(s.p50Ms, b.p50Ms) },
      { metric: 'invocation p99', ours: s.p99Ms, baseline: b.p99Ms, ratio: ratioOf(s.p99Ms, b.p99Ms) },
      { metric: 'invocation mean', ours: s.meanMs, baseline: b.meanMs, ratio: ratioOf(s.meanMs, b.meanMs) },
      { metric: 'overhead p50', ours: overhead.p50Ms },
      { metric: 'overhead p99', ours: overhead.p99Ms, target: `<= ${TARGET_OVERHEAD_P99_MS} ms`, pass },
      { metric: '(diag) bare node IPC round trip p50', ours: floor.p50Ms },
      { metric: '(diag) bare node IPC round trip p99', ours: floor.p99Ms },
    ],
  );

  writeResult(NAME, {
    isolation: sandbox.isolation.layers,
    samples: { warmup: WARMUP, sandbox: N, baseline: N },
    results: { ...s, overheadP50Ms: overhead.p50Ms, overheadP99Ms: overhead.p99Ms, overheadMeanMs: overhead.meanMs },
    baseline: { what: 'in-process resolveProps + invokeComponent of the same loaded component', ...b },
    diagnostics: { bareIpcRoundTrip: { what: 'JSON message echoed by a bare node child over IPC', ...floor } },
    ratio: { p50: ratioOf(s.p50Ms, b.p50Ms), p99: ratioOf(s.p99Ms, b.p99Ms), mean: ratioOf(s.meanMs, b.meanMs) },
    target: { metric: 'overheadP99Ms', maxMs: TARGET_OVERHEAD_P99_MS },
    pass,
  });
} finally {
  await sandbox?.close();
  cache.remove();
}
