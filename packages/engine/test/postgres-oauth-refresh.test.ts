/**
 * Two engines on one PostgreSQL database (two server processes of a scale-out) refresh an
 * expiring OAuth token once between them: the refresh holds the account's row lock, and the
 * waiting engine sees the new expiry and uses the new token (issue 12). The provider is a real
 * OAuth 2 server on loopback (oauth2-mock-server) that counts refresh requests.
 */
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OAuth2Server } from 'oauth2-mock-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../tools/test-support/postgres.js';
import { bindingCookieName, Engine } from '../src/index.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'tributary-pg-oauth-'));
// Sandbox workers run as another user when tests run as root: they must reach the cache inside.
chmodSync(scratch, 0o755);
let database: TestDatabase;
let provider: OAuth2Server;
const engines: Engine[] = [];
let offset = 0;
let refreshes = 0;

async function engineOn(name: string): Promise<Engine> {
  const dataDir = path.join(scratch, name);
  // Processes sharing a database share the master key (deployment.md); the second gets the first's.
  mkdirSync(dataDir, { recursive: true });
  if (engines.length > 0) copyFileSync(path.join(scratch, 'a', 'master.key'), path.join(dataDir, 'master.key'));
  const engine = await Engine.create({
    dataDir,
    databaseUrl: database.url,
    cacheDir: path.join(scratch, `${name}-cache`),
    publicUrl: 'http://127.0.0.1:9',
    allowPrivateUrls: true,
    concurrency: 2,
    sourceTimeoutMs: 30_000,
    log: () => undefined,
    now: () => Date.now() + offset,
    env: { TRIBUTARY_OAUTH_MOCKIDP_CLIENT_ID: 'pg', TRIBUTARY_OAUTH_MOCKIDP_CLIENT_SECRET: 'pg-secret' },
  });
  engines.push(engine);
  return engine;
}

beforeAll(async () => {
  database = await createTestDatabase();
  provider = new OAuth2Server();
  await provider.issuer.keys.generate('RS256');
  await provider.start(0, '127.0.0.1');
  provider.service.on('beforeResponse', (_response, req) => {
    if ((req as unknown as { body: Record<string, string> }).body['grant_type'] === 'refresh_token') refreshes += 1;
  });
}, 60_000);

afterAll(async () => {
  for (const engine of engines) await engine.stop();
  await provider?.stop();
  await database?.drop();
  rmSync(scratch, { recursive: true, force: true });
});

describe('OAuth refresh on PostgreSQL', () => {
  it('refreshes once for concurrent runs in two engines, both getting the new token', async () => {
    const a = await engineOn('a');
    const b = await engineOn('b');
    const issuer = provider.issuer.url ?? '';
    await a.apps.put('mockidp', {
      name: 'Mock IdP',
      auth_type: 'oauth2',
      fields: [],
      oauth: { authorize_url: `${issuer}/authorize`, token_url: `${issuer}/token`, userinfo_url: null },
    });
    const { attempt, binding } = await a.oauth.start({ app: 'mockidp' });
    const atProvider = await fetch(await a.oauth.begin(attempt.state, binding ?? ''), { redirect: 'manual' });
    const back = new URL(atProvider.headers.get('location') ?? '');
    const done = await b.oauth.complete(back.searchParams, (name) =>
      name === bindingCookieName(attempt.state) ? (binding ?? undefined) : undefined,
    );
    expect(done.status).toBe('connected');
    const configured = { app: { authProvisionId: done.account ?? '' } };
    const before = await a.accounts.credentialsFor(configured);
    offset += 3_600_000;
    const runs = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).accounts.credentialsFor(configured)),
    );
    expect(refreshes).toBe(1);
    const tokens = new Set(runs.map((run) => run['app']?.['oauth_refresh_token']));
    expect(tokens.size).toBe(1);
    expect(tokens.has(before['app']?.['oauth_refresh_token'])).toBe(false);
  });
});
