// Cold start of a sandbox worker: time from `sandbox.open` with a fresh key (the bundle already
// prepared; dedicated placement, so each open starts a worker) to a loaded handle, against spawning
// a bare `node` child with an IPC channel and waiting for its first message. A diag row times what
// shared placement (the default) pays instead for a component its warm worker has not loaded yet:
// `open` of a distinct, already prepared copy of the same component. Samples of every method are
// interleaved, so machine noise hits them alike.
// Run: node bench/sandbox-cold-start.mjs [--n 30] [--warmup 2]
import { spawn } from 'node:child_process';
import console from 'node:console';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { parseArgs } from 'node:util';
import { Sandbox } from '@tributary/sandbox';
import {
  BENCH_DIR,
  COMPONENTS_DIR,
  onInterrupt,
  printTable,
  ratioOf,
  sleep,
  summarize,
  temporaryCacheDir,
  writeResult,
} from './lib.mjs';

const NAME = 'sandbox-cold-start';
const TARGET_P99_MS = 150;
const { values: args } = parseArgs({
  options: { n: { type: 'string', default: '30' }, warmup: { type: 'string', default: '2' } },
});
const N = Number(args.n);
const WARMUP = Number(args.warmup);
/** Pause between samples so the previous process's teardown does not overlap the next start. */
const SETTLE_MS = 100;
const file = path.join(COMPONENTS_DIR, 'empty-action.mjs');

/** Spawns a command with an IPC channel, resolves with the ms until its first (accepted) message, then kills it. */
function timeSpawn(command, commandArgs, { env = {}, uid = null, gid = null, accept = () => true } = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let stderr = '';
    const child = spawn(command, commandArgs, {
      env,
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'json',
      ...(uid !== null ? { uid } : {}),
      ...(gid !== null ? { gid } : {}),
    });
    child.stderr.on('data', (chunk) => (stderr += chunk));
    let elapsed = null;
    child.on('message', (message) => {
      if (elapsed !== null || !accept(message)) return;
      elapsed = performance.now() - started;
      child.kill('SIGKILL');
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (elapsed !== null) resolve(elapsed);
      else reject(new Error(`${path.basename(command)} exited (${code}) before its first message: ${stderr.trim()}`));
    });
  });
}

/**
 * Optional breakdown of the cold start, from the sandbox's built internals (not its public API; if
 * they move, the breakdown is skipped and the benchmark still runs). Returns named sample functions.
 */
async function breakdown(sandbox, prepared, cacheDir) {
  const dist = path.join(BENCH_DIR, '..', 'packages', 'sandbox', 'dist');
  try {
    const { buildLaunchCommand } = await import(path.join(dist, 'host', 'launch-command.js'));
    const { installHarness } = await import(path.join(dist, 'host', 'harness-paths.js'));
    const { PROTOCOL_VERSION } = await import(path.join(dist, 'protocol', 'messages.js'));
    const isolation = sandbox.isolation;
    // A trivial script the worker's uid can read: answers `ready` at once.
    const trivialDir = path.join(cacheDir, 'bench-trivial');
    mkdirSync(trivialDir, { recursive: true, mode: 0o755 });
    chmodSync(trivialDir, 0o755);
    const trivialScript = path.join(trivialDir, 'ready.mjs');
    writeFileSync(trivialScript, `process.send({ v: ${PROTOCOL_VERSION}, type: 'ready', pid: process.pid });\n`, {
      mode: 0o644,
    });
    const scratchDir = path.join(cacheDir, 'bench-scratch');
    mkdirSync(scratchDir, { recursive: true, mode: 0o777 });
    chmodSync(scratchDir, 0o777);
    const common = { isolation, scratchDir, memoryMb: 256, tmpSizeBytes: 64 * 1024 * 1024 };
    const launchOf = (workerScript, readDirs) => buildLaunchCommand({ ...common, workerScript, readDirs });
    const run = (launch) =>
      timeSpawn(launch.command, launch.args, {
        env: launch.env,
        uid: launch.uid,
        gid: launch.gid,
        accept: (message) => message?.type === 'ready',
      });
    const isolatedTrivial = launchOf(trivialScript, [trivialDir]);
    const installed = installHarness(cacheDir, isolation.workerUid !== null);
    const harness = launchOf(installed.script, [...installed.readDirs]);
    return {
      isolatedNode: {
        what: 'the same launch command (bubblewrap, permission flags, uid, heap cap) running a one-line script that sends ready',
        sample: () => run(isolatedTrivial),
      },
      harnessReady: {
        what: 'the real worker entry until its ready message (isolation + importing the worker harness), no load',
        sample: () => run(harness),
      },
    };
  } catch (error) {
    console.warn(`breakdown skipped: ${error instanceof Error ? error.message : String(error)}`);
    return {};
  }
}

const cache = temporaryCacheDir('cold');
let sandbox = null;
let shared = null;
onInterrupt(async () => {
  await sandbox?.close();
  await shared?.close();
  cache.remove();
});

try {
  sandbox = new Sandbox({ cacheDir: cache.dir, placement: 'dedicated' });
  const prepared = await sandbox.prepare(file);
  // Distinct copies (a unique comment each) for the warm-load row, prepared before any timing.
  shared = new Sandbox({ cacheDir: cache.dir });
  const copiesDir = path.join(cache.dir, 'bench-copies');
  mkdirSync(copiesDir, { recursive: true });
  const copies = [];
  for (let i = 0; i <= WARMUP + N; i += 1) {
    const copy = path.join(copiesDir, `empty-action-${i}.mjs`);
    writeFileSync(copy, `${readFileSync(file, 'utf8')}\n// copy ${i}\n`);
    copies.push(await shared.prepare(copy));
  }
  // The first copy starts the shared worker; every sample after it loads a new component there.
  await shared.open(copies[0], { key: 'bench-warm-load-0', purpose: 'run' });
  let copyIndex = 0;
  const openNewInWarmWorker = async () => {
    copyIndex += 1;
    const started = performance.now();
    const handle = await shared.open(copies[copyIndex], { key: `bench-warm-load-${copyIndex}`, purpose: 'run' });
    const elapsed = performance.now() - started;
    if (handle.info.type !== 'action') throw new Error('the component did not load as an action');
    return elapsed;
  };
  let sequence = 0;
  const openFresh = async () => {
    sequence += 1;
    const started = performance.now();
    const handle = await sandbox.open(prepared, { key: `bench-cold-${sequence}`, purpose: 'run' });
    const elapsed = performance.now() - started;
    if (handle.info.type !== 'action') throw new Error('the component did not load as an action');
    handle.close();
    return elapsed;
  };
  const bareNode = () => timeSpawn(process.execPath, ['-e', "process.send('ready')"]);
  const methods = {
    sandbox: { what: 'sandbox.open with a fresh key until the handle is loaded', sample: openFresh },
    baseline: {
      what: 'spawn node -e "process.send(\'ready\')" with an IPC channel until its message',
      sample: bareNode,
    },
    ...(await breakdown(sandbox, prepared, cache.dir)),
    warmLoad: {
      what: 'shared placement: sandbox.open of a component the warm worker has not loaded yet (a distinct prepared copy)',
      sample: openNewInWarmWorker,
    },
  };
  const samples = Object.fromEntries(Object.keys(methods).map((key) => [key, []]));

  console.log(`${NAME}: ${WARMUP} warm-up + ${N} timed samples per method (${Object.keys(methods).join(', ')})`);
  for (let i = 0; i < WARMUP + N; i += 1) {
    for (const [key, method] of Object.entries(methods)) {
      const elapsed = await method.sample();
      if (i >= WARMUP) samples[key].push(elapsed);
      await sleep(SETTLE_MS);
    }
  }

  const stats = Object.fromEntries(Object.entries(samples).map(([key, values]) => [key, summarize(values)]));
  const s = stats.sandbox;
  const b = stats.baseline;
  const pass = s.p99Ms <= TARGET_P99_MS;
  const rows = [
    { metric: 'cold start p50', ours: s.p50Ms, baseline: b.p50Ms, ratio: ratioOf(s.p50Ms, b.p50Ms) },
    {
      metric: 'cold start p99',
      ours: s.p99Ms,
      baseline: b.p99Ms,
      ratio: ratioOf(s.p99Ms, b.p99Ms),
      target: `<= ${TARGET_P99_MS} ms`,
      pass,
    },
    { metric: 'cold start mean', ours: s.meanMs, baseline: b.meanMs, ratio: ratioOf(s.meanMs, b.meanMs) },
  ];
  if (stats.isolatedNode)
    rows.push({
      metric: '(diag) isolated trivial node p50',
      ours: stats.isolatedNode.p50Ms,
      baseline: b.p50Ms,
      ratio: ratioOf(stats.isolatedNode.p50Ms, b.p50Ms),
    });
  if (stats.harnessReady)
    rows.push({
      metric: '(diag) worker harness ready p50',
      ours: stats.harnessReady.p50Ms,
      baseline: b.p50Ms,
      ratio: ratioOf(stats.harnessReady.p50Ms, b.p50Ms),
    });
  if (stats.warmLoad)
    rows.push(
      {
        metric: '(diag) new component in a warm shared worker p50',
        ours: stats.warmLoad.p50Ms,
        baseline: b.p50Ms,
        ratio: ratioOf(stats.warmLoad.p50Ms, b.p50Ms),
      },
      { metric: '(diag) new component in a warm shared worker p99', ours: stats.warmLoad.p99Ms },
    );
  printTable(`${NAME} (N=${N}, p99 of ${N} samples is their maximum)`, rows);

  writeResult(NAME, {
    isolation: sandbox.isolation.layers,
    samples: { warmup: WARMUP, perMethod: N, settleMs: SETTLE_MS },
    results: { what: methods.sandbox.what, ...s },
    baseline: { what: methods.baseline.what, ...b },
    diagnostics: Object.fromEntries(
      Object.entries(stats)
        .filter(([key]) => key !== 'sandbox' && key !== 'baseline')
        .map(([key, value]) => [key, { what: methods[key].what, ...value }]),
    ),
    ratio: { p50: ratioOf(s.p50Ms, b.p50Ms), p99: ratioOf(s.p99Ms, b.p99Ms), mean: ratioOf(s.meanMs, b.meanMs) },
    target: { metric: 'p99Ms', maxMs: TARGET_P99_MS },
    pass,
  });
} finally {
  await sandbox?.close();
  await shared?.close();
  cache.remove();
}
