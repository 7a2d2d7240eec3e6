// CPU time per request and per workflow run, A/B: two builds of Tributary (this checkout and
// `--a DIR`, another checkout's build) started side by side and loaded in turns, so both see the
// same machine at the same time. CPU seconds (from /proc) do not depend on how busy the machine is
// the way req/s do, which makes this the figure to compare on a shared machine.
// Cases (the workflows of workflows-vs-node-red.mjs, 1 KB JSON bodies):
// - respond: a source with customResponse (components/http-respond-picked.mjs);
// - sync: the three-step workflow answering with $.respond;
// - async: the same workflow with the trigger answering at once, counted until every run finished.
// Per case and build: the server's main thread and its sandbox workers, in ms of CPU per request.
// Writes results/workflow-cpu.json.
// Run: node bench/workflow-cpu.mjs [--a /work/main] [--requests 1000] [--concurrency 16]
//      [--rounds 3] [--cases respond,sync,async] [--cpu-prof DIR]   (without --a: this build only)
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Buffer } from 'node:buffer';
import console from 'node:console';
import { parseArgs } from 'node:util';
import { onInterrupt, round, sleep, writeResult } from './lib.mjs';
import {
  BENCH_RATE_LIMIT,
  REPO_DIR,
  logLine,
  openReadOnly,
  processCpuSeconds,
  startTributary,
  workerTracker,
} from './server-lib.mjs';
import { benchWorkflow, deployBenchWorkflow, readComponent } from './workflow-specs.mjs';

const { values: args } = parseArgs({
  options: {
    a: { type: 'string' },
    requests: { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '16' },
    rounds: { type: 'string', default: '3' },
    cases: { type: 'string', default: 'respond,sync,async' },
    'cpu-prof': { type: 'string' },
  },
});
const requests = Number(args.requests);
const concurrency = Number(args.concurrency);
const cases = args.cases.split(',');

/** Closed loop: `count` POSTs of ~1 KB JSON, `concurrency` in flight; resolves with the non-2xx count. */
async function send(url, count) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const pad = 'x'.repeat(960);
  let next = 0;
  let failed = 0;
  const one = (seq) =>
    new Promise((resolve) => {
      const body = Buffer.from(JSON.stringify({ seq, sentAt: Date.now() + 0.5, pad }));
      const request = http.request(
        url,
        { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': body.length } },
        (response) => {
          if (response.statusCode < 200 || response.statusCode > 299) failed += 1;
          response.resume();
          response.on('end', resolve);
        },
      );
      request.on('error', () => {
        failed += 1;
        resolve();
      });
      request.end(body);
    });
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await one((next += 1));
    }),
  );
  agent.destroy();
  return failed;
}

async function startBuild(label, repoDir) {
  const profDir = args['cpu-prof'] ? path.resolve(args['cpu-prof'], label) : null;
  const server = await startTributary({
    name: `cpu-${label}`,
    repoDir,
    extraEnv: BENCH_RATE_LIMIT.env,
    nodeArgs: profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [],
  });
  // Stopped on the way out even if the set-up below fails (a refused deploy).
  servers.push(server);
  const source = await server.deploy(readComponent('http-respond-picked.mjs'), { name: 'bench-respond' });
  const sync = await deployBenchWorkflow(server, benchWorkflow('bench-sync', true));
  const asyncFlow = await deployBenchWorkflow(server, benchWorkflow('bench-async', false));
  const db = await openReadOnly(server.dbFile);
  const finished = db.prepare(
    `select count(*) + (select runs_dropped from workflows where id = ?) as n
       from workflow_runs where workflow_id = ? and finished_at is not null`,
  );
  const queued = db.prepare(
    `select count(*) + (select runs_dropped from workflows where id = ?) as n from workflow_runs where workflow_id = ?`,
  );
  return {
    label,
    server,
    db,
    urls: { respond: source.endpoint_url, sync: sync.endpoint_url, async: asyncFlow.endpoint_url },
    finishedAsync: () => finished.get(asyncFlow.id, asyncFlow.id).n,
    queuedAsync: () => queued.get(asyncFlow.id, asyncFlow.id).n,
  };
}

/** Waits until the asynchronous workflow has finished `count` runs in all (by default, every one queued). */
async function drain(build, count = null) {
  const deadline = Date.now() + 120_000;
  const target = count ?? build.queuedAsync();
  while (build.finishedAsync() < target && Date.now() < deadline) await sleep(50);
}

/**
 * One case against one build: CPU ms per request of the server's main process and of its sandbox
 * workers (followed by polling, since workers come and go: a lower bound).
 */
async function measureCase(build, key) {
  const pid = build.server.pid;
  const before = build.finishedAsync();
  const workers = workerTracker(pid, 100);
  const mainAtStart = processCpuSeconds(pid);
  const startedAt = Date.now();
  const failed = await send(build.urls[key], requests);
  if (key === 'async') await drain(build, before + requests - failed);
  // Let the last replies' bookkeeping (commits, trims) finish inside the window.
  await sleep(200);
  const mainSeconds = processCpuSeconds(pid) - mainAtStart;
  const workerSeconds = workers.cpuSeconds();
  workers.stop();
  const ok = requests - failed;
  return {
    mainMsPerRequest: round((mainSeconds * 1000) / ok, 3),
    workersMsPerRequest: round((workerSeconds * 1000) / ok, 3),
    workersStarted: workers.started,
    failed,
    seconds: round((Date.now() - startedAt) / 1000, 2),
  };
}

const builds = [];
/** Every server started, from the moment it answers, whether or not its build's set-up finished. */
const servers = [];
async function stopAll() {
  for (const build of builds) build.db.close();
  for (const server of servers) await server.stop();
}
onInterrupt(stopAll);
try {
  if (args.a) builds.push(await startBuild('a', path.resolve(args.a)));
  builds.push(await startBuild('b', REPO_DIR));
  logLine(`builds: ${builds.map((build) => `${build.label} ${build.server.baseUrl}`).join(', ')}`);
  const samples = {};
  for (let roundIndex = 0; roundIndex < Number(args.rounds); roundIndex += 1) {
    for (const key of cases) {
      // Alternate which build goes first, so neither always follows the other's backlog.
      const order = roundIndex % 2 === 0 ? builds : [...builds].reverse();
      for (const build of order) {
        // Warm-up: JIT, and the case's workers started (another case's group may have taken them).
        await send(build.urls[key], Math.min(300, requests));
        if (key === 'async') await drain(build);
        const figures = await measureCase(build, key);
        (samples[`${key}:${build.label}`] ??= []).push(figures);
        logLine(
          `${key} ${build.label}: main ${figures.mainMsPerRequest} ms, workers ${figures.workersMsPerRequest} ms per request (${figures.seconds} s, ${figures.workersStarted} workers started, ${figures.failed} failed)`,
        );
      }
    }
  }
  const median = (values) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];
  const table = Object.entries(samples).map(([name, list]) => ({
    case: name,
    mainMs: median(list.map((item) => item.mainMsPerRequest)),
    workersMs: median(list.map((item) => item.workersMsPerRequest)),
  }));
  console.table(table);
  writeResult('workflow-cpu', {
    builds: builds.map((build) => ({
      label: build.label,
      repoDir: build.label === 'b' ? REPO_DIR : path.resolve(args.a),
    })),
    load: { requests, concurrency, rounds: Number(args.rounds), bodyBytes: 1024, mode: 'closed loop' },
    loadAverageAtEnd: round(os.loadavg()[0], 2),
    what: 'CPU ms per request (async: per finished run) of the server main process and of its sandbox workers; medians over the rounds',
    medians: table,
    samples,
  });
} finally {
  await stopAll();
}
