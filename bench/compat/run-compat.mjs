// Compatibility report: for each published @pipedream/* package of packages.mjs, downloads it and
// measures, per component, whether it validates (our rules), loads (bundled with its relative
// imports, npm packages installed, evaluated in a sandbox worker), answers its async options, and
// runs end to end (scenarios.mjs: the local PostgreSQL, a local HTTP server, given props).
// Every failure gets a cause (classify.mjs). Writes results.md and results.json beside this file.
// Run: npm run bench:compat [-- --only helper_functions,postgresql] [--cache DIR]
import console from 'node:console';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { BUILTIN_APPS } from '@tributary/engine';
import { Sandbox } from '@tributary/sandbox';
import { classify } from './classify.mjs';
import { fetchPackage, findComponents } from './fetch-packages.mjs';
import { PACKAGES } from './packages.mjs';
import { renderMarkdown } from './render.mjs';
import { openScenarios } from './scenarios.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const { values: args } = parseArgs({
  options: {
    only: { type: 'string' },
    cache: { type: 'string', default: path.join(os.tmpdir(), 'tributary-compat-cache') },
    'no-write': { type: 'boolean', default: false },
    lanes: { type: 'string', default: '3' },
  },
});
const only = args.only ? new Set(args.only.split(',')) : null;
// The databases the runs talk to listen on this machine's loopback, which the default egress
// policy refuses (docs/isolation.md#network): allowed here as an operator would.
const sandbox = new Sandbox({
  cacheDir: args.cache,
  memoryMb: 512,
  egress: { mode: 'policy', allow: ['127.0.0.0/8', '::1'] },
});
const scenarios = await openScenarios();
const started = Date.now();
const selected = PACKAGES.filter((pkg) => !only || only.has(pkg.name.split('/')[1]));
const packages = new Array(selected.length);
// A few packages at a time: most of a SaaS package's time is its options() calls waiting on a
// network that is not there, which overlaps well.
let next = 0;
const lane = async () => {
  while (next < selected.length) {
    const index = next++;
    const pkg = selected[index];
    const short = pkg.name.split('/')[1];
    const root = fetchPackage(args.cache, pkg);
    const components = [];
    for (const found of findComponents(root)) {
      const id = `${short}/${found.kind}/${found.name}`;
      const record = await measure(id, found.file, scenarios.for(id, pkg));
      components.push(record);
      console.error(`${id}: ${line(record)}`);
    }
    packages[index] = { ...pkg, components };
  }
};
try {
  await Promise.all(Array.from({ length: Number(args.lanes) }, lane));
} finally {
  await sandbox.close();
  await scenarios.close();
}
const report = {
  date: new Date().toISOString(),
  node: process.version,
  seconds: (Date.now() - started) / 1000,
  packages,
};
if (!args['no-write']) {
  writeFileSync(path.join(HERE, 'results.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(path.join(HERE, 'results.md'), renderMarkdown(report));
}
console.log(renderMarkdown(report));

async function measure(id, file, scenario) {
  const record = { id, type: null, validates: false, loads: false, issues: [], options: [], run: null, failure: null };
  let handle;
  try {
    const prepared = await sandbox.prepare(file);
    handle = await sandbox.open(prepared, { key: id, purpose: 'publish' });
  } catch (error) {
    record.failure = { stage: 'load', message: error.message, ...classify(error.message, scenario.known('load')) };
    return record;
  }
  record.loads = true;
  record.issues = handle.loaded.issues.filter((issue) => issue.level === 'error');
  record.validates = record.issues.length === 0 && handle.loaded.info !== null;
  if (!record.validates) {
    const message = record.issues.map((issue) => `${issue.rule}: ${issue.message}`).join('; ');
    record.failure = { stage: 'validate', message, ...classify(message, scenario.known('validate')) };
    return record;
  }
  const info = handle.info;
  record.type = info.type;
  for (const prop of info.props.filter((candidate) => candidate.remoteOptions === true)) {
    record.options.push(await answerOptions(handle, prop.name, scenario));
  }
  record.run = await scenario.run(handle, info, appAuthOf(info.props));
  return record;
}

async function answerOptions(handle, prop, scenario) {
  try {
    const page = await handle.options({
      prop,
      configured: scenario.configured(),
      accounts: scenario.accounts(),
      appAuth: appAuthOf(handle.info.props),
      page: 0,
      timeoutMs: 5_000,
    });
    if (page.errors.length === 0) return { prop, ok: true, count: (page.options ?? page.stringOptions ?? []).length };
    const message = page.errors.join('; ');
    return { prop, ok: false, message, ...classify(message, scenario.known(`options:${prop}`, message)) };
  } catch (error) {
    const known = scenario.known(`options:${prop}`, error.message);
    return { prop, ok: false, message: error.message, ...classify(error.message, known) };
  }
}

/**
 * Apps that run without an account, as the server decides them from its built-in catalog
 * (AccountService.appAuthFor): `none` apps silently, apps it does not know with a warning.
 */
function appAuthOf(props) {
  const modes = {};
  for (const prop of props) {
    if (prop.type !== 'app' || typeof prop.app !== 'string') continue;
    const entry = BUILTIN_APPS.apps.find((app) => app.slug === prop.app);
    if (!entry) modes[prop.app] = 'unknown';
    else if (entry.auth_type === 'none') modes[prop.app] = 'none';
  }
  return modes;
}

function line(record) {
  const options = record.options.length
    ? ` options ${record.options.filter((o) => o.ok).length}/${record.options.length}`
    : '';
  const run = record.run
    ? ` run ${record.run.status}${record.run.cause ? ` (${record.run.cause}: ${record.run.message ?? record.run.note})` : ''}`
    : '';
  const failure = record.failure ? ` FAILED ${record.failure.stage}: ${record.failure.message}` : '';
  return `validates ${record.validates} loads ${record.loads}${options}${run}${failure}`;
}
