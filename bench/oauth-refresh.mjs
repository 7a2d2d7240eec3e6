// OAuth refresh before a run (issue 12), against a local OAuth 2 provider (oauth2-mock-server):
// 1. the latency of an action run whose account's token must be refreshed first, against the same
//    run with a fresh token (the baseline), interleaved in one process;
// 2. 100 concurrent runs on one expiring account: how many refresh requests reach the provider
//    (target: exactly 1).
// Run: node bench/oauth-refresh.mjs [--n 40]
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { URL } from 'node:url';
import { parseArgs } from 'node:util';
import { bindingCookieName, Engine } from '@tributary/engine';
import { OAuth2Server } from 'oauth2-mock-server';
import {
  COMPONENTS_DIR,
  onInterrupt,
  printTable,
  ratioOf,
  round,
  summarize,
  temporaryCacheDir,
  writeResult,
} from './lib.mjs';

const NAME = 'oauth-refresh';
const { values: args } = parseArgs({ options: { n: { type: 'string', default: '40' } } });
const N = Number(args.n);
const CONCURRENT = 100;
const HOUR_MS = 3_600_000;

const data = temporaryCacheDir(`${NAME}-data`);
const cache = temporaryCacheDir(`${NAME}-cache`);
const provider = new OAuth2Server();
let engine;
const cleanup = async () => {
  await engine?.stop().catch(() => undefined);
  await provider.stop().catch(() => undefined);
  data.remove();
  cache.remove();
};
onInterrupt(cleanup);

try {
  await provider.issuer.keys.generate('RS256');
  await provider.start(0, '127.0.0.1');
  const refreshes = { count: 0 };
  provider.service.on('beforeResponse', (_response, req) => {
    if (req.body.grant_type === 'refresh_token') refreshes.count += 1;
  });
  const issuer = provider.issuer.url;
  let offset = 0;
  engine = await Engine.create({
    dataDir: data.dir,
    cacheDir: cache.dir,
    publicUrl: 'http://127.0.0.1:9',
    allowPrivateUrls: true,
    concurrency: 4,
    sourceTimeoutMs: 30_000,
    log: () => undefined,
    now: () => Date.now() + offset,
    env: { TRIBUTARY_OAUTH_MOCKIDP_CLIENT_ID: 'bench', TRIBUTARY_OAUTH_MOCKIDP_CLIENT_SECRET: 'bench-secret' },
  });
  await engine.apps.put('mockidp', {
    name: 'Mock IdP',
    auth_type: 'oauth2',
    fields: [],
    oauth: { authorize_url: `${issuer}/authorize`, token_url: `${issuer}/token`, userinfo_url: `${issuer}/userinfo` },
  });
  // Connect through the same calls the start page and callback make; the provider signs in at once.
  const { attempt, binding } = await engine.oauth.start({ app: 'mockidp' });
  const atProvider = await globalThis.fetch(await engine.oauth.begin(attempt.state, binding), { redirect: 'manual' });
  const back = new URL(atProvider.headers.get('location'));
  const done = await engine.oauth.complete(back.searchParams, (name) =>
    name === bindingCookieName(attempt.state) ? binding : undefined,
  );
  const account = done.account;
  const component = await engine.components.save({
    code: readFileSync(path.join(COMPONENTS_DIR, 'oauth-whoami-action.mjs'), 'utf8'),
  });
  const configured = { mockidp: { authProvisionId: account } };
  const run = async () => {
    const started = performance.now();
    const report = await engine.calls.runAction({ id: component.id, configured });
    if (!report.ok || typeof report.return_value !== 'number')
      throw new Error(`run failed: ${JSON.stringify(report.error ?? report.return_value)}`);
    return performance.now() - started;
  };
  for (let i = 0; i < 5; i += 1) await run();

  // Interleaved: a fresh-token run, then a run after the clock moved past the expiry.
  const fresh = [];
  const refreshed = [];
  const before = refreshes.count;
  for (let i = 0; i < N; i += 1) {
    fresh.push(await run());
    offset += HOUR_MS;
    refreshed.push(await run());
  }
  if (refreshes.count - before !== N)
    throw new Error(`expected ${N} refreshes, the provider saw ${refreshes.count - before}`);

  offset += HOUR_MS;
  const countBefore = refreshes.count;
  await Promise.all(Array.from({ length: CONCURRENT }, () => engine.accounts.credentialsFor(configured)));
  const concurrentRefreshes = refreshes.count - countBefore;

  const ours = summarize(refreshed);
  const baseline = summarize(fresh);
  const rows = [
    {
      metric: 'run p50, token refreshed first',
      ours: ours.p50Ms,
      baseline: baseline.p50Ms,
      ratio: ratioOf(ours.p50Ms, baseline.p50Ms),
    },
    {
      metric: 'run p99, token refreshed first',
      ours: ours.p99Ms,
      baseline: baseline.p99Ms,
      ratio: ratioOf(ours.p99Ms, baseline.p99Ms),
    },
    { metric: 'added latency p50', ours: round(ours.p50Ms - baseline.p50Ms) },
    {
      metric: `refreshes for ${CONCURRENT} concurrent runs`,
      ours: concurrentRefreshes,
      unit: 'count',
      target: 'exactly 1',
      pass: concurrentRefreshes === 1,
    },
  ];
  printTable(`${NAME} (n=${N}, local provider)`, rows);
  writeResult(NAME, {
    samples: N,
    refreshed: ours,
    fresh: baseline,
    addedLatencyP50Ms: round(ours.p50Ms - baseline.p50Ms),
    concurrentRuns: CONCURRENT,
    concurrentRefreshes,
    target: 'one refresh for 100 concurrent runs on one expiring account',
    pass: concurrentRefreshes === 1,
  });
} finally {
  await cleanup();
}
