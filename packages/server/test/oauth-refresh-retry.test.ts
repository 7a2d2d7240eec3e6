/**
 * A refresh that meets an outage at the provider (HTTP 503, a dropped connection, nothing
 * listening) is retried a bounded number of times with a growing wait, and the account stays as it
 * was; a refusal (`invalid_grant`) is not retried and marks the account "needs reconnect".
 * The token endpoint is a real server on loopback that fails the first N requests.
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackProvider, type LoopbackProvider } from '../../../tools/test-support/loopback-oauth-provider.js';
import { startHarness, type Harness } from './server-harness.js';

let provider: LoopbackProvider;
let h: Harness;

beforeAll(async () => {
  provider = await startLoopbackProvider();
  h = await startHarness({
    env: { TRIBUTARY_OAUTH_FLAKY_CLIENT_ID: 'flaky-client', TRIBUTARY_OAUTH_FLAKY_CLIENT_SECRET: 'flaky-secret' },
  });
  const put = await h.request('PUT', '/v1/apps/flaky', {
    body: {
      name: 'Flaky provider',
      auth_type: 'oauth2',
      fields: [],
      oauth: { authorize_url: `${provider.url}/authorize`, token_url: `${provider.url}/token` },
    },
  });
  expect(put.status).toBe(201);
});

afterAll(async () => {
  await h?.close({ remove: true });
  await provider?.close();
});

/** An account whose token expired, as a finished sign-in stores it. */
async function expiredAccount(refreshToken: string): Promise<string> {
  const row = await h.engine.accounts.saveOAuth({
    app: 'flaky',
    name: `Flaky ${refreshToken}`,
    tokens: {
      accessToken: 'old-access',
      refreshToken,
      expiresAt: Date.now() - 1000,
      scopes: [],
      subject: null,
    },
    uid: null,
    reconnect: null,
  });
  return row.id;
}

const credentials = (id: string): Promise<Record<string, Record<string, unknown>>> =>
  h.engine.accounts.credentialsFor({ flaky: { authProvisionId: id } });

async function status(id: string): Promise<string> {
  return (await h.request('GET', `/v1/accounts/${id}`)).body.data.status as string;
}

describe('refreshing through a provider outage', () => {
  it('retries a 503 and a dropped connection, then uses the token the provider gave', async () => {
    const id = await expiredAccount('refresh-a');
    const before = provider.tokenRequests.length;
    provider.script.push(
      { kind: 'unavailable' },
      { kind: 'drop' },
      { kind: 'token', accessToken: 'after-outage', refreshToken: 'refresh-a2' },
    );
    const auth = await credentials(id);
    expect(auth['flaky']?.['oauth_access_token']).toBe('after-outage');
    const asked = provider.tokenRequests.slice(before);
    expect(asked.map((request) => request.form['grant_type'])).toEqual([
      'refresh_token',
      'refresh_token',
      'refresh_token',
    ]);
    expect(asked.every((request) => request.form['refresh_token'] === 'refresh-a')).toBe(true);
    expect(await status(id)).toBe('ok');
    expect(h.logLines.join('\n')).toContain('token request 2 of 3 follows');
  });

  it('gives up after three attempts with OAUTH_PROVIDER_ERROR and leaves the account as it was', async () => {
    const id = await expiredAccount('refresh-b');
    const before = provider.tokenRequests.length;
    provider.script.push(
      { kind: 'unavailable' },
      { kind: 'unavailable' },
      { kind: 'unavailable' },
      { kind: 'unavailable' },
    );
    await expect(credentials(id)).rejects.toMatchObject({
      code: 'OAUTH_PROVIDER_ERROR',
      message: expect.stringContaining('HTTP 503'),
    });
    expect(provider.tokenRequests.length - before).toBe(3);
    expect(await status(id)).toBe('ok');
    // The outage is over: the next run refreshes with the refresh token the account still holds.
    provider.script.length = 0;
    provider.script.push({ kind: 'token', accessToken: 'later', refreshToken: 'refresh-b2' });
    expect((await credentials(id))['flaky']?.['oauth_access_token']).toBe('later');
    expect(provider.tokenRequests.at(-1)?.form['refresh_token']).toBe('refresh-b');
  });

  it('retries an OAuth error answered with HTTP 5xx, which is an outage and not a verdict', async () => {
    const id = await expiredAccount('refresh-c');
    const before = provider.tokenRequests.length;
    provider.script.push(
      { kind: 'oauth-error', status: 503, error: 'temporarily_unavailable' },
      { kind: 'token', accessToken: 'after-5xx' },
    );
    expect((await credentials(id))['flaky']?.['oauth_access_token']).toBe('after-5xx');
    expect(provider.tokenRequests.length - before).toBe(2);
  });

  it('does not retry invalid_grant: one request, and the account needs reconnecting', async () => {
    const id = await expiredAccount('refresh-d');
    const before = provider.tokenRequests.length;
    provider.script.push({ kind: 'oauth-error', status: 400, error: 'invalid_grant' });
    await expect(credentials(id)).rejects.toMatchObject({ code: 'ACCOUNT_NEEDS_RECONNECT' });
    expect(provider.tokenRequests.length - before).toBe(1);
    expect(await status(id)).toBe('needs_reconnect');
  });

  it('retries a token endpoint where nothing listens, then fails without touching the account', async () => {
    // A port that was free a moment ago: connections to it are refused.
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as { port: number };
        probe.close(() => resolve(free));
      });
    });
    const put = await h.request('PUT', '/v1/apps/flaky', {
      body: {
        name: 'Flaky provider',
        auth_type: 'oauth2',
        fields: [],
        oauth: { authorize_url: `${provider.url}/authorize`, token_url: `http://127.0.0.1:${port}/token` },
      },
    });
    expect(put.status).toBe(200);
    const id = await expiredAccount('refresh-e');
    const logged = h.logLines.length;
    await expect(credentials(id)).rejects.toMatchObject({
      code: 'OAUTH_PROVIDER_ERROR',
      message: expect.stringContaining('cannot be reached (ECONNREFUSED)'),
    });
    expect(h.logLines.slice(logged).filter((line) => line.includes('follows'))).toHaveLength(2);
    expect(await status(id)).toBe('ok');
  });
});
