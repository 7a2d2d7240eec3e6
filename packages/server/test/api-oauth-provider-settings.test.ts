/**
 * What a catalog entry tells the sign-in beyond its endpoints (docs/accounts.md): extra sign-in
 * parameters (Google's `access_type=offline`), a token endpoint that takes the client secret as
 * HTTP Basic only, and connect attempts that do not pile up (expired ones are purged when a new one
 * starts). Against a real provider on loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackProvider, type LoopbackProvider } from '../../../tools/test-support/loopback-oauth-provider.js';
import { PUBLIC_URL, readRows, startHarness, type Harness } from './server-harness.js';

let provider: LoopbackProvider;
let h: Harness;
let clockOffset = 0;

beforeAll(async () => {
  provider = await startLoopbackProvider();
  h = await startHarness({
    now: () => Date.now() + clockOffset,
    env: { TRIBUTARY_OAUTH_BASICIDP_CLIENT_ID: 'basic-client', TRIBUTARY_OAUTH_BASICIDP_CLIENT_SECRET: 'basic-secret' },
  });
  const put = await h.request('PUT', '/v1/apps/basicidp', {
    body: {
      name: 'Basic IdP',
      auth_type: 'oauth2',
      fields: [],
      oauth: {
        authorize_url: `${provider.url}/authorize`,
        token_url: `${provider.url}/token`,
        scopes: ['read', 'write'],
        scope_delimiter: ',',
        authorize_params: { access_type: 'offline', prompt: 'consent', state: 'not-ours' },
        token_auth: 'client_secret_basic',
      },
    },
  });
  expect(put.status).toBe(201);
});

afterAll(async () => {
  await h?.close({ remove: true });
  await provider?.close();
});

const local = (url: string): string => url.replace(PUBLIC_URL, h.base);

async function start(): Promise<{ state: string; start_url: string }> {
  const started = await h.request('POST', '/v1/oauth/connect', { body: { app: 'basicidp' } });
  expect(started.status).toBe(201);
  return started.body.data as { state: string; start_url: string };
}

describe('provider settings of a catalog entry', () => {
  it('signs in with the extra parameters and trades the code with HTTP Basic client authentication', async () => {
    const attempt = await start();
    const opened = await fetch(local(attempt.start_url), { redirect: 'manual' });
    const cookie = (opened.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const authorize = new URL(opened.headers.get('location') ?? '');
    expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
      access_type: 'offline',
      prompt: 'consent',
      scope: 'read,write',
      // The protocol's own parameters win over an entry's.
      state: attempt.state,
      response_type: 'code',
    });
    const atProvider = await fetch(authorize, { redirect: 'manual' });
    const back = await fetch(local(atProvider.headers.get('location') ?? ''), { headers: { cookie } });
    expect(back.status).toBe(200);
    const exchange = provider.tokenRequests.at(-1);
    expect(exchange?.form['grant_type']).toBe('authorization_code');
    expect(exchange?.form['client_secret']).toBeUndefined();
    // RFC 6749 2.3.1: the id and the secret are form-encoded, then joined and base64-encoded.
    const basic = Buffer.from((exchange?.authorization ?? '').replace(/^Basic /, ''), 'base64').toString('utf8');
    expect(basic.split(':').map(decodeURIComponent)).toEqual(['basic-client', 'basic-secret']);
    const done = await h.request('GET', `/v1/oauth/connect/${attempt.state}`);
    expect(done.body.data).toMatchObject({ status: 'connected', account: expect.stringMatching(/^apn_/) });
  });

  it('purges attempts that expired more than ten minutes ago when a new one starts', async () => {
    const old = await start();
    const count = (): number =>
      readRows<{ n: number }>(h.dbFile, 'SELECT count(*) AS n FROM oauth_attempts')[0]?.n ?? 0;
    const before = count();
    // Expired (10 minutes) but within the next 10: a late poll can still read how it ended.
    clockOffset += 15 * 60_000;
    await start();
    expect((await h.request('GET', `/v1/oauth/connect/${old.state}`)).status).toBe(200);
    expect(count()).toBe(before + 1);
    clockOffset += 10 * 60_000;
    const fresh = await start();
    expect((await h.request('GET', `/v1/oauth/connect/${old.state}`)).status).toBe(404);
    expect((await h.request('GET', `/v1/oauth/connect/${fresh.state}`)).body.data.status).toBe('pending');
    // Every attempt but the last two (started 10 and 0 minutes ago) is gone.
    expect(count()).toBe(2);
  });
});
