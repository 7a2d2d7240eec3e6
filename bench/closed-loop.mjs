// The closed-loop load of the workflow benchmarks (workflows-vs-node-red.mjs, workflow-floor.mjs):
// `concurrency` requests always in flight, ~1 KB JSON bodies, a warm-up, then a measured window,
// optionally with a counter read at the window's edges (runs finished). The load generator is
// autocannon (autocannon-load.mjs), as issue 10 specifies, or `node-http` (loadgen.mjs, the other
// server benchmarks' generator, about four times its CPU per request).
import { round, summarize } from './lib.mjs';
import { logLine, runLoad } from './server-lib.mjs';

export const LOAD_GENERATORS = ['autocannon', 'node-http'];

/** The load of one case, from the scripts' string options. */
export function closedLoop({ concurrency, warmup, duration, 'load-generator': generator = 'autocannon' }) {
  if (!LOAD_GENERATORS.includes(generator))
    throw new Error(`--load-generator must be one of ${LOAD_GENERATORS.join(', ')}, got ${generator}`);
  return {
    generator,
    rate: 0,
    concurrency: Number(concurrency),
    warmupMs: Number(warmup),
    durationMs: Number(duration),
    drainMs: 10_000,
    bodyBytes: 1024,
  };
}

/**
 * One closed-loop load against `url`; `counter` (optional, sync or async) is read when the measured
 * window opens and closes, and its difference per second is `completedPerSecond`.
 */
export async function measureClosedLoop(label, url, load, counter) {
  const edges = [];
  const report = await runLoad({ url, ...load }, (phase) => {
    if (counter && (phase === 'measure' || phase === 'end')) edges.push(counter());
  });
  const latency = summarize(report.measured.latenciesMs);
  const windowSeconds = report.windowMs / 1000;
  const [atOpen, atClose] = await Promise.all(edges);
  const figures = {
    reqPerSecond: round(report.measured.okPerSecond, 1),
    p50Ms: latency.p50Ms,
    p99Ms: latency.p99Ms,
    maxMs: latency.maxMs,
    ok: report.measured.ok,
    nonOk: report.measured.nonOk,
    statuses: report.measured.statuses,
    errors: report.measured.errors,
    completedPerSecond: counter && atClose !== undefined ? round((atClose - atOpen) / windowSeconds, 1) : undefined,
    completedAtWindowEnd: atClose,
    totalSent: report.totalSent,
    /** 2xx answers in the warm-up and the window: each is owed a run in the asynchronous case. */
    acknowledged: report.measured.ok + report.warmup.ok,
  };
  logLine(
    `${label}: ${figures.reqPerSecond} req/s, p99 ${figures.p99Ms} ms, non-2xx ${figures.nonOk}` +
      (figures.completedPerSecond !== undefined ? `, ${figures.completedPerSecond} completed/s` : ''),
  );
  return figures;
}
