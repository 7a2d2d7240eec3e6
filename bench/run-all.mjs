// Runs the three sandbox benchmarks in sequence, then writes bench/results/summary.md: one Markdown
// table of every figure, built from the JSON results (ready to paste into the README).
// Run: node bench/run-all.mjs            (all three, then the summary)
//      node bench/run-all.mjs --summary  (only rebuild summary.md from the existing JSON files)
import { spawnSync } from 'node:child_process';
import console from 'node:console';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { BENCH_DIR, RESULTS_DIR } from './lib.mjs';

const BENCHMARKS = ['sandbox-warm-invocation', 'sandbox-cold-start', 'sandbox-cached-prepare'];
const summaryOnly = process.argv.includes('--summary');

const failures = [];
if (!summaryOnly) {
  for (const name of BENCHMARKS) {
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
const times = (value) => (typeof value === 'number' ? `${value.toFixed(2)}×` : '—');
const verdict = (pass) => (pass === undefined ? '' : pass ? '✅ pass' : '❌ fail');

function rowsOf(name, result) {
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
    default:
      return [];
  }
}

const BASELINES = {
  'sandbox-warm-invocation': 'in-process `resolveProps` + `invokeComponent` (N=2000, 100 warm-up)',
  'sandbox-cold-start': 'spawn bare `node -e "process.send(\'ready\')"` with IPC (30 samples)',
  'sandbox-cached-prepare': "esbuild alone: `bundleComponent({ packages: 'external' })` (50 samples)",
};

const results = BENCHMARKS.map((name) => [name, read(name)]);
const first = results.find(([, result]) => result)?.[1];
const lines = [];
lines.push('# Sandbox benchmarks');
lines.push('');
if (first) {
  const active = first.isolation.filter((layer) => layer.active).map((layer) => layer.name);
  const missing = first.isolation.filter((layer) => !layer.active).map((layer) => layer.name);
  lines.push(
    `Measured ${first.date.slice(0, 10)} on ${first.machine.cpus} CPUs (${first.machine.cpuModel}), ${first.machine.memory} RAM, Node ${first.node}, ${first.machine.platform}.`,
  );
  const loads = results
    .filter(([, result]) => result)
    .map(([name, result]) => `${result.machine.loadAverageAtStart ?? '?'} (${name})`);
  lines.push(`1-minute load average when each script started: ${loads.join(', ')}.`);
  lines.push(
    `Isolation layers active: ${active.join(', ')}${missing.length ? `; missing: ${missing.join(', ')}` : ''}.`,
  );
  lines.push('');
}
lines.push('| benchmark | metric | ours | baseline | ratio | target | result |');
lines.push('| --- | --- | ---: | ---: | ---: | --- | --- |');
for (const [name, result] of results) {
  if (!result) {
    lines.push(`| ${name} | _not run_ | | | | | |`);
    continue;
  }
  for (const [metric, ours, baseline, ratio, target, pass] of rowsOf(name, result)) {
    lines.push(
      `| ${name} | ${metric} | ${ms(ours)} | ${ms(baseline)} | ${times(ratio)} | ${target ?? ''} | ${verdict(pass)} |`,
    );
  }
}
lines.push('');
lines.push('Baselines:');
lines.push('');
for (const name of BENCHMARKS) lines.push(`- **${name}**: ${BASELINES[name]}.`);
lines.push('');
lines.push(
  'p99 of 30 or 50 samples is the maximum or close to it. Rows marked “diag” break a figure down and carry no target. Run `node bench/run-all.mjs` to regenerate; see bench/README.md.',
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
