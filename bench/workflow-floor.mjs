// How far issue 10's rate targets are from what its rules allow on this machine: the same load
// (closed-loop.mjs: autocannon, closed loop, 50 in flight, 1 KB JSON) against, in the same run,
// - the floor design (workflow-floor-server.mjs): the least work per run that keeps the rules
//   (every run and every step's result stored, each step in a worker process), with no sandbox,
//   props, expressions, logs or validation;
// - Tributary's benchmark workflows (workflow-specs.mjs), as in workflows-vs-node-red.mjs;
// - Node-RED's equivalent flows (node-red-lib.mjs), the target's baseline.
// Cases: synchronous (the second step answers) and answering at once (runs finished per second in
// the window, read at its edges; the run's backlog is drained before the next load).
// Run: node bench/workflow-floor.mjs [--duration 10000] [--warmup 2000] [--concurrency 50]
//      [--load-generator autocannon|node-http] [--workers 2] [--gather 32] [--node-red-dir DIR] [--no-tributary]
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { parseArgs } from 'node:util';
import { closedLoop, measureClosedLoop } from './closed-loop.mjs';
import { BENCH_DIR, onInterrupt, printTable, ratioOf, round, sleep, writeResult } from './lib.mjs';
import { DEFAULT_NODE_RED_DIR, installNodeRed, startNodeRed } from './node-red-lib.mjs';
import { BENCH_RATE_LIMIT, freePort, gitState, logLine, openReadOnly, request, startTributary } from './server-lib.mjs';
import { benchWorkflow, deployBenchWorkflow } from './workflow-specs.mjs';

const NAME = 'workflow-floor';
const DRAIN_LIMIT_MS = 120_000;
const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10000' },
    warmup: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '50' },
    'load-generator': { type: 'string', default: 'autocannon' },
    workers: { type: 'string', default: '2' },
    gather: { type: 'string', default: '32' },
    'node-red-dir': { type: 'string', default: DEFAULT_NODE_RED_DIR },
    'no-tributary': { type: 'boolean', default: false },
  },
});
const load = closedLoop(args);

async function startFloor() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tributary-bench-floor-'));
  const port = await freePort();
  const child = fork(
    path.join(BENCH_DIR, 'workflow-floor-server.mjs'),
    [String(port), path.join(dir, 'floor.db'), args.workers, args.gather],
    { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } },
  );
  await new Promise((resolve, reject) => {
    child.once('message', (message) =>
      message?.type === 'listening' ? resolve() : reject(new Error(String(message))),
    );
    child.once('exit', (code) => reject(new Error(`the floor server exited (${code})`)));
  });
  const exit = new Promise((resolve) => child.once('exit', resolve));
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    baseUrl,
    async completed() {
      return (await request(baseUrl, 'GET', '/count')).body.completed;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exit;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const measure = (label, url, counter) => measureClosedLoop(label, url, load, counter);

/** Waits until `finished()` reaches `owed` (every acknowledged run), up to DRAIN_LIMIT_MS. */
async function drain(finished, owed) {
  const started = Date.now();
  while (Date.now() - started < DRAIN_LIMIT_MS && (await finished()) < owed) await sleep(250);
  return { drainMs: Date.now() - started, finished: await finished() };
}

let floor = null;
let nodeRed = null;
let tributary = null;
let db = null;
onInterrupt(async () => {
  db?.close();
  await floor?.stop();
  await nodeRed?.stop();
  await tributary?.stop();
});

try {
  const git = gitState();
  const loadAverageAtStart = round(os.loadavg()[0], 2);
  const install = installNodeRed(args['node-red-dir']);
  logLine(`Node-RED ${install.version} in ${install.dir}`);
  floor = await startFloor();
  nodeRed = await startNodeRed(install.dir);
  let flows = null;
  if (!args['no-tributary']) {
    tributary = await startTributary({ name: 'floor', extraEnv: BENCH_RATE_LIMIT.env });
    flows = {
      sync: await deployBenchWorkflow(tributary, benchWorkflow('bench-sync', true)),
      async: await deployBenchWorkflow(tributary, benchWorkflow('bench-async', false)),
    };
    db = await openReadOnly(tributary.dbFile);
  }
  const finishedRuns = db?.prepare(
    `select count(*) + (select runs_dropped from workflows where id = ?) as n
       from workflow_runs where workflow_id = ? and finished_at is not null`,
  );
  const tributaryFinished = async () => finishedRuns.get(flows.async.id, flows.async.id).n;

  const sync = {
    floor: await measure('sync: floor', `${floor.baseUrl}/sync`),
    tributary: flows ? await measure('sync: tributary', flows.sync.endpoint_url) : null,
    nodeRed: await measure('sync: Node-RED', `${nodeRed.baseUrl}/sync`),
  };
  const async = { floor: await measure('async: floor', `${floor.baseUrl}/async`, () => floor.completed()) };
  // Each backlog is drained before the next load, so no case works for the one before it.
  const floorDrained = await drain(() => floor.completed(), async.floor.acknowledged);
  async.floor.drainMs = floorDrained.drainMs;
  if (flows) {
    async.tributary = await measure('async: tributary', flows.async.endpoint_url, tributaryFinished);
    async.tributary.drainMs = (await drain(tributaryFinished, async.tributary.acknowledged)).drainMs;
  }
  async.nodeRed = await measure('async: Node-RED', `${nodeRed.baseUrl}/async`, () => nodeRed.completed());
  const loadAverageAtEnd = round(os.loadavg()[0], 2);

  const rows = [];
  for (const [who, label] of [
    ['floor', 'floor design'],
    ['tributary', 'Tributary'],
  ]) {
    if (!sync[who]) continue;
    rows.push(
      {
        metric: `synchronous, ${label}: 2xx req/s (baseline: Node-RED)`,
        unit: '/s',
        ours: sync[who].reqPerSecond,
        baseline: sync.nodeRed.reqPerSecond,
        ratio: ratioOf(sync[who].reqPerSecond, sync.nodeRed.reqPerSecond),
        target: '>= 0.5x (issue 10)',
      },
      {
        metric: `synchronous, ${label}: p99 ms (baseline: Node-RED)`,
        ours: sync[who].p99Ms,
        baseline: sync.nodeRed.p99Ms,
        target: '<= 50 ms',
      },
      {
        metric: `answering at once, ${label}: runs finished/s (baseline: Node-RED)`,
        unit: '/s',
        ours: async[who].completedPerSecond,
        baseline: async.nodeRed.completedPerSecond,
        ratio: ratioOf(async[who].completedPerSecond, async.nodeRed.completedPerSecond),
        target: '>= 1x (issue 10)',
      },
      {
        metric: `(diag) answering at once, ${label}: 2xx req/s; backlog drained in ms`,
        unit: 'count',
        ours: `${async[who].reqPerSecond}; ${async[who].drainMs}`,
        baseline: `${async.nodeRed.reqPerSecond}`,
      },
    );
  }
  rows.push({
    metric: '(diag) 1-minute load average at start / end',
    unit: 'count',
    ours: `${loadAverageAtStart} / ${loadAverageAtEnd}`,
  });
  printTable(
    `${NAME} (closed loop, ${load.concurrency} in flight, 1 KB JSON, ${load.durationMs / 1000} s per case; floor: ${args.workers} workers, up to ${args.gather} calls per message; Node-RED ${install.version})`,
    rows,
  );
  writeResult(NAME, {
    git,
    load,
    floor: { workers: Number(args.workers), gather: Number(args.gather) },
    nodeRed: install.version,
    loadAverage: { start: loadAverageAtStart, end: loadAverageAtEnd },
    sync,
    async,
    rows,
  });
} finally {
  db?.close();
  await floor?.stop();
  await nodeRed?.stop();
  await tributary?.stop();
}
