#!/usr/bin/env node
// npm run fuzz: the full property-based fuzz run (docs/fuzzing.md). Splits the cases over the
// runtime targets and the REST target (a real server on 127.0.0.1), prints progress and a
// summary, writes bench/results/fuzz.json, and exits 1 when any target found a failure.
// Runs on the built packages: `npm run build` first.
//
//   node tools/fuzz/run-fuzz.mjs [--cases 100000] [--seed 20261124] [--only rest,coerce]
import console from 'node:console';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startFuzzServer } from './fuzz-server.mjs';
import { ingressTarget } from './ingress-target.mjs';
import { EXCLUDED_ROUTES, fetchRoutes, restTarget } from './rest-target.mjs';
import { runTarget } from './run-target.mjs';
import { runtimeTargets } from './runtime-targets.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Share of the cases each target gets; the loader bundles a file per case, so it gets few. */
const SHARES = { coerce: 0.2, dedupe: 0.15, httpEvent: 0.13, validator: 0.15, loader: 0.03, rest: 0.26, ingress: 0.08 };

const { values } = parseArgs({
  options: {
    cases: { type: 'string', default: '100000' },
    seed: { type: 'string', default: '20261124' },
    only: { type: 'string' },
    out: { type: 'string', default: path.join(REPO, 'bench/results/fuzz.json') },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(
    'usage: node tools/fuzz/run-fuzz.mjs [--cases 100000] [--seed 20261124] [--only rest,coerce,...] [--out file]',
  );
  console.log(`targets: ${Object.keys(SHARES).join(', ')}`);
  process.exit(0);
}
const total = Number(values.cases);
const seed = Number(values.seed);
if (!Number.isInteger(total) || total < 1 || !Number.isInteger(seed)) {
  console.error('--cases and --seed must be integers (cases >= 1)');
  process.exit(2);
}
const only = values.only ? new Set(values.only.split(',')) : null;
const chosen = Object.keys(SHARES).filter((name) => !only || only.has(name));
const shareSum = chosen.reduce((sum, name) => sum + SHARES[name], 0);
const plan = Object.fromEntries(
  chosen.map((name) => [name, Math.max(1, Math.round((total * SHARES[name]) / shareSum))]),
);

const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
const onProgress = (name, done, of) =>
  console.log(`  ${name}: ${done}/${of} (${Math.round((done / of) * 100)}%) at ${elapsed()}`);

console.log(`fuzz: ${Object.values(plan).reduce((a, b) => a + b, 0)} cases, seed ${seed}`);
console.log(
  `plan: ${Object.entries(plan)
    .map(([name, n]) => `${name} ${n}`)
    .join(', ')}`,
);

const { scratch, targets } = runtimeTargets();
const results = [];
let restStats = null;
let ingressStats = null;
try {
  for (const name of chosen) {
    if (name === 'rest' || name === 'ingress') continue;
    console.log(`${targets[name].name} (${plan[name]} cases)`);
    results.push(await runTarget(targets[name], { numRuns: plan[name], seed, onProgress }));
  }
  if (plan.rest || plan.ingress) {
    const server = await startFuzzServer();
    try {
      // REST first: its fingerprint reads every row, and the ingress target stores a run per request.
      if (plan.rest) {
        const routes = await fetchRoutes(server.base, server.key);
        restStats = { byStatus: {}, byCode: {}, routes: new Set(), total: routes.length };
        console.log(`REST routes (${plan.rest} cases over ${routes.length} routes)`);
        results.push(
          await runTarget(restTarget({ ...server, routes, stats: restStats }), {
            numRuns: plan.rest,
            seed,
            onProgress,
          }),
        );
      }
      if (plan.ingress) {
        ingressStats = { byStatus: {}, byCode: {} };
        console.log(`HTTP ingress (${plan.ingress} cases to ${server.ids.endpoint.slice(0, 6)}…)`);
        const target = ingressTarget({
          ...server,
          endpointPath: server.ids.endpoint,
          sourceId: server.ids.httpSource,
          stats: ingressStats,
        });
        results.push(await runTarget(target, { numRuns: plan.ingress, seed, onProgress }));
      }
    } finally {
      await server.close();
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

const failed = results.filter((result) => result.failed);
console.log('');
console.log('target                              cases   failures   seconds');
for (const result of results) {
  console.log(
    `${result.name.padEnd(34)} ${String(result.cases).padStart(7)}   ${String(result.failed ? 1 : 0).padStart(8)}   ${(result.ms / 1000).toFixed(1).padStart(7)}`,
  );
}
const cases = results.reduce((sum, result) => sum + result.cases, 0);
console.log(`total ${cases} cases in ${elapsed()}; ${failed.length} target(s) failed`);
if (ingressStats) {
  console.log(
    `ingress answers: ${Object.entries(ingressStats.byStatus)
      .sort()
      .map(([bucket, n]) => `${bucket} ${n}`)
      .join(', ')}; refusals: ${Object.entries(ingressStats.byCode)
      .sort((a, b) => b[1] - a[1])
      .map(([code, n]) => `${code} ${n}`)
      .join(', ')}`,
  );
}
if (restStats) {
  console.log(
    `REST answers: ${Object.entries(restStats.byStatus)
      .sort()
      .map(([bucket, n]) => `${bucket} ${n}`)
      .join(', ')}; ${restStats.routes.size} of ${restStats.total} routes reached`,
  );
  console.log(
    `REST refusals by code: ${Object.entries(restStats.byCode)
      .sort((a, b) => b[1] - a[1])
      .map(([code, n]) => `${code} ${n}`)
      .join(', ')}`,
  );
}
for (const result of failed) {
  console.log(`\n${result.name} failed (seed ${result.seed}); shrunk case:`);
  console.log(JSON.stringify(result.counterexample, null, 2));
  console.log(result.error);
}

mkdirSync(path.dirname(values.out), { recursive: true });
writeFileSync(
  values.out,
  `${JSON.stringify(
    {
      date: new Date().toISOString(),
      seed,
      cases,
      seconds: Math.round((Date.now() - started) / 100) / 10,
      machine: { cpus: os.cpus().length, node: process.version },
      targets: results,
      ingress: ingressStats ? { by_status: ingressStats.byStatus, refusals_by_code: ingressStats.byCode } : null,
      rest: restStats
        ? {
            by_status: restStats.byStatus,
            refusals_by_code: restStats.byCode,
            routes_reached: restStats.routes.size,
            routes: restStats.total,
            excluded: EXCLUDED_ROUTES,
          }
        : null,
    },
    null,
    2,
  )}\n`,
);
console.log(`results: ${path.relative(REPO, values.out)}`);
process.exit(failed.length > 0 ? 1 : 0);
