// Cached-dependency prepare: `sandbox.prepare` of a component importing an npm package once the
// package is in the cache, against bundling the same file with esbuild alone. The first prepare
// (which runs npm install) is reported separately. Needs the npm registry for the first prepare.
// Run: node bench/sandbox-cached-prepare.mjs [--n 50] [--warmup 3]
import console from 'node:console';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { bundleComponent } from '@tributary/runtime';
import { Sandbox } from '@tributary/sandbox';
import {
  COMPONENTS_DIR,
  measure,
  onInterrupt,
  printTable,
  ratioOf,
  round,
  summarize,
  temporaryCacheDir,
  writeResult,
} from './lib.mjs';

const NAME = 'sandbox-cached-prepare';
const TARGET_P99_MS = 50;
const { values: args } = parseArgs({
  options: { n: { type: 'string', default: '50' }, warmup: { type: 'string', default: '3' } },
});
const N = Number(args.n);
const WARMUP = Number(args.warmup);
const file = path.join(COMPONENTS_DIR, 'uses-ms.mjs');

const cache = temporaryCacheDir('prepare');
let sandbox = null;
onInterrupt(async () => {
  await sandbox?.close();
  cache.remove();
});

try {
  const progress = [];
  sandbox = new Sandbox({ cacheDir: cache.dir, onInstallProgress: (event) => progress.push(event.phase) });

  // Start esbuild's service first, so neither side pays for it.
  await bundleComponent({ file, packages: 'external' });

  const firstStarted = performance.now();
  const first = await sandbox.prepare(file);
  const firstMs = round(performance.now() - firstStarted);
  if (first.lock.ms !== '2.1.3')
    throw new Error(`expected ms@2.1.3 to be installed, got ${JSON.stringify(first.lock)}`);
  if (!progress.includes('installed'))
    throw new Error(`the first prepare did not install (progress: ${progress.join(', ')})`);
  console.log(`${NAME}: first prepare (npm install of ms@2.1.3) took ${firstMs.toFixed(1)} ms`);

  progress.length = 0;
  const cachedPrepare = async () => {
    const prepared = await sandbox.prepare(file);
    if (prepared.bundlePath !== first.bundlePath) throw new Error('a cached prepare produced a different bundle');
  };
  const esbuildOnly = () => bundleComponent({ file, packages: 'external' });
  // What a cached prepare does besides the scan: the second bundle, resolving into the package cache.
  const esbuildResolve = () => bundleComponent({ file, packageDir: first.packageDir });

  console.log(`${NAME}: ${WARMUP} warm-up + ${N} timed samples each way`);
  const ours = await measure(cachedPrepare, N, WARMUP);
  if (progress.some((phase) => phase !== 'cached'))
    throw new Error(`a warm prepare did not use the cache (progress: ${progress.join(', ')})`);
  const baseline = await measure(esbuildOnly, N, WARMUP);
  const resolveBundle = await measure(esbuildResolve, N, WARMUP);

  const s = summarize(ours);
  const b = summarize(baseline);
  const r = summarize(resolveBundle);
  const pass = s.p99Ms <= TARGET_P99_MS;
  printTable(`${NAME} (N=${N})`, [
    { metric: 'first prepare (npm install)', ours: firstMs },
    { metric: 'cached prepare p50', ours: s.p50Ms, baseline: b.p50Ms, ratio: ratioOf(s.p50Ms, b.p50Ms) },
    {
      metric: 'cached prepare p99',
      ours: s.p99Ms,
      baseline: b.p99Ms,
      ratio: ratioOf(s.p99Ms, b.p99Ms),
      target: `<= ${TARGET_P99_MS} ms`,
      pass,
    },
    { metric: 'cached prepare mean', ours: s.meanMs, baseline: b.meanMs, ratio: ratioOf(s.meanMs, b.meanMs) },
    {
      metric: '(diag) esbuild resolving into cache p50',
      ours: r.p50Ms,
      baseline: b.p50Ms,
      ratio: ratioOf(r.p50Ms, b.p50Ms),
    },
  ]);

  writeResult(NAME, {
    isolation: sandbox.isolation.layers,
    samples: { warmup: WARMUP, prepare: N, baseline: N },
    firstPrepare: { what: 'prepare with an empty cache: scan, npm install ms@2.1.3, bundle', ms: firstMs },
    results: { what: 'sandbox.prepare with the package cache warm', ...s },
    baseline: { what: "bundleComponent({ file, packages: 'external' }) (esbuild alone)", ...b },
    diagnostics: {
      esbuildResolve: {
        what: 'bundleComponent({ file, packageDir }) (the second bundle a cached prepare makes)',
        ...r,
      },
    },
    ratio: { p50: ratioOf(s.p50Ms, b.p50Ms), p99: ratioOf(s.p99Ms, b.p99Ms), mean: ratioOf(s.meanMs, b.meanMs) },
    target: { metric: 'p99Ms', maxMs: TARGET_P99_MS },
    pass,
  });
} finally {
  await sandbox?.close();
  cache.remove();
}
