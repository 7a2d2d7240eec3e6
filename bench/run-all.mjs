// Runs the sandbox and server benchmarks in sequence, then writes bench/results/summary.md: one
// Markdown table of every figure, built from the JSON results (ready to paste into the README).
// Run: node bench/run-all.mjs            (all of them, then the summary)
//      node bench/run-all.mjs --summary  (only rebuild summary.md from the existing JSON files)
//      node bench/run-all.mjs --only server-ingest,server-end-to-end   (a subset, then the summary)
// server-timer-drift-distinct (`node bench/server-timer-drift.mjs --distinct-code`: 1,000 distinct
// components, issue 13's targets) is not run here, as it takes minutes; its figures join the
// summary when its JSON file exists, as do those of server-scale and reliability (PostgreSQL and
// Redis, several processes; bench/README.md). So is registry-import (`node bench/registry-import.mjs`),
// which needs the npm registry and takes minutes.
import { spawnSync } from 'node:child_process';
import console from 'node:console';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { BENCH_DIR, RESULTS_DIR } from './lib.mjs';

const BENCHMARKS = [
  'sandbox-warm-invocation',
  'sandbox-cold-start',
  'sandbox-cached-prepare',
  'server-ingest',
  'server-end-to-end',
  'server-timer-drift',
];
/** Summarized when present, never run by this script. */
const EXTRA_RESULTS = [
  'server-timer-drift-distinct',
  'server-scale',
  'reliability',
  'registry-import',
  'workflows-vs-node-red',
];
const summaryOnly = process.argv.includes('--summary');
const onlyIndex = process.argv.indexOf('--only');
const selected = onlyIndex >= 0 ? (process.argv[onlyIndex + 1] ?? '').split(',').filter(Boolean) : BENCHMARKS;
for (const name of selected) if (!BENCHMARKS.includes(name)) throw new Error(`unknown benchmark "${name}"`);

const failures = [];
if (!summaryOnly) {
  for (const name of selected) {
    console.log(`\n=== ${name} ===`);
    const run = spawnSync(process.execPath, [path.join(BENCH_DIR, `${name}.mjs`)], { stdio: 'inherit' });
    if (run.status !== 0) failures.push(`${name} (exit ${run.status ?? run.signal})`);
  }
}

const read = (name) => {
  const file = path.join(RESULTS_DIR, `${name}.json`);
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : null;
};
const ms = (value) => (typeof value === 'number' ? `${value < 10 ? value.toFixed(3) : value.toFixed(1)} ms` : '—');
/** A cell in its unit: ms by default; '/s' for rates, 's' for seconds, 'n' for counts. Text stays as is. */
const cell = (value, unit = 'ms') => {
  if (typeof value === 'string') return value;
  if (typeof value !== 'number') return '—';
  if (unit === '/s') return `${Math.round(value).toLocaleString('en-US')}/s`;
  if (unit === 's') return `${value.toFixed(1)} s`;
  if (unit === 'n') return value.toLocaleString('en-US');
  return ms(value);
};
/** A latency that may be undefined because events or ticks never arrived. */
const orMissing = (value, missing) => (value === null || value === undefined ? missing : value);
const times = (value) => (typeof value === 'number' ? `${value.toFixed(2)}×` : '—');
const verdict = (pass) => (pass === undefined ? '' : pass ? '✅ pass' : '❌ fail');
/** server-timer-drift leaves its memory targets unjudged (null) in its short idle mode: say so. */
const judgedTarget = (target, pass) => (pass === null ? `${target} (judged with --idle-wait 310)` : target);

/** Rows of the several-process benchmarks: 2 workers against 1, and the reliability counts. */
function clusterRows(name, result) {
  if (name === 'server-scale') {
    const [one, two] = result.runs;
    return [
      [
        'ingest 2xx req/s, api process (ours: 2 workers, baseline: 1)',
        two.ingestPerSecond,
        one.ingestPerSecond,
        result.ratio.ingest,
        undefined,
        undefined,
        '/s',
      ],
      ['ingest latency p99', two.ingestP99Ms, one.ingestP99Ms, ratioOf(two.ingestP99Ms, one.ingestP99Ms)],
      [
        'end-to-end committed events/s (ours: 2 workers, baseline: 1)',
        two.endToEndPerSecond,
        one.endToEndPerSecond,
        result.ratio.endToEnd,
        undefined,
        undefined,
        '/s',
      ],
      ['↳ diag: drain after the load stopped', two.drainAfterLoadMs, one.drainAfterLoadMs],
      [
        '↳ diag: 1-minute load average at the end (2 workers; 1 worker)',
        two.loadAverage[0],
        one.loadAverage[0],
        undefined,
        undefined,
        undefined,
        'n',
      ],
    ];
  }
  return result.runs.flatMap((run) => {
    const label = `${run.backend}, ${run.processes} process${run.processes > 1 ? 'es' : ''}, ${run.kills} kill -9`;
    return [
      [`${label}: acknowledged events`, run.acknowledged, undefined, undefined, undefined, undefined, 'n'],
      [`${label}: acknowledged events lost`, run.lost, undefined, undefined, '0', run.lost === 0, 'n'],
      [`${label}: events out of order`, run.outOfOrder, undefined, undefined, '0', run.outOfOrder === 0, 'n'],
      [`${label}: events that ran twice`, run.ranTwice, undefined, undefined, undefined, undefined, 'n'],
      [
        `${label}: timer ticks fired twice (of ${run.ticks})`,
        run.ticksTwice,
        undefined,
        undefined,
        '0',
        run.ticksTwice === 0,
        'n',
      ],
    ];
  });
}

const ratioOf = (ours, baseline) =>
  typeof ours === 'number' && typeof baseline === 'number' && baseline > 0 ? ours / baseline : undefined;

function rowsOf(name, result) {
  if (name === 'server-scale' || name === 'reliability') return clusterRows(name, result);
  const r = result.results;
  const b = result.baseline;
  const d = result.diagnostics ?? {};
  const target = `≤ ${result.target.maxMs} ms`;
  switch (name) {
    case 'sandbox-warm-invocation':
      return [
        ['warm invocation p50', r.p50Ms, b.p50Ms, result.ratio.p50],
        ['warm invocation p99', r.p99Ms, b.p99Ms, result.ratio.p99],
        ['warm invocation mean', r.meanMs, b.meanMs, result.ratio.mean],
        ['warm overhead p50 (sandbox − in-process)', r.overheadP50Ms],
        ['warm overhead p99 (sandbox − in-process)', r.overheadP99Ms, undefined, undefined, target, result.pass],
        ...(d.bareIpcRoundTrip
          ? [
              ['↳ diag: bare node IPC round trip p50', d.bareIpcRoundTrip.p50Ms],
              ['↳ diag: bare node IPC round trip p99', d.bareIpcRoundTrip.p99Ms],
            ]
          : []),
      ];
    case 'sandbox-cold-start':
      return [
        ['cold start p50', r.p50Ms, b.p50Ms, result.ratio.p50],
        ['cold start p99', r.p99Ms, b.p99Ms, result.ratio.p99, target, result.pass],
        ['cold start mean', r.meanMs, b.meanMs, result.ratio.mean],
        ...(d.isolatedNode ? [['↳ diag: isolated one-line node p50', d.isolatedNode.p50Ms, b.p50Ms]] : []),
        ...(d.harnessReady ? [['↳ diag: worker harness ready (no load) p50', d.harnessReady.p50Ms, b.p50Ms]] : []),
        ...(d.warmLoad
          ? [
              ['↳ diag: new component in a warm shared worker p50', d.warmLoad.p50Ms, b.p50Ms],
              ['↳ diag: new component in a warm shared worker p99', d.warmLoad.p99Ms],
            ]
          : []),
      ];
    case 'sandbox-cached-prepare':
      return [
        ['first prepare (npm install ms@2.1.3)', result.firstPrepare.ms],
        ['cached prepare p50', r.p50Ms, b.p50Ms, result.ratio.p50],
        ['cached prepare p99', r.p99Ms, b.p99Ms, result.ratio.p99, target, result.pass],
        ['cached prepare mean', r.meanMs, b.meanMs, result.ratio.mean],
        ...(d.esbuildResolve
          ? [['↳ diag: esbuild resolving into the cache p50', d.esbuildResolve.p50Ms, b.p50Ms]]
          : []),
      ];
    case 'server-ingest': {
      const t = result.target;
      const p = result.passes ?? {};
      const runner = d.runner ?? {};
      return [
        [
          '2xx req/s (closed loop, 50 in flight)',
          r.requestsPerSecond,
          b.requestsPerSecond,
          result.ratio.requestsPerSecond,
          `≥ ${t.minRequestsPerSecond.toLocaleString('en-US')}/s`,
          p.requestsPerSecond,
          '/s',
        ],
        ['2xx latency p50', r.p50Ms, b.p50Ms, result.ratio.p50],
        ['2xx latency p99', r.p99Ms, b.p99Ms, result.ratio.p99, `≤ ${t.maxP99Ms} ms`, p.p99],
        ['non-2xx answers + errors', r.nonOk, b.nonOk, undefined, undefined, undefined, 'n'],
        [
          '↳ diag: runner processed/s while ingesting',
          runner.processedPerSecondDuringLoad,
          undefined,
          undefined,
          undefined,
          undefined,
          '/s',
        ],
        [
          '↳ diag: invocations queued when the load stopped',
          runner.queuedWhenLoadStopped,
          undefined,
          undefined,
          undefined,
          undefined,
          'n',
        ],
      ];
    }
    case 'server-end-to-end': {
      const t = result.target;
      const p = result.passes ?? {};
      const light = d.lightLoad;
      return [
        [
          `events/s delivered over SSE (${result.load.rate.toLocaleString('en-US')}/s offered)`,
          r.eventsPerSecond,
          b.eventsPerSecond,
          result.ratio.eventsPerSecond,
          `≥ ${t.minEventsPerSecond.toLocaleString('en-US')}/s`,
          p.eventsPerSecond,
          '/s',
        ],
        ['send → SSE latency p50', orMissing(r.p50Ms, 'not delivered'), b.p50Ms, result.ratio.p50],
        [
          'send → SSE latency p99',
          orMissing(r.p99Ms, 'not delivered'),
          b.p99Ms,
          result.ratio.p99,
          `≤ ${t.maxP99Ms} ms`,
          p.p99,
        ],
        ['events lost', r.lost, b.lost, undefined, '0', p.lost, 'n'],
        [
          'acknowledged, not delivered when the drain ended (still queued)',
          r.notDelivered,
          b.notDelivered,
          undefined,
          undefined,
          undefined,
          'n',
        ],
        ...(r.trend
          ? [
              [
                '↳ diag: send → SSE p50 of the first / last second sent',
                `${cell(orMissing(r.trend.firstSecondP50Ms, 'not delivered'))} / ${cell(orMissing(r.trend.lastSecondP50Ms, 'not delivered'))}`,
                `${cell(b.trend?.firstSecondP50Ms)} / ${cell(b.trend?.lastSecondP50Ms)}`,
              ],
              [
                '↳ diag: send → SSE p99 of the second half sent',
                orMissing(r.trend.secondHalfP99Ms, 'not delivered'),
                b.trend?.secondHalfP99Ms,
              ],
            ]
          : []),
        ...(light
          ? [
              [
                `↳ diag: light load ${light.load.rate}/s, send → SSE p50`,
                orMissing(light.p50Ms ?? light.latency?.p50Ms, 'not delivered'),
              ],
              [
                `↳ diag: light load ${light.load.rate}/s, send → SSE p99`,
                orMissing(light.p99Ms ?? light.latency?.p99Ms, 'not delivered'),
              ],
              ['↳ diag: light load, server CPU per event', light.serverCpuMsPerEvent],
            ]
          : []),
      ];
    }
    case 'server-timer-drift':
    case 'server-timer-drift-distinct': {
      const t = result.target;
      const deploy = result.deploy;
      const label = name === 'server-timer-drift' ? '' : ' (distinct code per source)';
      const rows = [
        [
          `timers deployed${label}`,
          `${deploy.deployed} of ${deploy.requested}`,
          undefined,
          undefined,
          undefined,
          undefined,
        ],
        [
          `deploy: total (${deploy.concurrency} at a time)`,
          deploy.totalSeconds,
          undefined,
          undefined,
          undefined,
          undefined,
          's',
        ],
        ['deploy: latency p50', deploy.latency.p50Ms],
        ['drift p50', orMissing(r.p50Ms, 'not run'), b.p50Ms, result.ratio.p50],
        [
          'drift p99',
          orMissing(r.p99Ms, 'not run'),
          b.p99Ms,
          result.ratio.p99,
          `≤ ${t.maxP99Ms} ms (${t.sources.toLocaleString('en-US')} sources)`,
          result.pass,
        ],
        ['drift max', orMissing(r.maxMs, 'not run'), b.maxMs],
        ['ticks run in the window / due but not run', `${r.ran} / ${r.unrun}`, `${b.ran} / 0`],
      ];
      const alone = d.sequentialDeploy;
      if (alone?.componentCode && alone?.componentId) {
        rows.push([
          '↳ diag: one deploy alone p50, component_code / component_id',
          `${cell(alone.componentCode.p50Ms)} / ${cell(alone.componentId.p50Ms)}`,
        ]);
      }
      if (typeof r.workersStartedInWindow === 'number') {
        rows.push([
          '↳ diag: sandbox workers started in the window',
          r.workersStartedInWindow,
          undefined,
          undefined,
          undefined,
          undefined,
          'n',
        ]);
      }
      if (typeof r.cpu?.workersPolledCpuPercent === 'number') {
        rows.push([
          '↳ diag: CPU in the window: server / workers (% of one core) / machine busy',
          `${r.cpu.serverCpuPercent} % / ≥ ${r.cpu.workersPolledCpuPercent} % / ${r.cpu.machineBusyPercent} %`,
        ]);
      }
      const memory = result.memory;
      if (memory?.idleWarm) {
        const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
        const mb = (bytes) => `${(bytes / 1048576).toFixed(1)} MB`;
        const workersOf = (snapshot) => `${snapshot.workers} / ${mb(snapshot.workersRssBytes)}`;
        rows.push(
          [
            `memory per idle deployed component (server + workers RSS after ${memory.idleWaitSeconds} s idle − the same with none deployed)`,
            kb(memory.perComponentBytes.total),
            undefined,
            undefined,
            judgedTarget('≤ 50 KB', memory.perComponentPass),
            memory.perComponentPass ?? undefined,
          ],
          [
            '↳ diag: of which server / workers',
            `${kb(memory.perComponentBytes.server)} / ${kb(memory.perComponentBytes.workers)}`,
          ],
          [
            `↳ diag: after 30 s idle, one warm worker holding them all (over the first ${memory.warm.deployed} / over none); while every timer fires`,
            `${kb(memory.perIdleWarmComponentBytes)} / ${kb(memory.perIdleWarmFromEmptyBytes)}; ${kb(memory.perActiveComponentBytes)}`,
          ],
          [
            `idle server RSS with ${deploy.deployed.toLocaleString('en-US')} deployed (baseline: none)`,
            mb(memory.idle.serverRssBytes),
            mb((memory.emptyIdle ?? memory.empty).serverRssBytes),
            undefined,
            judgedTarget('≤ 150 MB', memory.serverRssPass),
            memory.serverRssPass ?? undefined,
          ],
          [
            '↳ diag: worker processes / their RSS: idle; 30 s idle; while every timer fires',
            `${workersOf(memory.idle)}; ${workersOf(memory.idleWarm)}; ${workersOf(memory.deployed)}`,
            `${workersOf(memory.warm)} (${memory.warm.deployed} deployed)`,
          ],
        );
      }
      if (name !== 'server-timer-drift' && !memory) {
        // A diagnostic variant from before issue 13 gave it targets: no verdict in the summary.
        rows[4][5] = undefined;
        rows[4][4] = undefined;
      }
      return rows;
    }
    case 'registry-import':
      return Object.entries(r).flatMap(([spec, entry]) => [
        [
          `import ${spec}, cold (${entry.published} published, ${entry.skipped.length} skipped)`,
          entry.coldSeconds,
          entry.npmInstallColdSeconds,
          entry.ratioCold,
          `≤ ${result.target.max}× npm install`,
          entry.pass,
          's',
        ],
        [
          `import ${spec}, warm`,
          entry.warmSeconds,
          entry.npmInstallWarmSeconds,
          entry.ratioWarm,
          undefined,
          undefined,
          's',
        ],
      ]);
    case 'workflows-vs-node-red':
      return workflowRows(result);
    default:
      return [];
  }
}

/** Each case against Node-RED's flow (the baseline column) and bare node:http (a diag row). */
function workflowRows(result) {
  const { cases, kill } = result.results;
  const judged = result.judged;
  const syncTarget = `≥ 0.5× Node-RED, p99 ≤ 50 ms`;
  const rows = [];
  for (const [key, label] of [
    ['customResponse', 'source with customResponse'],
    ['workflowSync', 'workflow: trigger → pick-fields → `$.respond`'],
  ]) {
    const { ours, nodeRed, bare } = cases[key];
    rows.push(
      [
        `${label}: 2xx req/s (baseline: Node-RED)`,
        ours.reqPerSecond,
        nodeRed.reqPerSecond,
        judged[key].ratioToNodeRed,
        syncTarget,
        judged[key].pass,
        '/s',
      ],
      [`${label}: p99`, ours.p99Ms, nodeRed.p99Ms, ratioOf(ours.p99Ms, nodeRed.p99Ms)],
      [
        `↳ diag: ${label}: req/s (baseline: bare node:http)`,
        ours.reqPerSecond,
        bare.reqPerSecond,
        judged[key].ratioToBare,
        undefined,
        undefined,
        '/s',
      ],
    );
  }
  const a = cases.workflowAsync;
  rows.push(
    [
      'workflow answering at once: runs finished/s in the window (baseline: Node-RED)',
      a.ours.completedPerSecond,
      a.nodeRed.completedPerSecond,
      judged.workflowAsync.ratioToNodeRed,
      '≥ 1× Node-RED',
      judged.workflowAsync.pass,
      '/s',
    ],
    [
      '↳ diag: … 2xx req/s (baseline: Node-RED)',
      a.ours.reqPerSecond,
      a.nodeRed.reqPerSecond,
      ratioOf(a.ours.reqPerSecond, a.nodeRed.reqPerSecond),
      undefined,
      undefined,
      '/s',
    ],
    ['↳ diag: … backlog finished after the load stopped', a.ours.drainAfterLoadMs],
    [
      '↳ diag: … runs finished/s once the load stopped',
      a.ours.drainRunsPerSecond,
      undefined,
      undefined,
      undefined,
      undefined,
      '/s',
    ],
  );
  if (kill) {
    rows.push([
      `${kill.kills} kill -9 during ${kill.acknowledged.toLocaleString('en-US')} acknowledged runs: runs lost`,
      kill.lost,
      undefined,
      undefined,
      '0, all finished',
      result.pass.kill,
      'n',
    ]);
  }
  const averages = Object.values(result.loadAverage.oneMinuteBeforeCase).join(', ');
  rows.push([`↳ diag: 1-minute load average before each case (customResponse, workflow, answering at once)`, averages]);
  return rows;
}

const BASELINES = {
  'server-ingest': 'the same load generator against a bare `node:http` server process answering 200',
  'server-end-to-end':
    'the same load generator and SSE client against a bare `node:http` server process that forwards each POST body to the SSE client in process',
  'server-timer-drift':
    'the same number of `setTimeout` timers at 15 s in a bare node process, same phases and re-arm rule (next = max(now, scheduled) + 15 s)',
  'server-timer-drift-distinct': 'as server-timer-drift',
  'server-scale':
    'the same topology and load with one worker process: an `api` process and `worker` processes on PostgreSQL and Redis, four sources, one load generator each',
  reliability: 'none: counts of what went wrong, each to be 0',
  'registry-import':
    '`npm install <spec> --ignore-scripts` in an empty folder, empty npm cache (cold) and the same cache again (warm)',
  'workflows-vs-node-red':
    "Node-RED 4's equivalent flow (http in → function → http response; for the asynchronous case a second wire through a counting function), installed from npm and measured in the same run under the same load; bare `node:http` answering 200 in diag rows",
  'sandbox-warm-invocation': 'in-process `resolveProps` + `invokeComponent` (N=2000, 100 warm-up)',
  'sandbox-cold-start': 'spawn bare `node -e "process.send(\'ready\')"` with IPC (30 samples)',
  'sandbox-cached-prepare': "esbuild alone: `bundleComponent({ packages: 'external' })` (50 samples)",
};

const results = [
  ...BENCHMARKS.map((name) => [name, read(name)]),
  ...EXTRA_RESULTS.map((name) => [name, read(name)]).filter(([, result]) => result),
];
const first = results.find(([, result]) => result)?.[1];
const isolated = results.find(([, result]) => result?.isolation)?.[1];
const lines = [];
lines.push('# Benchmarks');
lines.push('');
if (first) {
  const active = (isolated?.isolation ?? []).filter((layer) => layer.active).map((layer) => layer.name);
  const missing = (isolated?.isolation ?? []).filter((layer) => !layer.active).map((layer) => layer.name);
  lines.push(
    `Measured ${first.date.slice(0, 10)} on ${first.machine.cpus} CPUs (${first.machine.cpuModel}), ${first.machine.memory} RAM, Node ${first.node}, ${first.machine.platform}.`,
  );
  const loads = results
    .filter(([, result]) => result)
    .map(([name, result]) => `${result.machine.loadAverageAtStart ?? '?'} (${name})`);
  lines.push(`1-minute load average when each script started: ${loads.join(', ')}.`);
  if (isolated) {
    lines.push(
      `Isolation layers active: ${active.join(', ')}${missing.length ? `; missing: ${missing.join(', ')}` : ''}.`,
    );
  }
  const servers = results.filter(([, result]) => result?.git);
  if (servers.length > 0) {
    const measured = servers.map(([name, result]) => {
      const dirty = result.git.packagesDirty?.length ?? 0;
      return `${name} ${result.date.slice(0, 16).replace('T', ' ')} at ${result.git.head}${dirty ? ` + ${dirty} uncommitted files in packages/` : ''}${result.git.distFingerprint ? ` (build ${result.git.distFingerprint})` : ''}`;
    });
    lines.push(`Server benchmarks measured: ${measured.join('; ')}.`);
    const limits = servers
      .filter(([, result]) => result.server?.endpointRateLimit)
      .map(([name, result]) => `${name}: ${result.server.endpointRateLimit}`);
    if (limits.length > 0) lines.push(`Server settings: ${limits.join('; ')}.`);
  }
  lines.push('');
}
lines.push('| benchmark | metric | ours | baseline | ratio | target | result |');
lines.push('| --- | --- | ---: | ---: | ---: | --- | --- |');
for (const [name, result] of results) {
  if (!result) {
    lines.push(`| ${name} | _not run_ | | | | | |`);
    continue;
  }
  for (const [metric, ours, baseline, ratio, target, pass, unit] of rowsOf(name, result)) {
    lines.push(
      `| ${name} | ${metric} | ${cell(ours, unit)} | ${cell(baseline, unit)} | ${times(ratio)} | ${target ?? ''} | ${verdict(pass)} |`,
    );
  }
}
lines.push('');
lines.push('Baselines:');
lines.push('');
for (const [name] of results) lines.push(`- **${name}**: ${BASELINES[name]}.`);
lines.push('');
lines.push(
  'p99 of 30 or 50 samples is the maximum or close to it. Rows marked “diag” break a figure down and carry no target. “not delivered” / “not run”: some measured events or ticks never arrived before the end, so the percentile is undefined (they count as unbounded). Run `node bench/run-all.mjs` to regenerate; see bench/README.md.',
);
lines.push('');

const summaryFile = path.join(RESULTS_DIR, 'summary.md');
writeFileSync(summaryFile, await aligned(lines.join('\n'), summaryFile));
console.log(`\nwrote ${path.relative(process.cwd(), summaryFile)}`);
console.log(lines.filter((line) => line.startsWith('|')).join('\n'));

if (failures.length > 0) {
  console.error(`\nfailed: ${failures.join(', ')}`);
  process.exitCode = 1;
}

/** Pads the table with the repo's Prettier (a dev dependency) when it is installed; as is otherwise. */
async function aligned(markdown, file) {
  try {
    const prettier = await import('prettier');
    const options = (await prettier.resolveConfig(file)) ?? {};
    return await prettier.format(markdown, { ...options, parser: 'markdown' });
  } catch {
    return markdown;
  }
}
