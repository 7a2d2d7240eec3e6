// Registry import of npm packages of components: `engine.registry.add(spec)` (fetch, bundle each
// component, install its npm packages, validate it in a sandbox worker, publish in one
// transaction) against `npm install <spec>` of the same package in a temporary folder, in the same
// run. Cold: an empty Tributary cache and an empty npm cache on both sides. Warm: an empty registry
// (a new data directory) but the caches of the cold run, on both sides. Needs the npm registry.
// Run: node bench/registry-import.mjs [--packages @pipedream/helper_functions@0.3.13,@pipedream/postgresql@2.2.4]
import { execFileSync } from 'node:child_process';
import console from 'node:console';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { parseArgs } from 'node:util';
import { Engine } from '@tributary/engine';
import { onInterrupt, printTable, ratioOf, round, writeResult } from './lib.mjs';

const NAME = 'registry-import';
const TARGET_RATIO = 1.5;
const { values: args } = parseArgs({
  options: {
    packages: { type: 'string', default: '@pipedream/helper_functions@0.3.13,@pipedream/postgresql@2.2.4' },
  },
});
const SPECS = args.packages.split(',').filter(Boolean);

const scratch = mkdtempSync(path.join(os.tmpdir(), 'tributary-bench-registry-'));
// Sandbox workers run as another user when this runs as root: they must reach the cache.
chmodSync(scratch, 0o755);
onInterrupt(() => rmSync(scratch, { recursive: true, force: true }));

/** `npm install` of one package into a new folder with this npm cache; seconds. */
function npmInstall(spec, npmCache) {
  const dir = mkdtempSync(path.join(scratch, 'npm-'));
  writeFileSync(path.join(dir, 'package.json'), '{"private":true}\n');
  const started = performance.now();
  execFileSync(
    'npm',
    ['install', spec, '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error', '--cache', npmCache],
    { cwd: dir, stdio: 'ignore' },
  );
  return round((performance.now() - started) / 1000, 2);
}

/** One import into an empty registry with this Tributary cache and npm cache; seconds and the report. */
async function importOnce(spec, cacheDir, npmCache) {
  // The sandbox's installer runs the npm CLI, which takes its cache from the environment.
  process.env.npm_config_cache = npmCache;
  const engine = await Engine.create({
    dataDir: mkdtempSync(path.join(scratch, 'data-')),
    cacheDir,
    publicUrl: 'http://bench.invalid',
    allowPrivateUrls: false,
    concurrency: 2,
    sourceTimeoutMs: 30_000,
    log: () => {},
  });
  try {
    const started = performance.now();
    const report = await engine.registry.add(spec);
    return { seconds: round((performance.now() - started) / 1000, 2), report };
  } finally {
    await engine.stop();
  }
}

try {
  const rows = [];
  const results = {};
  let pass = true;
  for (const spec of SPECS) {
    const npmCache = path.join(scratch, `npm-cache-${Object.keys(results).length}`);
    const cacheDir = path.join(scratch, `cache-${Object.keys(results).length}`);
    mkdirSync(cacheDir, { mode: 0o755 });
    console.log(`${NAME}: ${spec}: npm install, cold`);
    const npmCold = npmInstall(spec, npmCache);
    console.log(`${NAME}: ${spec}: import, cold`);
    // Its own npm cache: npm's warm cache from the baseline above must not help the import.
    const cold = await importOnce(spec, cacheDir, `${npmCache}-import`);
    console.log(`${NAME}: ${spec}: import, warm`);
    const warm = await importOnce(spec, cacheDir, `${npmCache}-import`);
    console.log(`${NAME}: ${spec}: npm install, warm`);
    const npmWarm = npmInstall(spec, npmCache);
    const coldRatio = ratioOf(cold.seconds, npmCold);
    const specPass = coldRatio !== null && coldRatio <= TARGET_RATIO;
    pass &&= specPass;
    const counts = `${cold.report.published.length} published, ${cold.report.skipped.length} skipped`;
    rows.push(
      {
        metric: `${spec} cold (${counts})`,
        ours: cold.seconds,
        baseline: npmCold,
        ratio: coldRatio,
        target: `<= ${TARGET_RATIO}x npm install`,
        pass: specPass,
        unit: 's',
      },
      {
        metric: `${spec} warm`,
        ours: warm.seconds,
        baseline: npmWarm,
        ratio: ratioOf(warm.seconds, npmWarm),
        unit: 's',
      },
    );
    results[spec] = {
      package: `${cold.report.package}@${cold.report.version}`,
      published: cold.report.published.length,
      skipped: cold.report.skipped.map((entry) => ({ file: entry.file, code: entry.code, rule: entry.rule })),
      coldSeconds: cold.seconds,
      warmSeconds: warm.seconds,
      warmReportPublished: warm.report.published.length,
      npmInstallColdSeconds: npmCold,
      npmInstallWarmSeconds: npmWarm,
      ratioCold: coldRatio,
      ratioWarm: ratioOf(warm.seconds, npmWarm),
      pass: specPass,
    };
  }
  printTable(`${NAME}`, rows);
  writeResult(NAME, {
    what: 'engine.registry.add(spec) into an empty registry; cold = empty Tributary and npm caches, warm = caches of the cold run',
    baseline:
      'npm install <spec> --ignore-scripts in an empty folder; cold = empty npm cache, warm = the same cache again',
    results,
    target: { metric: 'cold import / cold npm install', max: TARGET_RATIO },
    pass,
  });
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
