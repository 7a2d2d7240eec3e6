// Shared helpers of the sandbox benchmarks: statistics, a temporary cache, the printed table and
// the JSON result file. Everything is plain Node so the scripts run with `node bench/<name>.mjs`.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import console from 'node:console';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

export const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
export const RESULTS_DIR = path.join(BENCH_DIR, 'results');
export const COMPONENTS_DIR = path.join(BENCH_DIR, 'components');

/** Nearest-rank percentile (p in 0..100) of unsorted samples. */
export function percentile(samples, p) {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1];
}

/** p50 / p90 / p99 / mean / min / max of samples in milliseconds, rounded to the microsecond. */
/** Runs `fn` `warmup` times unmeasured, then `n` times, and returns each run's duration in ms. */
export async function measure(fn, n, warmup) {
  for (let i = 0; i < warmup; i += 1) await fn();
  const samples = new Array(n);
  for (let i = 0; i < n; i += 1) {
    const started = performance.now();
    await fn();
    samples[i] = performance.now() - started;
  }
  return samples;
}

export function summarize(samples) {
  // Sorted once, without spreading (sample arrays of the server benchmarks hold 100k+ values).
  const sorted = Float64Array.from(samples).sort();
  const rank = (p) => sorted[Math.min(Math.max(1, Math.ceil((p / 100) * sorted.length)), sorted.length) - 1];
  let sum = 0;
  for (const value of sorted) sum += value;
  return {
    n: samples.length,
    p50Ms: round(rank(50)),
    p90Ms: round(rank(90)),
    p99Ms: round(rank(99)),
    meanMs: round(sum / samples.length),
    minMs: round(sorted[0]),
    maxMs: round(sorted[sorted.length - 1]),
  };
}

export function round(value, digits = 3) {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

export function ratioOf(ours, baseline) {
  return typeof ours === 'number' && typeof baseline === 'number' && baseline > 0 ? round(ours / baseline, 2) : null;
}

/** A private cache directory for one run, in the OS temp dir; `remove` deletes it. */
export function temporaryCacheDir(name) {
  const dir = mkdtempSync(path.join(os.tmpdir(), `tributary-bench-${name}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** 1-minute load average when the script started: other work on the machine skews the tails. */
const LOAD_AT_START = os.loadavg()[0];

export function machine() {
  return {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memory: `${Math.round(os.totalmem() / 1024 ** 3)} GB`,
    memoryBytes: os.totalmem(),
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    loadAverageAtStart: round(LOAD_AT_START, 2),
  };
}

export const sleep = (ms) => delay(ms);

/** Runs `fn` when the process gets SIGINT/SIGTERM, then exits (so a stopped run leaves no cache behind). */
export function onInterrupt(fn) {
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, async () => {
      try {
        await fn();
      } finally {
        process.exit(130);
      }
    });
  }
}

const formatMs = (value) => (typeof value === 'number' ? `${value.toFixed(3)} ms` : String(value ?? '—'));
/** A row's value in its unit: ms by default, `/s` for rates, `count` for plain numbers. */
const formatValue = (value, unit = 'ms') => {
  if (typeof value !== 'number') return String(value ?? '—');
  if (unit === '/s') return `${Math.round(value).toLocaleString('en-US')}/s`;
  if (unit === 'count') return value.toLocaleString('en-US');
  if (unit === 's') return `${value.toFixed(1)} s`;
  return formatMs(value);
};
const formatRatio = (value) => (typeof value === 'number' ? `${value.toFixed(2)}×` : '—');

/**
 * Prints rows of { metric, ours, baseline, ratio, target, pass, unit? } as an aligned table. `pass`
 * is true/false for rows that carry the target, undefined for informational rows; `unit` is 'ms'
 * (default), '/s' (a rate), 's' or 'count'.
 */
export function printTable(title, rows) {
  const header = ['metric', 'ours', 'baseline', 'ratio', 'target', 'pass/fail'];
  const cells = rows.map((row) => [
    row.metric,
    formatValue(row.ours, row.unit),
    formatValue(row.baseline, row.unit),
    formatRatio(row.ratio),
    row.target ?? '',
    row.pass === undefined ? '' : row.pass ? 'PASS' : 'FAIL',
  ]);
  const widths = header.map((_, column) =>
    Math.max(header[column].length, ...cells.map((cell) => cell[column].length)),
  );
  const line = (cell) => cell.map((text, column) => text.padEnd(widths[column])).join('  ');
  console.log(`\n${title}`);
  console.log(line(header));
  console.log(widths.map((width) => '-'.repeat(width)).join('  '));
  for (const cell of cells) console.log(line(cell));
  console.log('');
}

/** Writes bench/results/<name>.json and returns its path. */
export function writeResult(name, data) {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `${name}.json`);
  const body = {
    name,
    date: new Date().toISOString(),
    node: process.version,
    machine: machine(),
    ...data,
  };
  writeFileSync(file, `${JSON.stringify(body, null, 2)}\n`);
  console.log(`wrote ${path.relative(process.cwd(), file)}`);
  return file;
}
