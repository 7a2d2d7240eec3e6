/**
 * OAuth 2 connect and refresh over the REST API and the browser pages (issue 12), against a real
 * OAuth 2 / OpenID provider on loopback (oauth2-mock-server): PKCE code flow to a stored account,
 * refresh before a run with one refresh for many concurrent runs, a revoked refresh token marking
 * the account "needs reconnect" until a reconnect, and every bad input refused with nothing stored.
 */
import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { OAuth2Server } from 'oauth2-mock-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, PUBLIC_URL, queueIdle, startHarness, type Harness } from './server-harness.js';

const CLIENT_ID = 'tributary-test-client';
const CLIENT_SECRET = 'client-secret-0123456789';
let provider: OAuth2Server;
let htmlProvider: Server;
let h: Harness;
let clockOffset = 0;
const grants: string[] = [];
const issuedTokens: string[] = [];
/** Refresh tokens the provider no longer accepts (revoked by the user at the provider). */
const revoked = new Set<string>();

beforeAll(async () => {
  provider = new OAuth2Server();
  await provider.issuer.keys.generate('RS256');
  await provider.start(0, '127.0.0.1');
  provider.service.on('beforeResponse', (response: { body: Record<string, unknown>; statusCode: number }, req) => {
    const body = (req as unknown as { body: Record<string, string> }).body;
    grants.push(body['grant_type'] ?? '');
    if (body['client_secret'] !== CLIENT_SECRET) {
      response.statusCode = 401;
      response.body = { error: 'invalid_client', error_description: 'client authentication failed' };
      return;
    }
    if (body['grant_type'] === 'refresh_token' && revoked.has(body['refresh_token'] ?? '')) {
      response.statusCode = 400;
      response.body = { error: 'invalid_grant', error_description: 'refresh token revoked' };
      return;
    }
    for (const key of ['access_token', 'refresh_token'])
      if (typeof response.body[key] === 'string') issuedTokens.push(response.body[key]);
  });
  // A "provider" whose token endpoint answers with an HTML page (a proxy's error page, a login wall).
  htmlProvider = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Sign in to continue</body></html>');
  });
  await new Promise<void>((resolve) => htmlProvider.listen(0, '127.0.0.1', resolve));
  h = await startHarness({
    now: () => Date.now() + clockOffset,
    env: {
      TRIBUTARY_OAUTH_MOCKIDP_CLIENT_ID: CLIENT_ID,
      TRIBUTARY_OAUTH_MOCKIDP_CLIENT_SECRET: CLIENT_SECRET,
      TRIBUTARY_OAUTH_HTMLIDP_CLIENT_ID: CLIENT_ID,
      TRIBUTARY_OAUTH_HTMLIDP_CLIENT_SECRET: CLIENT_SECRET,
      TRIBUTARY_OAUTH_CCIDP_CLIENT_ID: CLIENT_ID,
      TRIBUTARY_OAUTH_CCIDP_CLIENT_SECRET: CLIENT_SECRET,
    },
  });
  const issuer = provider.issuer.url ?? '';
  const oauthApp = (tokenUrl: string): Record<string, unknown> => ({
    name: 'Mock IdP',
    auth_type: 'oauth2',
    fields: [],
    oauth: {
      authorize_url: `${issuer}/authorize`,
      token_url: tokenUrl,
      userinfo_url: `${issuer}/userinfo`,
      issuer,
      scopes: ['openid', 'profile'],
    },
  });
  for (const [slug, tokenUrl] of [
    ['mockidp', `${issuer}/token`],
    ['nosecret', `${issuer}/token`],
    ['htmlidp', `http://127.0.0.1:${(htmlProvider.address() as { port: number }).port}/token`],
  ] as const) {
    const put = await h.request('PUT', `/v1/apps/${slug}`, { body: oauthApp(tokenUrl) });
    expect(put.status).toBe(201);
  }
});

afterAll(async () => {
  await h?.close({ remove: true });
  await provider?.stop();
  htmlProvider?.close();
});

/** The server's public URL is a placeholder: requests to it go to the harness. */
const local = (url: string): string => url.replace(PUBLIC_URL, h.base);

interface Browser {
  readonly callbackUrl: string;
  readonly cookie: string;
  readonly state: string;
}

/** What a browser does: open the start URL (keeping its cookie), follow the provider's sign-in redirect. */
async function signIn(app: string, extra: Record<string, string> = {}): Promise<Browser> {
  const started = await h.request('POST', '/v1/oauth/connect', { body: { app, ...extra } });
  expect(started.status).toBe(201);
  const attempt = started.body.data as { state: string; start_url: string; redirect_uri: string };
  expect(attempt.redirect_uri).toBe(`${PUBLIC_URL}/v1/oauth/callback`);
  const start = await fetch(local(attempt.start_url), { redirect: 'manual' });
  expect(start.status).toBe(302);
  const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const authorize = new URL(start.headers.get('location') ?? '');
  expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
  expect(authorize.searchParams.get('state')).toBe(attempt.state);
  const atProvider = await fetch(authorize, { redirect: 'manual' });
  expect(atProvider.status).toBe(302);
  return { callbackUrl: local(atProvider.headers.get('location') ?? ''), cookie, state: attempt.state };
}

async function callback(browser: Browser, url = browser.callbackUrl): Promise<{ status: number; html: string }> {
  const response = await fetch(url, { headers: { cookie: browser.cookie } });
  return { status: response.status, html: await response.text() };
}

async function accountCount(): Promise<number> {
  return (await h.request('GET', '/v1/accounts?limit=100')).body.page_info.total_count as number;
}

async function connect(extra: Record<string, string> = {}): Promise<string> {
  const browser = await signIn('mockidp', extra);
  const page = await callback(browser);
  expect(page.status).toBe(200);
  const attempt = await h.request('GET', `/v1/oauth/connect/${browser.state}`);
  expect(attempt.body.data.status).toBe('connected');
  return attempt.body.data.account as string;
}

describe('connecting through OAuth', () => {
  it('runs the PKCE code flow to an account with the $auth fields, tokens sealed and never shown', async () => {
    const before = await accountCount();
    const id = await connect();
    expect(await accountCount()).toBe(before + 1);
    const shown = await h.request('GET', `/v1/accounts/${id}`);
    expect(shown.body.data).toMatchObject({
      app: 'mockidp',
      status: 'ok',
      fields: { oauth_access_token: '[REDACTED]', oauth_refresh_token: '[REDACTED]', oauth_uid: 'johndoe' },
      // The scopes the provider says it granted (this one grants `dummy` whatever was asked).
      oauth: { uid: 'johndoe', scopes: ['dummy'] },
    });
    expect(shown.body.data.oauth.expires_at).toBeGreaterThan(Date.now() / 1000 + 3000);
    const auth = await h.engine.accounts.credentialsFor({ app: { authProvisionId: id } });
    expect(auth['app']).toMatchObject({ oauth_uid: 'johndoe', oauth_access_token: issuedTokens.at(-2) });
    expect(auth['app']?.['oauth_refresh_token']).toBe(issuedTokens.at(-1));
    const everything = [
      JSON.stringify((await h.request('GET', '/v1/accounts?limit=100')).body),
      h.logLines.join('\n'),
      readFileSync(h.dbFile).toString('latin1'),
    ].join('\n');
    for (const token of issuedTokens) expect(everything).not.toContain(token);
    expect(everything).not.toContain(CLIENT_SECRET);
  });

  it('shows the OAuth client of an app with its redirect URI, never the secret', async () => {
    const client = await h.request('GET', '/v1/apps/mockidp/oauth-client');
    expect(client.body.data).toEqual({
      app: 'mockidp',
      client_id: CLIENT_ID,
      scopes: [],
      source: 'environment',
      redirect_uri: `${PUBLIC_URL}/v1/oauth/callback`,
    });
    const app = await h.request('GET', '/v1/apps/mockidp');
    expect(app.body.data).toMatchObject({ auth_mode: 'oauth2_authorization_code', oauth_client: 'environment' });
  });

  it('refuses a wrong, reused or unbound state with OAUTH_STATE_INVALID and creates no account', async () => {
    const browser = await signIn('mockidp');
    const before = await accountCount();
    const wrong = new URL(browser.callbackUrl);
    wrong.searchParams.set('state', 'not-a-state-we-issued');
    const unknown = await callback(browser, wrong.href);
    expect(unknown.status).toBe(400);
    expect(unknown.html).toContain('OAUTH_STATE_INVALID');
    const otherBrowser = await fetch(browser.callbackUrl);
    expect(otherBrowser.status).toBe(400);
    expect(await otherBrowser.text()).toContain('started in another browser');
    expect(await accountCount()).toBe(before);
    expect((await callback(browser)).status).toBe(200);
    const replay = await callback(browser);
    expect(replay.status).toBe(400);
    expect(replay.html).toContain('already used');
    expect(await accountCount()).toBe(before + 1);
  });

  it('shows the provider error page as OAUTH_ACCESS_DENIED and fails the attempt', async () => {
    const denied = (redirect: { url: URL }): void => {
      redirect.url.searchParams.delete('code');
      redirect.url.searchParams.set('error', 'access_denied');
      redirect.url.searchParams.set('error_description', 'The user said no');
    };
    provider.service.once('beforeAuthorizeRedirect', denied);
    const before = await accountCount();
    const browser = await signIn('mockidp');
    const page = await callback(browser);
    expect(page.status).toBe(400);
    expect(page.html).toContain('OAUTH_ACCESS_DENIED');
    expect(page.html).toContain('The user said no');
    const attempt = await h.request('GET', `/v1/oauth/connect/${browser.state}`);
    expect(attempt.body.data).toMatchObject({
      status: 'failed',
      account: null,
      error: { code: 'OAUTH_ACCESS_DENIED' },
    });
    expect(await accountCount()).toBe(before);
  });

  it('reports a wrong client secret as OAUTH_PROVIDER_ERROR with the provider error, no account', async () => {
    const set = await h.request('PUT', '/v1/apps/nosecret/oauth-client', {
      body: { client_id: CLIENT_ID, client_secret: 'wrong-secret' },
    });
    expect(set.status).toBe(200);
    expect(JSON.stringify(set.body)).not.toContain('wrong-secret');
    const before = await accountCount();
    const browser = await signIn('nosecret');
    const page = await callback(browser);
    expect(page.status).toBe(502);
    expect(page.html).toContain('OAUTH_PROVIDER_ERROR');
    expect(page.html).toContain('invalid_client');
    expect(page.html).not.toContain('wrong-secret');
    expect(await accountCount()).toBe(before);
  });

  it('reports a token endpoint answering HTML as OAUTH_PROVIDER_ERROR, no account', async () => {
    const before = await accountCount();
    const browser = await signIn('htmlidp');
    const page = await callback(browser);
    expect(page.status).toBe(502);
    expect(page.html).toContain('not an OAuth token answer');
    expect(await accountCount()).toBe(before);
  });

  it('refuses to connect an app without OAuth settings (OAUTH_NOT_CONFIGURED), naming what to set', async () => {
    const keys = await h.request('POST', '/v1/oauth/connect', { body: { app: 'acme' } });
    expect(keys.status).toBe(400);
    expect(keys.body.error.code).toBe('OAUTH_NOT_CONFIGURED');
    const put = await h.request('PUT', '/v1/apps/noclient', {
      body: {
        name: 'No client',
        auth_type: 'oauth2',
        fields: [],
        oauth: { authorize_url: 'https://example.com/a', token_url: 'https://example.com/t' },
      },
    });
    expect(put.status).toBe(201);
    const missing = await h.request('POST', '/v1/oauth/connect', { body: { app: 'noclient' } });
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe('OAUTH_NOT_CONFIGURED');
    expect(missing.body.error.message).toContain('TRIBUTARY_OAUTH_NOCLIENT_CLIENT_ID');
    expect(missing.body.error.message).toContain(`${PUBLIC_URL}/v1/oauth/callback`);
  });
});

describe('refreshing tokens', () => {
  it('refreshes an expiring token once for 100 concurrent runs', async () => {
    const id = await connect();
    const first = await h.engine.accounts.credentialsFor({ app: { authProvisionId: id } });
    clockOffset += 3_600_000;
    const refreshesBefore = grants.filter((grant) => grant === 'refresh_token').length;
    const runs = await Promise.all(
      Array.from({ length: 100 }, () => h.engine.accounts.credentialsFor({ app: { authProvisionId: id } })),
    );
    expect(grants.filter((grant) => grant === 'refresh_token').length).toBe(refreshesBefore + 1);
    const tokens = new Set(runs.map((run) => run['app']?.['oauth_access_token']));
    expect(tokens.size).toBe(1);
    // The token of the refresh answer (access token, then refresh token, were the last issued).
    expect(tokens.has(issuedTokens.at(-2))).toBe(true);
    expect(first['app']?.['oauth_refresh_token']).not.toBe(runs[0]?.['app']?.['oauth_refresh_token']);
    const shown = await h.request('GET', `/v1/accounts/${id}`);
    expect(shown.body.data.oauth.expires_at).toBeGreaterThan((Date.now() + clockOffset) / 1000 + 3000);
  });

  it('marks an account whose refresh token was revoked "needs reconnect"; a reconnect fixes it', async () => {
    const id = await connect();
    const auth = await h.engine.accounts.credentialsFor({ app: { authProvisionId: id } });
    revoked.add(String(auth['app']?.['oauth_refresh_token']));
    clockOffset += 3_600_000;
    await expect(h.engine.accounts.credentialsFor({ app: { authProvisionId: id } })).rejects.toMatchObject({
      code: 'ACCOUNT_NEEDS_RECONNECT',
      message: expect.stringContaining(id),
    });
    const shown = await h.request('GET', `/v1/accounts/${id}`);
    expect(shown.body.data).toMatchObject({
      status: 'needs_reconnect',
      status_message: expect.stringContaining('invalid_grant'),
    });
    // Later runs fail at once, without asking the provider again.
    const refreshes = grants.length;
    await expect(h.engine.accounts.credentialsFor({ app: { authProvisionId: id } })).rejects.toMatchObject({
      code: 'ACCOUNT_NEEDS_RECONNECT',
    });
    expect(grants.length).toBe(refreshes);
    const browser = await signIn('mockidp', { account: id });
    expect((await callback(browser)).status).toBe(200);
    const fixed = await h.request('GET', `/v1/accounts/${id}`);
    expect(fixed.body.data).toMatchObject({ status: 'ok', status_message: null });
    // The reconnect's tokens, not those runs read before it (the engine keeps accounts in memory).
    await expect(h.engine.accounts.credentialsFor({ app: { authProvisionId: id } })).resolves.toMatchObject({
      app: { oauth_access_token: issuedTokens.at(-2), oauth_refresh_token: issuedTokens.at(-1) },
    });
  });

  it('fails the runs of a source whose account needs reconnecting, naming it, until it is reconnected', async () => {
    const id = await connect({ name: 'Whoami account' });
    const deployed = await h.request('POST', '/v1/sources', {
      body: {
        component_code: fixture('server/oauth-whoami-source.mjs'),
        configured_props: { mockidp: { authProvisionId: id } },
      },
    });
    expect(deployed.status).toBe(200);
    const sourceId = deployed.body.data.id as string;
    const run = async (): Promise<void> => {
      expect((await h.request('POST', `/v1/sources/${sourceId}/run`, { body: {} })).status).toBe(202);
      await queueIdle(h, sourceId);
    };
    await run();
    const events = async (): Promise<unknown[]> =>
      (await h.request('GET', `/v1/sources/${sourceId}/event_summaries?expand=event&limit=100`)).body.data.map(
        (entry: { event: unknown }) => entry.event,
      );
    expect(await events()).toEqual([{ uid: 'johndoe', hasToken: true }]);
    const auth = await h.engine.accounts.credentialsFor({ app: { authProvisionId: id } });
    revoked.add(String(auth['app']?.['oauth_refresh_token']));
    clockOffset += 3_600_000;
    await run();
    expect(await events()).toHaveLength(1);
    const logs = await h.request('GET', `/v1/sources/${sourceId}/logs?limit=100`);
    const text = logs.body.data.map((entry: { message: string }) => entry.message).join('\n');
    expect(text).toContain(`account ${id} ("Whoami account", app mockidp) needs reconnecting`);
    const account = await h.request('GET', `/v1/accounts/${id}`);
    expect(account.body.data.used_by).toEqual([{ id: sourceId, name: 'OAuth Whoami' }]);
    expect((await callback(await signIn('mockidp', { account: id }))).status).toBe(200);
    await run();
    expect(await events()).toHaveLength(2);
  });

  it('connects a client-credentials app without a browser and asks for a new token when it expires', async () => {
    const issuer = provider.issuer.url ?? '';
    const put = await h.request('PUT', '/v1/apps/ccidp', {
      body: {
        name: 'Machine API',
        auth_type: 'oauth2',
        fields: [],
        oauth: { authorize_url: null, token_url: `${issuer}/token` },
      },
    });
    expect(put.body.data.auth_mode).toBe('oauth2_client_credentials');
    const started = await h.request('POST', '/v1/oauth/connect', { body: { app: 'ccidp', name: 'Machine' } });
    expect(started.status).toBe(201);
    expect(started.body.data).toMatchObject({ status: 'connected', start_url: null });
    const id = started.body.data.account as string;
    const shown = await h.request('GET', `/v1/accounts/${id}`);
    expect(shown.body.data.fields).toEqual({ oauth_access_token: '[REDACTED]' });
    const grantsBefore = grants.length;
    clockOffset += 3_600_000;
    const auth = await h.engine.accounts.credentialsFor({ app: { authProvisionId: id } });
    expect(grants.slice(grantsBefore)).toEqual(['client_credentials']);
    expect(auth['app']?.['oauth_access_token']).toBe(issuedTokens.at(-1));
  });
});
