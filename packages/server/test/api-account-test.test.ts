/**
 * `POST /v1/accounts/{id}/test` ("Test connection"): the app's "who am I" request with the
 * account's credentials when the catalog has one (a Bearer token, or the headers the entry names),
 * else a token refresh; ok, needs_reconnect or error with its code, never a credential in the answer.
 * The provider and its API are a real server on loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackProvider, type LoopbackProvider } from '../../../tools/test-support/loopback-oauth-provider.js';
import { startHarness, type Harness } from './server-harness.js';

let provider: LoopbackProvider;
let h: Harness;

beforeAll(async () => {
  provider = await startLoopbackProvider();
  h = await startHarness({
    env: {
      TRIBUTARY_OAUTH_WHOAPI_CLIENT_ID: 'who-client',
      TRIBUTARY_OAUTH_WHOAPI_CLIENT_SECRET: 'who-secret',
      TRIBUTARY_OAUTH_NOREQUEST_CLIENT_ID: 'plain-client',
      TRIBUTARY_OAUTH_NOREQUEST_CLIENT_SECRET: 'plain-secret',
    },
  });
  const oauth = { authorize_url: `${provider.url}/authorize`, token_url: `${provider.url}/token` };
  const apps: Record<string, unknown> = {
    whoapi: {
      name: 'Who API',
      auth_type: 'oauth2',
      fields: [],
      oauth,
      test_request: { method: 'GET', url: `${provider.url}/whoami` },
    },
    norequest: { name: 'No test request', auth_type: 'oauth2', fields: [], oauth },
    keyapi: {
      name: 'Key API',
      auth_type: 'keys',
      fields: [{ name: 'api_key', label: 'API key', secret: true }],
      test_request: { method: 'GET', url: `${provider.url}/whoami`, headers: { 'X-Api-Key': '{{api_key}}' } },
    },
  };
  for (const [slug, body] of Object.entries(apps))
    expect((await h.request('PUT', `/v1/apps/${slug}`, { body })).status).toBe(201);
});

afterAll(async () => {
  await h?.close({ remove: true });
  await provider?.close();
});

async function oauthAccount(app: string, accessToken: string, refreshToken: string | null): Promise<string> {
  const row = await h.engine.accounts.saveOAuth({
    app,
    name: `${app} account`,
    tokens: { accessToken, refreshToken, expiresAt: Date.now() + 3_600_000, scopes: [], subject: null },
    uid: null,
    reconnect: null,
  });
  return row.id;
}

const test = async (id: string): Promise<{ status: number; data: Record<string, unknown> }> => {
  const answer = await h.request('POST', `/v1/accounts/${id}/test`);
  return { status: answer.status, data: answer.body.data ?? answer.body.error };
};

describe('testing a connected account', () => {
  it("sends the app's test request with the OAuth token as a Bearer token", async () => {
    const id = await oauthAccount('whoapi', 'good-token', 'refresh-1');
    provider.accepted = 'good-token';
    const ok = await test(id);
    expect(ok.status).toBe(200);
    expect(ok.data).toMatchObject({
      account: id,
      app: 'whoapi',
      status: 'ok',
      checked: 'test_request',
      http_status: 200,
      error: null,
    });
    expect(typeof ok.data['tested_at']).toBe('number');
  });

  it('reports a token the API refuses as ACCOUNT_TEST_FAILED with the HTTP status, without the token', async () => {
    const id = await oauthAccount('whoapi', 'stale-token', null);
    provider.accepted = 'another-token';
    const refused = await test(id);
    expect(refused.status).toBe(200);
    expect(refused.data).toMatchObject({
      status: 'error',
      checked: 'test_request',
      http_status: 401,
      error: { code: 'ACCOUNT_TEST_FAILED', message: expect.stringContaining('answered HTTP 401') },
    });
    expect(JSON.stringify(refused.data)).not.toContain('stale-token');
  });

  it('refreshes the token of an app without a test request, and reports a refused refresh as needs_reconnect', async () => {
    const id = await oauthAccount('norequest', 'access-0', 'refresh-ok');
    const before = provider.tokenRequests.length;
    const ok = await test(id);
    expect(ok.data).toMatchObject({ status: 'ok', checked: 'refresh', http_status: null, error: null });
    expect(provider.tokenRequests.slice(before).map((request) => request.form['grant_type'])).toEqual([
      'refresh_token',
    ]);
    provider.script.push({ kind: 'oauth-error', status: 400, error: 'invalid_grant' });
    const refused = await test(id);
    expect(refused.data).toMatchObject({
      status: 'needs_reconnect',
      checked: 'refresh',
      error: { code: 'ACCOUNT_NEEDS_RECONNECT', message: expect.stringContaining(id) },
    });
    expect((await h.request('GET', `/v1/accounts/${id}`)).body.data.status).toBe('needs_reconnect');
    // Testing again does not ask the provider: the account needs a reconnect first.
    const asked = provider.tokenRequests.length;
    expect((await test(id)).data).toMatchObject({ status: 'needs_reconnect', checked: 'none' });
    expect(provider.tokenRequests.length).toBe(asked);
  });

  it('says a pasted token without a test request or refresh token could not be checked', async () => {
    const id = await oauthAccount('norequest', 'pasted', null);
    expect((await test(id)).data).toMatchObject({ status: 'ok', checked: 'none', error: null });
  });

  it("fills the catalog's headers with a key-based account's fields", async () => {
    const created = await h.request('POST', '/v1/accounts', {
      body: { app: 'keyapi', fields: { api_key: 'key-123' } },
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    provider.accepted = 'key-123';
    expect((await test(id)).data).toMatchObject({ status: 'ok', checked: 'test_request', http_status: 200 });
    provider.accepted = 'key-456';
    const refused = await test(id);
    expect(refused.data).toMatchObject({ status: 'error', http_status: 401, error: { code: 'ACCOUNT_TEST_FAILED' } });
    expect(JSON.stringify(refused.data)).not.toContain('key-123');
    expect(h.logLines.join('\n')).not.toContain('key-123');
  });

  it('answers 404 NOT_FOUND for an unknown account', async () => {
    const missing = await test('apn_missing0000');
    expect(missing.status).toBe(404);
    expect(missing.data).toMatchObject({ code: 'NOT_FOUND' });
  });
});
