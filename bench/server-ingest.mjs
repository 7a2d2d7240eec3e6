// Webhook ingest of the real server: a spawned `tributary start` (fresh data and cache dirs) with one
// HTTP source deployed (components/http-emit-body.mjs: no customResponse, its run emits the body).
// A load generator process POSTs 1 KB JSON bodies to the source's endpoint, closed loop with 50
// requests in flight over keep-alive sockets: 2 s warm-up, then 10 s measured. The endpoint answers
// 200 once the request is durably queued in SQLite; the runner works the queue off at the same time
// in the same process, as it would in production.
// Baseline: the same load against a bare node:http server process that answers 200 (baseline-server.mjs).
// Run: node bench/server-ingest.mjs [--duration 10000] [--warmup 2000] [--concurrency 50] [--drain 20000]
//      [--profile]   (adds a CPU profile of the server to the results' diagnostics)
import console from 'node:console';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { COMPONENTS_DIR, onInterrupt, printTable, ratioOf, round, sleep, summarize, writeResult } from './lib.mjs';
import {
  cpuSnapshot,
  gitState,
  logLine,
  openReadOnly,
  runLoad,
  startBaselineServer,
  startTributary,
  BENCH_RATE_LIMIT,
} from './server-lib.mjs';
import { summarizeProfile } from './profile-summary.mjs';

const NAME = 'server-ingest';
const TARGET_RPS = 5000;
const TARGET_P99_MS = 50;
const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10000' },
    warmup: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '50' },
    drain: { type: 'string', default: '20000' },
    profile: { type: 'boolean', default: false },
  },
});
const load = {
  concurrency: Number(args.concurrency),
  warmupMs: Number(args.warmup),
  durationMs: Number(args.duration),
  drainMs: 10_000,
  rate: 0,
  bodyBytes: 1024,
};

/** Load figures of one run: req/s and latency of 2xx answers in the window, and what was not 2xx. */
function figures(report) {
  const latency = summarize(report.measured.latenciesMs);
  return {
    requestsPerSecond: round(report.measured.okPerSecond, 1),
    latency,
    started: report.measured.started,
    ok: report.measured.ok,
    nonOk: report.measured.nonOk,
    statuses: report.measured.statuses,
    errors: report.measured.errors,
    warmup: report.warmup,
    totalSent: report.totalSent,
    windowMs: round(report.windowMs, 1),
  };
}

/** Runs the load, taking CPU snapshots of `pids` when the measured window opens and closes. */
async function measure(url, pids) {
  const cpu = cpuSnapshot(pids);
  let before = null;
  let usage = null;
  const report = await runLoad({ url, ...load }, (phase, loadgenPid) => {
    if (phase === 'measure') {
      pids.loadgen = loadgenPid;
      before = cpu.take();
    } else if (phase === 'end' && before) usage = cpu.since(before);
  });
  return { report, usage };
}

let server = null;
let baseline = null;
const profileDir = args.profile ? mkdtempSync(path.join(os.tmpdir(), 'tributary-bench-profile-')) : null;
onInterrupt(async () => {
  await server?.stop();
  await baseline?.stop();
  if (profileDir) rmSync(profileDir, { recursive: true, force: true });
});

try {
  const git = gitState();
  const code = readFileSync(path.join(COMPONENTS_DIR, 'http-emit-body.mjs'), 'utf8');

  // Ours: the real server.
  server = await startTributary({
    name: 'ingest',
    nodeArgs: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
    extraEnv: BENCH_RATE_LIMIT.env,
  });
  logLine(`tributary start ready in ${server.startMs} ms at ${server.baseUrl}; ${BENCH_RATE_LIMIT.note}`);
  const source = await server.deploy(code, { name: 'bench-ingest' });
  const endpoint = source.endpoint_url;
  logLine(`deployed ${source.id}; endpoint ${endpoint}`);
  const ours = await measure(endpoint, { server: server.pid });
  const oursFigures = figures(ours.report);
  logLine(`ours: ${oursFigures.requestsPerSecond} req/s, p99 ${oursFigures.latency.p99Ms} ms`);

  // What the runner did meanwhile: invocations still queued (or running) when the load stopped,
  // then how fast the backlog drains (the events have to reach the event bin eventually).
  const db = await openReadOnly(server.dbFile);
  const queued = () => db.prepare('select count(*) as n from invocations').get().n;
  const acked = ours.report.warmup.ok + ours.report.measured.ok;
  const queuedAtEnd = queued();
  const drainStarted = Date.now();
  let queuedNow = queuedAtEnd;
  while (queuedNow > 0 && Date.now() - drainStarted < Number(args.drain)) {
    await sleep(500);
    queuedNow = queued();
  }
  const drainSeconds = (Date.now() - drainStarted) / 1000;
  const drained = queuedAtEnd - queuedNow;
  db.close();
  const processing = {
    acceptedTotal: acked,
    queuedWhenLoadStopped: queuedAtEnd,
    processedDuringLoad: acked - queuedAtEnd,
    processedPerSecondDuringLoad: round((acked - queuedAtEnd) / ((load.warmupMs + load.durationMs) / 1000), 1),
    drainSeconds: round(drainSeconds, 1),
    drainedAfterLoad: drained,
    drainPerSecond: drainSeconds > 0 ? round(drained / drainSeconds, 1) : null,
    stillQueuedAfterDrainLimit: queuedNow,
  };
  logLine(
    `runner: ${processing.processedDuringLoad} of ${acked} processed during the load, ` +
      `${queuedAtEnd} queued at the end, drained ${drained} in ${processing.drainSeconds} s`,
  );
  await server.stop();
  server = null;

  let profile = null;
  if (profileDir) {
    const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
    if (file) profile = summarizeProfile(path.join(profileDir, file), 25);
    rmSync(profileDir, { recursive: true, force: true });
  }

  // Baseline: a bare node:http server process.
  baseline = await startBaselineServer();
  const base = await measure(`${baseline.baseUrl}/e/baseline`, { server: baseline.pid });
  const baseFigures = figures(base.report);
  logLine(`baseline: ${baseFigures.requestsPerSecond} req/s, p99 ${baseFigures.latency.p99Ms} ms`);
  await baseline.stop();
  baseline = null;

  const passRps = oursFigures.requestsPerSecond >= TARGET_RPS;
  const passP99 = oursFigures.latency.p99Ms <= TARGET_P99_MS;
  const pass = passRps && passP99;
  const o = oursFigures;
  const b = baseFigures;
  printTable(
    `${NAME} (closed loop, ${load.concurrency} in flight, ${load.durationMs / 1000} s measured; ${BENCH_RATE_LIMIT.note})`,
    [
      {
        metric: '2xx req/s',
        unit: '/s',
        ours: o.requestsPerSecond,
        baseline: b.requestsPerSecond,
        ratio: ratioOf(o.requestsPerSecond, b.requestsPerSecond),
        target: `>= ${TARGET_RPS}/s`,
        pass: passRps,
      },
      {
        metric: 'latency p50',
        ours: o.latency.p50Ms,
        baseline: b.latency.p50Ms,
        ratio: ratioOf(o.latency.p50Ms, b.latency.p50Ms),
      },
      {
        metric: 'latency p99',
        ours: o.latency.p99Ms,
        baseline: b.latency.p99Ms,
        ratio: ratioOf(o.latency.p99Ms, b.latency.p99Ms),
        target: `<= ${TARGET_P99_MS} ms`,
        pass: passP99,
      },
      {
        metric: 'latency max',
        ours: o.latency.maxMs,
        baseline: b.latency.maxMs,
        ratio: ratioOf(o.latency.maxMs, b.latency.maxMs),
      },
      { metric: 'non-2xx answers + errors', unit: 'count', ours: o.nonOk, baseline: b.nonOk },
      {
        metric: '(diag) server CPU % in window',
        unit: 'count',
        ours: ours.usage?.serverCpuPercent,
        baseline: base.usage?.serverCpuPercent,
      },
      { metric: '(diag) sandbox workers CPU %', unit: 'count', ours: ours.usage?.serverChildrenCpuPercent ?? 0 },
      {
        metric: '(diag) load generator CPU %',
        unit: 'count',
        ours: ours.usage?.loadgenCpuPercent,
        baseline: base.usage?.loadgenCpuPercent,
      },
      { metric: '(diag) runner: processed/s during load', unit: '/s', ours: processing.processedPerSecondDuringLoad },
      { metric: '(diag) runner: queued when load stopped', unit: 'count', ours: processing.queuedWhenLoadStopped },
      { metric: '(diag) runner: drain rate after load', unit: '/s', ours: processing.drainPerSecond ?? undefined },
    ],
  );
  if (profile) {
    console.log('server CPU profile, top self time:');
    for (const entry of profile.top.slice(0, 15))
      console.log(`  ${entry.selfPercent.toFixed(1).padStart(5)} %  ${entry.fn}  ${entry.where}`);
  }
  const withoutSamples = ({ latenciesMs, ...rest }) => ({ ...rest, samples: latenciesMs.length });
  const oursLoad = withoutSamples(ours.report.measured);
  const baseLoad = withoutSamples(base.report.measured);
  writeResult(NAME, {
    server: { endpointRateLimit: BENCH_RATE_LIMIT.note },
    git,
    load: { ...load, bodyBytes: ours.report.config.bodyBytes, mode: 'closed loop' },
    results: {
      what: 'POST 1 KB JSON to a deployed HTTP source endpoint of a spawned `tributary start` (200 once durably queued)',
      requestsPerSecond: o.requestsPerSecond,
      ...o.latency,
      nonOk: o.nonOk,
      statuses: o.statuses,
      errors: o.errors,
      warmup: o.warmup,
      measured: oursLoad,
      cpu: ours.usage,
    },
    baseline: {
      what: 'the same load against a bare node:http server process answering 200',
      requestsPerSecond: b.requestsPerSecond,
      ...b.latency,
      nonOk: b.nonOk,
      statuses: b.statuses,
      errors: b.errors,
      measured: baseLoad,
      cpu: base.usage,
    },
    diagnostics: { runner: processing, ...(profile ? { serverProfile: profile } : {}) },
    ratio: {
      requestsPerSecond: ratioOf(o.requestsPerSecond, b.requestsPerSecond),
      p50: ratioOf(o.latency.p50Ms, b.latency.p50Ms),
      p99: ratioOf(o.latency.p99Ms, b.latency.p99Ms),
    },
    target: { minRequestsPerSecond: TARGET_RPS, maxP99Ms: TARGET_P99_MS },
    passes: { requestsPerSecond: passRps, p99: passP99 },
    pass,
  });
} finally {
  await server?.stop();
  await baseline?.stop();
  if (profileDir) rmSync(profileDir, { recursive: true, force: true });
}
