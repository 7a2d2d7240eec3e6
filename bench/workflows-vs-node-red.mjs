// Workflows against Node-RED (issue 10): the same load generator (closed-loop.mjs: autocannon, as the
// issue specifies, closed loop, 50 in flight, 1 KB JSON `{ seq, sentAt, pad }`; `--load-generator
// node-http` for loadgen.mjs, node:http's client) against, in the same run:
// - a Tributary source with customResponse (components/http-respond-picked.mjs);
// - a workflow: HTTP trigger (custom_response) -> registry action `tributary-pick-fields` -> code
//   step calling `$.respond` (components/workflow-respond-step.mjs);
// - the same workflow with the trigger answering at once (200 when the run is queued), counted end
//   to end: runs finished per second in the window, read at the window's edges;
// each beside Node-RED 4's equivalent flow (node-red-lib.mjs; installed from npm into a cache
// folder) and a bare node:http server (baseline-server.mjs), one after another per case.
// Then a kill -9 run: `--kill-runs` (5,000) acknowledged requests to the asynchronous workflow
// of a single `tributary start` on SQLite with `--kills` (20) `kill -9` spread over the stream,
// each followed by a restart; every acknowledged request must end as a succeeded run.
// Run: node bench/workflows-vs-node-red.mjs [--duration 10000] [--warmup 2000] [--concurrency 50]
//      [--load-generator autocannon|node-http] [--kill-runs 5000] [--kills 20] [--node-red-dir DIR]   (--kill-runs 0 skips the kill run)
import os from 'node:os';
import process from 'node:process';
import { parseArgs } from 'node:util';
import { closedLoop, measureClosedLoop } from './closed-loop.mjs';
import { onInterrupt, printTable, ratioOf, round, sleep, writeResult } from './lib.mjs';
import { DEFAULT_NODE_RED_DIR, installNodeRed, startNodeRed } from './node-red-lib.mjs';
import { runKillStream } from './workflow-kill-lib.mjs';
import { benchWorkflow, deployBenchWorkflow, readComponent } from './workflow-specs.mjs';
import {
  BENCH_RATE_LIMIT,
  gitState,
  logLine,
  openReadOnly,
  startBaselineServer,
  startTributary,
} from './server-lib.mjs';

const NAME = 'workflows-vs-node-red';
const TARGET_SYNC_RATIO = 0.5;
const TARGET_SYNC_P99_MS = 50;
const TARGET_ASYNC_RATIO = 1;
/** The asynchronous case waits at most this long for Tributary's backlog before the next load. */
const DRAIN_LIMIT_MS = 120_000;
const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10000' },
    warmup: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '50' },
    'load-generator': { type: 'string', default: 'autocannon' },
    'kill-runs': { type: 'string', default: '5000' },
    kills: { type: 'string', default: '20' },
    'node-red-dir': { type: 'string', default: DEFAULT_NODE_RED_DIR },
  },
});
const load = closedLoop(args);

const measure = (label, url, counter) => measureClosedLoop(label, url, load, counter);

let server = null;
let nodeRed = null;
let baseline = null;
let db = null;
let killCleanup = null;
onInterrupt(async () => {
  await killCleanup?.();
  db?.close();
  await server?.stop();
  await nodeRed?.stop();
  await baseline?.stop();
});

try {
  const git = gitState();
  const loadAverageAtStart = os.loadavg().map((value) => round(value, 2));
  const install = installNodeRed(args['node-red-dir']);
  logLine(
    `Node-RED ${install.version} in ${install.dir}${install.installMs ? `, installed in ${install.installMs} ms` : ''}`,
  );

  // TRIBUTARY_CONCURRENCY (runs at once across sources and workflow runs, default 4) passes through,
  // to see how much of a figure the runner's cap decides.
  const runnerConcurrency = process.env.TRIBUTARY_CONCURRENCY;
  server = await startTributary({
    name: 'workflows',
    extraEnv: { ...BENCH_RATE_LIMIT.env, ...(runnerConcurrency ? { TRIBUTARY_CONCURRENCY: runnerConcurrency } : {}) },
  });
  nodeRed = await startNodeRed(install.dir);
  baseline = await startBaselineServer();
  logLine(`tributary at ${server.baseUrl}, Node-RED at ${nodeRed.baseUrl}, baseline at ${baseline.baseUrl}`);

  const source = await server.deploy(readComponent('http-respond-picked.mjs'), { name: 'bench-respond' });
  const syncFlow = await deployBenchWorkflow(server, benchWorkflow('bench-sync', true));
  const asyncFlow = await deployBenchWorkflow(server, benchWorkflow('bench-async', false));
  db = await openReadOnly(server.dbFile);
  // Finished runs: those still stored plus those the default keep_runs (1,000) already dropped,
  // which trimming counts in the same transaction that deletes them.
  const finishedRuns = db.prepare(
    `select count(*) + (select runs_dropped from workflows where id = ?) as n,
            sum(case when status = 'succeeded' then 1 else 0 end) as ok
       from workflow_runs where workflow_id = ? and finished_at is not null`,
  );
  const tributaryFinished = (workflowId) => finishedRuns.get(workflowId, workflowId).n;

  const bare = `${baseline.baseUrl}/e/baseline`;
  const cases = {};
  const loadAverages = {};
  for (const [key, url] of [
    ['customResponse', source.endpoint_url],
    ['workflowSync', syncFlow.endpoint_url],
  ]) {
    loadAverages[key] = round(os.loadavg()[0], 2);
    cases[key] = {
      ours: await measure(`${key}: tributary`, url),
      nodeRed: await measure(`${key}: Node-RED`, `${nodeRed.baseUrl}/sync`),
      bare: await measure(`${key}: bare node:http`, bare),
    };
  }

  loadAverages.workflowAsync = round(os.loadavg()[0], 2);
  const asyncOurs = await measure('workflowAsync: tributary', asyncFlow.endpoint_url, () =>
    tributaryFinished(asyncFlow.id),
  );
  // Let the backlog finish before anything else is measured, and time how long it took.
  const drainStarted = Date.now();
  const unfinished = db.prepare(
    'select count(*) as n from workflow_runs where workflow_id = ? and finished_at is null',
  );
  while (Date.now() - drainStarted < DRAIN_LIMIT_MS && unfinished.get(asyncFlow.id).n > 0) await sleep(250);
  asyncOurs.drainAfterLoadMs = Date.now() - drainStarted;
  const totals = finishedRuns.get(asyncFlow.id, asyncFlow.id);
  asyncOurs.runsFinished = totals.n;
  const failedKept = db
    .prepare(
      "select count(*) as n from workflow_runs where workflow_id = ? and status not in ('succeeded', 'queued', 'running')",
    )
    .get(asyncFlow.id).n;
  // Failures are visible only among the runs still kept (the last 1,000).
  asyncOurs.runsSucceededKept = totals.ok;
  asyncOurs.runsFailedKept = failedKept;
  // How fast the runner works once the HTTP load is gone, against its rate during the load.
  asyncOurs.drainRunsPerSecond = round(
    ((totals.n - asyncOurs.completedAtWindowEnd) / Math.max(1, asyncOurs.drainAfterLoadMs)) * 1000,
    1,
  );
  logLine(
    `workflowAsync: ${totals.n} runs finished, backlog drained in ${asyncOurs.drainAfterLoadMs} ms ` +
      `(${asyncOurs.drainRunsPerSecond} runs/s)`,
  );
  cases.workflowAsync = {
    ours: asyncOurs,
    nodeRed: await measure('workflowAsync: Node-RED', `${nodeRed.baseUrl}/async`, () => nodeRed.completed()),
    bare: await measure('workflowAsync: bare node:http', bare),
  };
  // The bare server does its work in the request handler: what it answers, it has completed.
  cases.workflowAsync.bare.completedPerSecond = cases.workflowAsync.bare.reqPerSecond;
  db.close();
  db = null;
  await server.stop();
  server = null;
  await nodeRed.stop();
  nodeRed = null;
  await baseline.stop();
  baseline = null;

  const killRuns = Number(args['kill-runs']);
  const kill =
    killRuns > 0
      ? await runKillStream({
          runs: killRuns,
          kills: Number(args.kills),
          onCleanup: (cleanup) => {
            killCleanup = cleanup;
          },
        })
      : null;
  if (kill) logLine(`kill -9 run: ${JSON.stringify(kill)}`);

  const judged = {};
  for (const key of ['customResponse', 'workflowSync']) {
    const { ours, nodeRed: red, bare: b } = cases[key];
    const ratio = ratioOf(ours.reqPerSecond, red.reqPerSecond);
    judged[key] = {
      ratioToNodeRed: ratio,
      ratioToBare: ratioOf(ours.reqPerSecond, b.reqPerSecond),
      passRate: ratio !== undefined && ratio >= TARGET_SYNC_RATIO,
      passP99: ours.p99Ms !== undefined && ours.p99Ms <= TARGET_SYNC_P99_MS,
    };
    judged[key].pass = judged[key].passRate && judged[key].passP99 && ours.nonOk === 0;
  }
  {
    const { ours, nodeRed: red, bare: b } = cases.workflowAsync;
    const ratio = ratioOf(ours.completedPerSecond, red.completedPerSecond);
    judged.workflowAsync = {
      ratioToNodeRed: ratio,
      ratioToBare: ratioOf(ours.completedPerSecond, b.completedPerSecond),
      pass:
        ratio !== undefined &&
        ratio >= TARGET_ASYNC_RATIO &&
        ours.runsFinished >= ours.acknowledged &&
        ours.runsFailedKept === 0,
    };
  }
  const killPass = kill ? kill.lost === 0 && kill.notFinished === 0 && kill.kills === Number(args.kills) : undefined;

  const rows = [];
  const labels = {
    customResponse: 'source with customResponse',
    workflowSync: 'workflow trigger → pick-fields → $.respond',
  };
  for (const key of ['customResponse', 'workflowSync']) {
    const { ours, nodeRed: red, bare: b } = cases[key];
    rows.push(
      {
        metric: `${labels[key]}: 2xx req/s (baseline: Node-RED)`,
        unit: '/s',
        ours: ours.reqPerSecond,
        baseline: red.reqPerSecond,
        ratio: judged[key].ratioToNodeRed,
        target: `>= ${TARGET_SYNC_RATIO}x`,
        pass: judged[key].passRate,
      },
      {
        metric: `${labels[key]}: p99 (baseline: Node-RED)`,
        ours: ours.p99Ms,
        baseline: red.p99Ms,
        ratio: ratioOf(ours.p99Ms, red.p99Ms),
        target: `<= ${TARGET_SYNC_P99_MS} ms`,
        pass: judged[key].passP99,
      },
      {
        metric: `(diag) ${labels[key]}: bare node:http req/s, p99 ms`,
        unit: 'count',
        ours: `${ours.reqPerSecond} / ${ours.p99Ms}`,
        baseline: `${b.reqPerSecond} / ${b.p99Ms}`,
        ratio: judged[key].ratioToBare,
      },
      { metric: `(diag) ${labels[key]}: non-2xx + errors`, unit: 'count', ours: ours.nonOk, baseline: red.nonOk },
    );
  }
  const a = cases.workflowAsync;
  rows.push(
    {
      metric: 'workflow answering at once: runs finished/s (baseline: Node-RED)',
      unit: '/s',
      ours: a.ours.completedPerSecond,
      baseline: a.nodeRed.completedPerSecond,
      ratio: judged.workflowAsync.ratioToNodeRed,
      target: `>= ${TARGET_ASYNC_RATIO}x`,
      pass: judged.workflowAsync.pass,
    },
    {
      metric: '(diag) workflow answering at once: 2xx req/s, p99 ms',
      unit: 'count',
      ours: `${a.ours.reqPerSecond} / ${a.ours.p99Ms}`,
      baseline: `${a.nodeRed.reqPerSecond} / ${a.nodeRed.p99Ms}`,
    },
    {
      metric: '(diag) … bare node:http req/s, p99 ms',
      unit: 'count',
      ours: '',
      baseline: `${a.bare.reqPerSecond} / ${a.bare.p99Ms}`,
    },
    {
      metric: '(diag) … runs finished / acknowledged (failed among the last kept); backlog drained in ms, at runs/s',
      unit: 'count',
      ours: `${a.ours.runsFinished} / ${a.ours.acknowledged} (${a.ours.runsFailedKept}); ${a.ours.drainAfterLoadMs} ms, ${a.ours.drainRunsPerSecond}/s`,
    },
  );
  if (kill) {
    rows.push({
      metric: `kill -9 ×${kill.kills} during ${kill.acknowledged} acknowledged runs: lost`,
      unit: 'count',
      ours: kill.lost,
      target: '0 (and all finished)',
      pass: killPass,
    });
    rows.push({
      metric: '(diag) … runs not finished; ran twice; runs/s over the stream',
      unit: 'count',
      ours: `${kill.notFinished}; ${kill.duplicates}; ${kill.runsPerSecond}`,
    });
  }
  rows.push({
    metric: '(diag) 1-minute load average at start / per case',
    unit: 'count',
    ours: `${loadAverageAtStart[0]} / ${Object.values(loadAverages).join(', ')}`,
  });
  printTable(
    `${NAME} (${load.generator}, closed loop, ${load.concurrency} in flight, 1 KB JSON, ${load.durationMs / 1000} s measured per case; Node-RED ${install.version}; ${BENCH_RATE_LIMIT.note})`,
    rows,
  );
  writeResult(NAME, {
    server: { endpointRateLimit: BENCH_RATE_LIMIT.note, concurrency: runnerConcurrency ?? 'default (4)' },
    git,
    nodeRed: { version: install.version, installMs: install.installMs },
    load: { ...load, mode: 'closed loop' },
    loadAverage: { atStart: loadAverageAtStart, oneMinuteBeforeCase: loadAverages },
    results: {
      what: 'closed-loop POSTs of 1 KB JSON; each case against Tributary, the equivalent Node-RED flow and a bare node:http server, one after another on this machine',
      cases,
      kill,
    },
    ratio: Object.fromEntries(Object.entries(judged).map(([key, value]) => [key, value.ratioToNodeRed])),
    target: {
      sync: `>= ${TARGET_SYNC_RATIO}x Node-RED's 2xx req/s and p99 <= ${TARGET_SYNC_P99_MS} ms`,
      async: `>= ${TARGET_ASYNC_RATIO}x Node-RED's runs finished per second`,
      kill: `0 runs lost across ${args.kills} kill -9 during ${killRuns} runs`,
    },
    judged,
    pass: {
      customResponse: judged.customResponse.pass,
      workflowSync: judged.workflowSync.pass,
      workflowAsync: judged.workflowAsync.pass,
      kill: killPass ?? null,
    },
  });
} finally {
  db?.close();
  await server?.stop();
  await nodeRed?.stop();
  await baseline?.stop();
}
