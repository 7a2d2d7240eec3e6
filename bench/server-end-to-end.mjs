// End-to-end events/s of the real server: a spawned `tributary start` (fresh data and cache dirs)
// with one HTTP source (components/http-emit-body.mjs, its run emits the request body). A load
// generator process POSTs 1 KB bodies `{ seq, sentAt, pad }` to the endpoint at a fixed rate (default
// 1,010/s, at most 50 in flight, 2 s warm-up + 10 s measured); a separate SSE client process reads
// GET /sources/<id>/sse and notes when each seq arrives. Latency = SSE receipt − send, both on the
// epoch clock with sub-ms precision (performance.timeOrigin + performance.now() in each process).
// After the load stops, the client keeps reading until every acknowledged seq arrived or nothing
// arrived for a while (bounded by --drain). Lost = acknowledged (2xx) seqs that never arrived and
// are not still queued in the server's SQLite queue.
// Baseline: the same client pipeline against a bare node:http server process that forwards each
// POST body to the connected SSE client in process (baseline-server.mjs).
// Run: node bench/server-end-to-end.mjs [--rate 1010] [--duration 10000] [--warmup 2000]
//      [--concurrency 50] [--drain 60000] [--profile]
import console from 'node:console';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { COMPONENTS_DIR, onInterrupt, printTable, ratioOf, round, sleep, summarize, writeResult } from './lib.mjs';
import { summarizeProfile } from './profile-summary.mjs';
import {
  cpuSnapshot,
  forkHelper,
  gitState,
  logLine,
  openReadOnly,
  runLoad,
  startBaselineServer,
  startTributary,
  BENCH_RATE_LIMIT,
} from './server-lib.mjs';

const NAME = 'server-end-to-end';
const TARGET_EVENTS_PER_SECOND = 1000;
const TARGET_P99_MS = 100;
/** The drain ends early when nothing arrived for this long after the load stopped. */
const QUIET_MS = 10_000;
const { values: args } = parseArgs({
  options: {
    // 1% over the target: delivered events/s of a pipeline that keeps up equals the offered rate,
    // give or take the events crossing the window's edges, so offering exactly 1,000/s would pass
    // or fail on those few.
    rate: { type: 'string', default: '1010' },
    duration: { type: 'string', default: '10000' },
    warmup: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '50' },
    drain: { type: 'string', default: '60000' },
    'diag-rate': { type: 'string', default: '50' },
    profile: { type: 'boolean', default: false },
  },
});
const load = {
  rate: Number(args.rate),
  concurrency: Number(args.concurrency),
  warmupMs: Number(args.warmup),
  durationMs: Number(args.duration),
  drainMs: 10_000,
  bodyBytes: 1024,
  collectSeqs: true,
};
/** A light run before the measured one, on the same server: the pipeline's latency without a backlog. */
const diagLoad = { ...load, rate: Number(args['diag-rate']), warmupMs: 1000, durationMs: 5000 };

/**
 * One run of the pipeline: SSE client connected first, then the load, then the drain. `queuedOf`
 * (optional) counts what the server still holds in its queue, so undelivered events are not
 * mistaken for lost ones.
 */
async function pipeline({ ingestUrl, sseUrl, headers, serverPid, queuedOf, config = load }) {
  const sse = forkHelper('sse-client.mjs');
  try {
    await sse.next('ready');
    sse.send({ type: 'connect', url: sseUrl, headers });
    await sse.next('connected');
    const pids = { server: serverPid, sseClient: sse.pid };
    const cpu = cpuSnapshot(pids);
    let before = null;
    let usage = null;
    const report = await runLoad({ url: ingestUrl, ...config }, (phase, loadgenPid) => {
      if (phase === 'measure') {
        pids.loadgen = loadgenPid;
        before = cpu.take();
      } else if (phase === 'end' && before) usage = cpu.since(before);
    });
    // Drain: wait until every acknowledged seq arrived, or nothing arrived for QUIET_MS, or --drain.
    const acked = report.ackedSeqs.length;
    const loadEnded = Date.now();
    let lastCount = -1;
    let lastProgress = Date.now();
    for (;;) {
      sse.send({ type: 'count' });
      const { received } = await sse.next('count');
      if (received >= acked) break;
      if (received !== lastCount) {
        lastCount = received;
        lastProgress = Date.now();
      }
      if (Date.now() - lastProgress > QUIET_MS || Date.now() - loadEnded > Number(args.drain)) break;
      await sleep(200);
    }
    const stillQueued = queuedOf ? queuedOf() : 0;
    sse.send({ type: 'stop' });
    const events = await sse.next('report');
    return { report: { ...report, url: ingestUrl }, events, usage, drainWaitedMs: Date.now() - loadEnded, stillQueued };
  } finally {
    sse.kill();
  }
}

/** Delivered events/s, latency and loss of one pipeline run. */
function figures({ report, events, usage, drainWaitedMs, stillQueued }) {
  const [from, to] = report.windowEpochMs;
  const { firstSeq, lastSeq } = report.measured;
  const acked = new Set(report.ackedSeqs);
  const received = new Set(events.seqs);
  let deliveredInWindow = 0;
  const latencies = [];
  for (let i = 0; i < events.seqs.length; i += 1) {
    const at = events.receivedAt[i];
    if (at >= from && at < to) deliveredInWindow += 1;
    const seq = events.seqs[i];
    if (seq >= firstSeq && seq <= lastSeq) latencies.push(events.latenciesMs[i]);
  }
  // Measured events that never arrived have an unbounded latency: they count as +Infinity, so a
  // percentile they reach is reported as undefined (null) instead of a figure that hides them.
  const measuredEvents = lastSeq - firstSeq + 1;
  const undeliveredMeasured = measuredEvents - latencies.length;
  const latency = summarize([...latencies, ...Array.from({ length: undeliveredMeasured }, () => Infinity)]);
  for (const key of Object.keys(latency)) if (latency[key] === Infinity) latency[key] = null;
  latency.deliveredOnly = latencies.length > 0 ? summarize(latencies) : null;
  // Whether a backlog grows, holds or shrinks: latency of events sent in the first and in the last
  // second of the window.
  const sentIn = (lo, hi) =>
    events.seqs.flatMap((seq, i) => {
      const sentAt = events.receivedAt[i] - events.latenciesMs[i];
      return seq >= firstSeq && seq <= lastSeq && sentAt >= lo && sentAt < hi ? [events.latenciesMs[i]] : [];
    });
  const firstSecond = sentIn(from, from + 1000);
  const lastSecond = sentIn(to - 1000, to);
  const secondHalf = sentIn((from + to) / 2, to);
  const trend = {
    firstSecondP50Ms: firstSecond.length > 0 ? summarize(firstSecond).p50Ms : null,
    lastSecondP50Ms: lastSecond.length > 0 ? summarize(lastSecond).p50Ms : null,
    /** Delivered events sent in the second half of the window (undelivered ones not included). */
    secondHalfP99Ms: secondHalf.length > 0 ? summarize(secondHalf).p99Ms : null,
  };
  let missing = 0;
  for (const seq of acked) if (!received.has(seq)) missing += 1;
  let unexpected = 0;
  for (const seq of received) if (!acked.has(seq)) unexpected += 1;
  const windowSeconds = (to - from) / 1000;
  const lastReceipt = events.receivedAt.length > 0 ? events.receivedAt[events.receivedAt.length - 1] : null;
  return {
    sentPerSecond: round(report.measured.started / windowSeconds, 1),
    ackedPerSecond: round(report.measured.okPerSecond, 1),
    eventsPerSecond: round(deliveredInWindow / windowSeconds, 1),
    latency,
    trend,
    measuredEvents,
    measuredEventsReceived: latencies.length,
    undeliveredMeasured,
    acked: acked.size,
    received: received.size,
    notDelivered: missing,
    stillQueued,
    lost: Math.max(0, missing - stillQueued),
    duplicates: events.duplicates,
    unexpected,
    nonOk: report.measured.nonOk + report.warmup.started - report.warmup.ok,
    statuses: report.measured.statuses,
    errors: report.measured.errors,
    lateSends: report.lateSends,
    ingestLatency: summarize(report.measured.latenciesMs),
    drainWaitedMs: drainWaitedMs,
    lastReceiptAfterLoadEndMs: lastReceipt !== null ? round(lastReceipt - to, 1) : null,
    cpu: usage,
  };
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

  server = await startTributary({
    name: 'e2e',
    nodeArgs: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
    extraEnv: BENCH_RATE_LIMIT.env,
  });
  logLine(`tributary start ready in ${server.startMs} ms at ${server.baseUrl}; ${BENCH_RATE_LIMIT.note}`);
  const source = await server.deploy(code, { name: 'bench-e2e' });
  logLine(`deployed ${source.id}; endpoint ${source.endpoint_url}`);
  const db = await openReadOnly(server.dbFile);
  const queuedStatement = db.prepare('select count(*) as n from invocations where source_id = ?');
  const target = {
    ingestUrl: source.endpoint_url,
    sseUrl: `${server.baseUrl}/sources/${source.id}/sse`,
    headers: server.auth,
    serverPid: server.pid,
    queuedOf: () => queuedStatement.get(source.id).n,
  };
  const light = diagLoad.rate > 0 ? figures(await pipeline({ ...target, config: diagLoad })) : null;
  if (light) {
    light.serverCpuMsPerEvent = light.cpu
      ? round((light.cpu.serverCpuSeconds * 1000) / Math.max(1, light.eventsPerSecond * light.cpu.windowSeconds), 2)
      : null;
    logLine(
      `light load (${diagLoad.rate}/s): p50 ${light.latency.p50Ms} ms, p99 ${light.latency.p99Ms} ms, ` +
        `server CPU ${light.serverCpuMsPerEvent} ms per event`,
    );
  }
  const oursRun = await pipeline(target);
  db.close();
  const o = figures(oursRun);
  logLine(
    `ours: ${o.eventsPerSecond} events/s, p99 ${o.latency.p99Ms} ms, lost ${o.lost}, still queued ${o.stillQueued}`,
  );
  await server.stop();
  server = null;

  let profile = null;
  if (profileDir) {
    const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
    if (file) profile = summarizeProfile(path.join(profileDir, file), 25);
    rmSync(profileDir, { recursive: true, force: true });
  }

  baseline = await startBaselineServer();
  const baseRun = await pipeline({
    ingestUrl: `${baseline.baseUrl}/e/baseline`,
    sseUrl: `${baseline.baseUrl}/sources/baseline/sse`,
    headers: {},
    serverPid: baseline.pid,
  });
  const b = figures(baseRun);
  logLine(`baseline: ${b.eventsPerSecond} events/s, p99 ${b.latency.p99Ms} ms, lost ${b.lost}`);
  await baseline.stop();
  baseline = null;

  const passRate = o.eventsPerSecond >= TARGET_EVENTS_PER_SECOND;
  const passP99 = o.latency.p99Ms !== null && o.latency.p99Ms <= TARGET_P99_MS;
  const passLoss = o.lost === 0 && o.notDelivered === 0;
  const pass = passRate && passP99 && passLoss;
  printTable(
    `${NAME} (${load.rate}/s offered, at most ${load.concurrency} in flight, ${load.durationMs / 1000} s measured; ${BENCH_RATE_LIMIT.note})`,
    [
      {
        metric: 'events/s delivered over SSE',
        unit: '/s',
        ours: o.eventsPerSecond,
        baseline: b.eventsPerSecond,
        ratio: ratioOf(o.eventsPerSecond, b.eventsPerSecond),
        target: `>= ${TARGET_EVENTS_PER_SECOND}/s`,
        pass: passRate,
      },
      {
        metric: 'send → SSE p50',
        ours: o.latency.p50Ms ?? 'not delivered',
        baseline: b.latency.p50Ms,
        ratio: ratioOf(o.latency.p50Ms, b.latency.p50Ms),
      },
      {
        metric: 'send → SSE p99',
        ours: o.latency.p99Ms ?? 'not delivered',
        baseline: b.latency.p99Ms,
        ratio: ratioOf(o.latency.p99Ms, b.latency.p99Ms),
        target: `<= ${TARGET_P99_MS} ms`,
        pass: passP99,
      },
      {
        metric: 'send → SSE max',
        ours: o.latency.maxMs ?? 'not delivered',
        baseline: b.latency.maxMs,
        ratio: ratioOf(o.latency.maxMs, b.latency.maxMs),
      },
      {
        metric: 'events lost',
        unit: 'count',
        ours: o.lost,
        baseline: b.lost,
        target: '0 (and all delivered)',
        pass: passLoss,
      },
      { metric: 'acked but not delivered by drain end', unit: 'count', ours: o.notDelivered, baseline: b.notDelivered },
      { metric: '(diag) … of which still queued', unit: 'count', ours: o.stillQueued },
      {
        metric: '(diag) send → SSE p50, first second sent',
        ours: o.trend.firstSecondP50Ms ?? 'not delivered',
        baseline: b.trend.firstSecondP50Ms,
      },
      {
        metric: '(diag) send → SSE p50, last second sent',
        ours: o.trend.lastSecondP50Ms ?? 'not delivered',
        baseline: b.trend.lastSecondP50Ms,
      },
      {
        metric: '(diag) send → SSE p99, second half sent',
        ours: o.trend.secondHalfP99Ms ?? 'not delivered',
        baseline: b.trend.secondHalfP99Ms,
      },
      { metric: '(diag) offered (sent) req/s', unit: '/s', ours: o.sentPerSecond, baseline: b.sentPerSecond },
      {
        metric: '(diag) ingest 2xx p99',
        ours: o.ingestLatency.p99Ms,
        baseline: b.ingestLatency.p99Ms,
        ratio: ratioOf(o.ingestLatency.p99Ms, b.ingestLatency.p99Ms),
      },
      { metric: '(diag) non-2xx + errors', unit: 'count', ours: o.nonOk, baseline: b.nonOk },
      { metric: '(diag) duplicates over SSE', unit: 'count', ours: o.duplicates, baseline: b.duplicates },
      {
        metric: '(diag) server CPU % in window',
        unit: 'count',
        ours: o.cpu?.serverCpuPercent,
        baseline: b.cpu?.serverCpuPercent,
      },
      ...(light
        ? [
            { metric: `(diag) light load ${diagLoad.rate}/s: events/s`, unit: '/s', ours: light.eventsPerSecond },
            {
              metric: `(diag) light load ${diagLoad.rate}/s: send → SSE p50`,
              ours: light.latency.p50Ms ?? 'not delivered',
            },
            {
              metric: `(diag) light load ${diagLoad.rate}/s: send → SSE p99`,
              ours: light.latency.p99Ms ?? 'not delivered',
            },
            { metric: `(diag) light load: server CPU ms per event`, unit: 'count', ours: light.serverCpuMsPerEvent },
          ]
        : []),
      { metric: '(diag) sandbox workers CPU %', unit: 'count', ours: o.cpu?.serverChildrenCpuPercent ?? 0 },
    ],
  );
  if (profile) {
    console.log('server CPU profile, top self time:');
    for (const entry of profile.top.slice(0, 15))
      console.log(`  ${entry.selfPercent.toFixed(1).padStart(5)} %  ${entry.fn}  ${entry.where}`);
  }
  writeResult(NAME, {
    server: { endpointRateLimit: BENCH_RATE_LIMIT.note },
    git,
    load: { ...load, collectSeqs: undefined, mode: 'fixed rate', drainLimitMs: Number(args.drain), quietMs: QUIET_MS },
    results: {
      what: 'POST {seq, sentAt} to an HTTP source of a spawned `tributary start` whose run emits the body; SSE client on /sources/<id>/sse',
      eventsPerSecond: o.eventsPerSecond,
      ...o.latency,
      ...o,
      latency: undefined,
    },
    baseline: {
      what: 'the same client pipeline against a bare node:http server forwarding each POST body to the SSE client in process',
      eventsPerSecond: b.eventsPerSecond,
      ...b.latency,
      ...b,
      latency: undefined,
    },
    diagnostics: {
      ...(light ? { lightLoad: { load: { ...diagLoad, collectSeqs: undefined }, ...light } } : {}),
      ...(profile ? { serverProfile: profile } : {}),
    },
    ratio: {
      eventsPerSecond: ratioOf(o.eventsPerSecond, b.eventsPerSecond),
      p50: ratioOf(o.latency.p50Ms, b.latency.p50Ms),
      p99: ratioOf(o.latency.p99Ms, b.latency.p99Ms),
    },
    target: { minEventsPerSecond: TARGET_EVENTS_PER_SECOND, maxP99Ms: TARGET_P99_MS, lost: 0 },
    passes: { eventsPerSecond: passRate, p99: passP99, lost: passLoss },
    pass,
  });
} finally {
  await server?.stop();
  await baseline?.stop();
  if (profileDir) rmSync(profileDir, { recursive: true, force: true });
}
