/**
 * Browser sessions (issue 15 item 3): an API key traded for an HttpOnly, SameSite=Strict cookie
 * whose token is stored only as a hash; it authenticates REST and SSE, state-changing cookie
 * requests need the CSRF header, and it ends on sign-out, expiry or the key's revocation.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqlite, readRows, startHarness, type Harness } from './server-harness.js';

let h: Harness;
const CSRF = { 'x-tributary-client': 'test' };

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.close({ remove: true });
});

const sessionRows = () =>
  readRows<{ token_hash: string; revoked_at: number | null }>(h.dbFile, 'SELECT * FROM browser_sessions');

/** Signs in with `key` and returns the cookie pair to send back (`tributary_session=...`). */
async function signIn(key: string = h.key): Promise<string> {
  const response = await h.request('POST', '/v1/session', { key: null, headers: CSRF, body: { api_key: key } });
  expect(response.status, response.text).toBe(201);
  const setCookie = response.headers.get('set-cookie') ?? '';
  return setCookie.split(';')[0] ?? '';
}

describe('browser sessions', () => {
  it('trades a key for an HttpOnly SameSite=Strict cookie, storing only the token hash', async () => {
    const before = sessionRows().length;
    const response = await h.request('POST', '/v1/session', {
      key: null,
      headers: CSRF,
      body: { api_key: h.key },
    });
    expect(response.status).toBe(201);
    const setCookie = response.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^tributary_session=[0-9A-Za-z]{48};/);
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Strict');
    expect(setCookie).toContain('Path=/');
    expect(setCookie).toContain('Max-Age=604800');
    // Plain HTTP on loopback: a Secure cookie would never come back.
    expect(setCookie).not.toContain('Secure');
    const token = setCookie.split(';')[0]!.split('=')[1]!;
    expect(response.body.data).toEqual({
      api_key: { id: expect.stringMatching(/^key_/), name: 'test', prefix: h.key.slice(0, 8) },
      expires_at: expect.any(Number),
    });
    expect(response.body.data.expires_at - Date.now() / 1000).toBeGreaterThan(604_700);
    const rows = sessionRows();
    expect(rows).toHaveLength(before + 1);
    expect(rows.at(-1)!.token_hash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(JSON.stringify(rows)).not.toContain(h.key);
  });

  it('refuses a wrong key and a sign-in without the CSRF header, storing nothing', async () => {
    const before = sessionRows().length;
    const wrong = await h.request('POST', '/v1/session', { key: null, headers: CSRF, body: { api_key: 'trb_nope' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toMatchObject({ code: 'UNAUTHORIZED', details: { field: 'api_key' } });
    expect(wrong.headers.get('set-cookie')).toBeNull();
    const noHeader = await h.request('POST', '/v1/session', { key: null, body: { api_key: h.key } });
    expect(noHeader.status).toBe(403);
    expect(noHeader.body.error.code).toBe('CSRF_HEADER_MISSING');
    expect(noHeader.body.error.message).toContain('x-tributary-client');
    expect(noHeader.headers.get('set-cookie')).toBeNull();
    expect(sessionRows()).toHaveLength(before);
  });

  it('authenticates reads with the cookie alone, and writes only with the CSRF header', async () => {
    const cookie = await signIn();
    const me = await h.request('GET', '/v1/users/me', { key: null, headers: { cookie } });
    expect(me.status).toBe(200);
    const session = await h.request('GET', '/v1/session', { key: null, headers: { cookie } });
    expect(session.status).toBe(200);
    expect(session.body.data.api_key.name).toBe('test');

    const keysBefore = (await h.request('GET', '/v1/api_keys')).body.data.length as number;
    const forged = await h.request('POST', '/v1/api_keys', { key: null, headers: { cookie }, body: { name: 'csrf' } });
    expect(forged.status).toBe(403);
    expect(forged.body.error.code).toBe('CSRF_HEADER_MISSING');
    expect((await h.request('GET', '/v1/api_keys')).body.data).toHaveLength(keysBefore);
    const allowed = await h.request('POST', '/v1/api_keys', {
      key: null,
      headers: { cookie, ...CSRF },
      body: { name: 'from-browser' },
    });
    expect(allowed.status).toBe(201);
    // API keys in the header need no CSRF header (the CLI's way).
    const cli = await h.request('POST', '/v1/api_keys', { body: { name: 'from-cli' } });
    expect(cli.status).toBe(201);
  });

  it('opens an SSE stream with the cookie alone, as EventSource does on the same origin', async () => {
    const cookie = await signIn();
    const controller = new AbortController();
    const response = await fetch(`${h.base}/sse/session-test`, { headers: { cookie }, signal: controller.signal });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    controller.abort();
    const refused = await fetch(`${h.base}/sse/session-test`, { headers: { cookie: 'tributary_session=bogus' } });
    expect(refused.status).toBe(401);
    await refused.arrayBuffer();
  });

  it('signs out for good: the cookie is cleared and the token refused afterwards', async () => {
    const cookie = await signIn();
    const noHeader = await h.request('DELETE', '/v1/session', { key: null, headers: { cookie } });
    expect(noHeader.status).toBe(403);
    expect((await h.request('GET', '/v1/session', { key: null, headers: { cookie } })).status).toBe(200);
    const out = await h.request('DELETE', '/v1/session', { key: null, headers: { cookie, ...CSRF } });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/^tributary_session=;.*Expires=Thu, 01 Jan 1970/);
    const after = await h.request('GET', '/v1/users/me', { key: null, headers: { cookie } });
    expect(after.status).toBe(401);
    expect(after.body.error.message).toContain('sign in again');
    const state = await h.request('GET', '/v1/session', { key: null, headers: { cookie } });
    expect(state.status).toBe(401);
    expect(sessionRows().filter((row) => row.revoked_at !== null)).toHaveLength(1);
  });

  it('ends a session when it expires or when its API key is revoked', async () => {
    const expiring = await signIn();
    const token = expiring.split('=')[1]!;
    const sqlite = openSqlite(h.dbFile);
    try {
      sqlite
        .prepare('UPDATE browser_sessions SET expires_at = ? WHERE token_hash = ?')
        .run(Date.now() - 1, createHash('sha256').update(token).digest('hex'));
    } finally {
      sqlite.close();
    }
    expect((await h.request('GET', '/v1/users/me', { key: null, headers: { cookie: expiring } })).status).toBe(401);

    const created = await h.request('POST', '/v1/api_keys', { body: { name: 'short-lived' } });
    const cookie = await signIn(created.body.data.key as string);
    expect((await h.request('GET', '/v1/users/me', { key: null, headers: { cookie } })).status).toBe(200);
    await h.request('DELETE', `/v1/api_keys/${created.body.data.id as string}`);
    expect((await h.request('GET', '/v1/users/me', { key: null, headers: { cookie } })).status).toBe(401);
  });
});
