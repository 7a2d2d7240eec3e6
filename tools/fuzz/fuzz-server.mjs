// The server the REST fuzz target drives: a real Engine on a fresh data directory (SQLite file,
// sandbox workers) and the Fastify app on 127.0.0.1. The engine is not started: no queue runner,
// timer or delivery writes in the background, so any change to the database between two requests
// is the second request's doing. Seeded with two sources (one with an HTTP endpoint), a published
// component, two actions, a workflow and a second API key, whose ids the generated requests use.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, URL } from 'node:url';
import { Engine, MemoryRateLimiter } from '@tributary/engine';
import { createServer } from '@tributary/server';
import { send } from './rest-target.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FIXTURES = path.join(REPO, 'fixtures/components');

/** better-sqlite3 is the engine's dependency: a read-only connection of our own to its file. */
function openReadOnly(file) {
  const require = createRequire(path.join(REPO, 'packages/engine/package.json'));
  const Database = require('better-sqlite3');
  return new Database(file, { readonly: true });
}

const fixture = (name) => readFileSync(path.join(FIXTURES, name), 'utf8');

/** Code a generated body may carry: sources, an action, a hook that refuses, and broken text. */
export function fuzzCodes() {
  return [
    fixture('f02-counter.mjs'),
    fixture('f17-sum.mjs'),
    fixture('f13-hooks.mjs'),
    fixture('lifecycle/refuse-hook.mjs'),
    fixture('x01-bad-type.mjs'),
    'export default {',
    'module.exports = 1; export default 2;',
  ];
}

async function call(base, key, method, urlPath, body) {
  const answer = await send(base, {
    method,
    path: urlPath,
    headers: { authorization: `Bearer ${key}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body), contentType: 'application/json' }),
  });
  if (answer.status >= 300) throw new Error(`seeding: ${method} ${urlPath} answered ${answer.status}: ${answer.text}`);
  return JSON.parse(answer.text).data;
}

export async function startFuzzServer() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tributary-fuzz-data-'));
  const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'tributary-fuzz-cache-'));
  const engine = await Engine.create({
    dataDir,
    cacheDir,
    publicUrl: 'http://tributary.test',
    allowPrivateUrls: false,
    concurrency: 2,
    sourceTimeoutMs: 10_000,
    log: () => {},
    // Unlimited: the ingress target sends as fast as it can, and must reach the source, not the limiter.
    endpointLimiter: new MemoryRateLimiter({ limit: { ratePerSecond: 0, burst: 0 } }),
  });
  const key = (await engine.apiKeys.create('fuzz')).key;
  const app = await createServer({ engine, version: '0.0.0-fuzz', log: () => {}, apiBodyLimitBytes: 256 * 1024 });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });

  const source = await call(base, key, 'POST', '/v1/sources', {
    component_code: fixture('f02-counter.mjs'),
    name: 'seed',
  });
  const capture = await call(base, key, 'POST', '/v1/sources', {
    component_code: fixture('server/http-capture.mjs'),
    name: 'capture',
  });
  const published = await call(base, key, 'PUT', '/v1/components/fx-counter', {
    component_code: fixture('f02-counter.mjs'),
  });
  const action = await call(base, key, 'POST', '/v1/components', { component_code: fixture('f17-sum.mjs') });
  const inputs = await call(base, key, 'POST', '/v1/components', { component_code: fixture('f14-inputs.mjs') });
  const other = await call(base, key, 'POST', '/v1/api_keys', { name: 'other' });
  const workflow = await call(base, key, 'POST', '/v1/workflows', {
    name: 'seed flow',
    trigger: { type: 'http' },
    steps: [{ name: 'sum', action: action.id, props: { a: 1, b: 2 } }],
  }).catch(() => null);
  const known = [
    source.id,
    source.name_slug,
    published.id,
    'fx-counter',
    action.id,
    inputs.id,
    other.id,
    'acme',
    'github',
    ...(workflow ? [workflow.id, 'sum'] : []),
  ];
  const db = openReadOnly(path.join(dataDir, 'tributary.db'));
  return {
    base,
    key,
    db,
    known,
    /** The seeded ids by what they are (the bad-input corpus names them in its paths and bodies). */
    ids: {
      source: source.id,
      sourceSlug: source.name_slug,
      component: published.id,
      action: action.id,
      inputs: inputs.id,
      apiKey: other.id,
      workflow: workflow?.id ?? null,
      httpSource: capture.id,
      endpoint: new URL(capture.endpoint_url).pathname,
      key,
    },
    codes: fuzzCodes(),
    close: async () => {
      db.close();
      await app.close();
      await engine.stop();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(cacheDir, { recursive: true, force: true });
    },
  };
}
