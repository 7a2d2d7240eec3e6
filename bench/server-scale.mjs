// PostgreSQL + Redis with 1 and then 2 worker processes, in one run: an `api` process takes the
// load, `worker` processes run it (`tributary start --role`, docs/deployment.md#roles). Four HTTP
// sources (components/http-emit-body.mjs), one load generator (loadgen.mjs, as server-ingest uses)
// per source, closed loop, 1 KB bodies: 2 s warm-up, 10 s measured.
// - ingest: 2xx req/s summed over the four generators, latency p50/p99 over all their requests;
// - end to end: events committed per second, from the start of the measured window until every
//   acknowledged request is committed (PostgreSQL's queue is empty), and the time that took after
//   the load stopped.
// The figure for 2 workers over the one for 1 is the ratio. Both topologies run the same load on a
// fresh database and Redis prefix. Results: bench/results/server-scale.json.
// Run: node bench/server-scale.mjs [--duration 10000] [--concurrency 12]
import console from 'node:console';
import { mkdtempSync, readFileSync, rmSync, chmodSync, mkdirSync, copyFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { setTimeout as delay } from 'node:timers/promises';
import { URL } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { call, Node, sharedBackends } from './cluster-lib.mjs';
import { COMPONENTS_DIR, printTable, ratioOf, round, summarize, writeResult } from './lib.mjs';
import { BENCH_RATE_LIMIT, freePort, gitState, logLine, runLoad } from './server-lib.mjs';

const NAME = 'server-scale';
const SOURCES = 4;
const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10000' },
    warmup: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '12' },
  },
});
const load = {
  rate: 0,
  concurrency: Number(args.concurrency),
  warmupMs: Number(args.warmup),
  durationMs: Number(args.duration),
  drainMs: 10_000,
  bodyBytes: 1024,
};

async function topology(workers) {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'tributary-bench-scale-'));
  chmodSync(scratch, 0o755);
  const shared = await sharedBackends('scale');
  const env = { ...shared.env, ...BENCH_RATE_LIMIT.env, TRIBUTARY_CACHE_DIR: path.join(scratch, 'cache') };
  const api = new Node('api', await freePort(), path.join(scratch, 'api'), env, 'api');
  const workerNodes = [];
  try {
    await api.start();
    for (let index = 0; index < workers; index += 1) {
      const dataDir = path.join(scratch, `worker-${index}`);
      mkdirSync(dataDir);
      copyFileSync(path.join(api.dataDir, 'master.key'), path.join(dataDir, 'master.key'));
      workerNodes.push(new Node(`worker-${index}`, await freePort(), dataDir, env, 'worker'));
    }
    await Promise.all(workerNodes.map((node) => node.start()));
    const code = readFileSync(path.join(COMPONENTS_DIR, 'http-emit-body.mjs'), 'utf8');
    const sources = [];
    for (let index = 0; index < SOURCES; index += 1) {
      const deployed = await call(api.base, 'POST', '/v1/sources', { component_code: code });
      if (deployed.status !== 200) throw new Error(`deploy: ${deployed.status} ${JSON.stringify(deployed.body)}`);
      sources.push(deployed.body.data);
    }
    const db = new pg.Client({ connectionString: shared.databaseUrl });
    await db.connect();
    const queued = async () =>
      Number((await db.query("select count(*) as n from invocations where status = 'queued'")).rows[0].n);
    const committed = async () => Number((await db.query('select count(*) as n from events')).rows[0].n);
    let windowStart = 0;
    let windowEnd = 0;
    let committedAtStart = 0;
    const reports = await Promise.all(
      sources.map((source, index) =>
        runLoad({ url: `${api.base}${new URL(source.endpoint_url).pathname}`, ...load }, (phase) => {
          if (index !== 0) return;
          if (phase === 'measure') {
            windowStart = Date.now();
            void committed().then((n) => (committedAtStart = n));
          } else if (phase === 'end') windowEnd = Date.now();
        }),
      ),
    );
    const acked = reports.reduce((sum, report) => sum + report.measured.ok + report.warmup.ok, 0);
    const ackedInWindow = reports.reduce((sum, report) => sum + report.measured.ok, 0);
    // Committed events: the bins keep 100 per source, so count from the queue instead.
    while ((await queued()) > 0 && Date.now() - windowEnd < 300_000) await delay(100);
    const drainedAt = Date.now();
    const left = await queued();
    await db.end();
    const windowSeconds = (windowEnd - windowStart) / 1000;
    const latency = summarize(reports.flatMap((report) => report.measured.latenciesMs));
    return {
      workers,
      acked,
      ingestPerSecond: round(ackedInWindow / windowSeconds, 1),
      ingestP50Ms: latency.p50Ms,
      ingestP99Ms: latency.p99Ms,
      nonOk: reports.reduce((sum, report) => sum + report.measured.nonOk, 0),
      // Every acknowledged request of the run (warm-up included) committed by `drainedAt`.
      endToEndPerSecond: round(acked / ((drainedAt - windowStart + load.warmupMs) / 1000), 1),
      drainAfterLoadMs: drainedAt - windowEnd,
      stillQueued: left,
      committedAtWindowStart: committedAtStart,
      loadAverage: os.loadavg().map((value) => round(value, 2)),
    };
  } finally {
    await Promise.all([api.stop(), ...workerNodes.map((node) => node.stop())]);
    await shared.cleanup().catch(() => undefined);
    rmSync(scratch, { recursive: true, force: true });
  }
}

const git = gitState();
const loadBefore = os.loadavg().map((value) => round(value, 2));
logLine(`load average before: ${loadBefore.join(', ')}; ${BENCH_RATE_LIMIT.note}`);
const one = await topology(1);
logLine(`1 worker: ${JSON.stringify(one)}`);
const two = await topology(2);
logLine(`2 workers: ${JSON.stringify(two)}`);
const rows = [
  ['ingest 2xx req/s (api process, 4 sources)', one.ingestPerSecond, two.ingestPerSecond],
  ['ingest latency p99 ms', one.ingestP99Ms, two.ingestP99Ms],
  ['end-to-end committed events/s', one.endToEndPerSecond, two.endToEndPerSecond],
  ['drain after the load stopped, ms', one.drainAfterLoadMs, two.drainAfterLoadMs],
];
// "ours" is 2 workers, "baseline" 1 worker of the same run: the ratio column is 2:1.
printTable(
  'PostgreSQL + Redis: 2 worker processes (ours) against 1 (baseline)',
  rows.map(([metric, a, b]) => ({ metric, ours: b, baseline: a, ratio: ratioOf(b, a) })),
);
writeResult(NAME, {
  git,
  settings: BENCH_RATE_LIMIT.note,
  load: { ...load, sources: SOURCES, generators: SOURCES },
  loadAverageBefore: loadBefore,
  runs: [one, two],
  ratio: {
    ingest: ratioOf(two.ingestPerSecond, one.ingestPerSecond),
    endToEnd: ratioOf(two.endToEndPerSecond, one.endToEndPerSecond),
  },
});
console.log(`ratio 2:1 end to end ${ratioOf(two.endToEndPerSecond, one.endToEndPerSecond)}`);
process.exitCode = 0;
