/**
 * The app catalog and connected accounts over the REST API (issue 5): built-in and operator
 * entries, accounts whose secrets never come back in clear (nor sit in clear in the database), an
 * app prop deployed with `{ authProvisionId }` whose hooks and runs see `this.<prop>.$auth`, and
 * every refusal (wrong app, unknown account, bad fields) changing nothing.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, queueIdle, readRows, snapshot, startHarness, waitFor, type Harness } from './server-harness.js';

let h: Harness;
const SECRET = 'acme-secret-token-0123456789';

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.close({ remove: true });
});

async function accountsSnapshot(): Promise<unknown> {
  const accounts = await h.request('GET', '/v1/accounts?limit=100');
  const apps = await h.request('GET', '/v1/apps');
  return { base: await snapshot(h), accounts: accounts.body, apps: apps.body };
}

describe('app catalog', () => {
  it('lists the built-in entries, acme among them, with their fields', async () => {
    const response = await h.request('GET', '/v1/apps');
    expect(response.status).toBe(200);
    const slugs = response.body.data.map((app: { slug: string }) => app.slug);
    expect(slugs).toContain('acme');
    expect(response.body.page_info.total_count).toBe(slugs.length);
    const acme = await h.request('GET', '/v1/apps/acme');
    expect(acme.status).toBe(200);
    expect(acme.body.data).toMatchObject({ slug: 'acme', name: 'Acme', auth_type: 'keys' });
    expect(acme.body.data.fields).toContainEqual({
      name: 'api_key',
      label: 'API key',
      secret: true,
      optional: false,
      description: expect.any(String),
    });
  });

  it('adds an app with PUT (201), replaces it (200), and GET shows the new entry', async () => {
    const body = { name: 'Widgets', auth_type: 'keys', fields: [{ name: 'token', label: 'Token', secret: true }] };
    const created = await h.request('PUT', '/v1/apps/widgets', { body });
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({
      slug: 'widgets',
      name: 'Widgets',
      description: null,
      auth_type: 'keys',
      fields: [{ name: 'token', label: 'Token', secret: true, optional: false, description: null }],
      auth_mode: 'api_key',
      oauth: null,
      base_url: null,
      test_request: null,
      origin: 'operator',
      oauth_client: null,
    });
    const replaced = await h.request('PUT', '/v1/apps/widgets', {
      body: { ...body, name: 'Widgets Inc', description: 'v2' },
    });
    expect(replaced.status).toBe(200);
    expect((await h.request('GET', '/v1/apps/widgets')).body.data).toMatchObject({
      name: 'Widgets Inc',
      description: 'v2',
    });
    const listed = await h.request('GET', '/v1/apps');
    expect(listed.body.data.map((app: { slug: string }) => app.slug)).toContain('widgets');
  });

  it('refuses bad entries with 400 and a stable code, changing nothing', async () => {
    const before = await accountsSnapshot();
    const cases: [string, unknown, string][] = [
      ['/v1/apps/Bad%20Slug', { name: 'x', auth_type: 'none', fields: [] }, 'VALIDATION_FAILED'],
      ['/v1/apps/ok', { name: 'x', auth_type: 'saml', fields: [] }, 'VALIDATION_FAILED'],
      ['/v1/apps/ok', { name: 'x', auth_type: 'none', fields: [], extra: 1 }, 'VALIDATION_FAILED'],
      [
        '/v1/apps/ok',
        {
          name: 'x',
          auth_type: 'keys',
          fields: [
            { name: 'a', label: 'A' },
            { name: 'a', label: 'B' },
          ],
        },
        'VALIDATION_FAILED',
      ],
      [
        '/v1/apps/ok',
        { name: 'x', auth_type: 'keys', fields: [{ name: 'not an identifier', label: 'A' }] },
        'VALIDATION_FAILED',
      ],
      ['/v1/apps/ok', { name: 42, auth_type: 'keys', fields: [] }, 'VALIDATION_FAILED'],
    ];
    for (const [url, body, code] of cases) {
      const response = await h.request('PUT', url, { body });
      expect(response.status, `${url} ${JSON.stringify(body)}`).toBe(400);
      expect(response.body.error.code).toBe(code);
    }
    const unknown = await h.request('GET', '/v1/apps/nope');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('"nope"') });
    expect(await accountsSnapshot()).toEqual(before);
  });
});

describe('connected accounts', () => {
  let accountId: string;

  it('creates an account whose secret fields are redacted in every answer', async () => {
    const created = await h.request('POST', '/v1/accounts', {
      body: { app: 'acme', name: 'Acme prod', fields: { api_key: SECRET, base_url: 'http://acme.test' } },
    });
    expect(created.status).toBe(201);
    accountId = created.body.data.id;
    expect(accountId).toMatch(/^apn_/);
    expect(created.body.data).toMatchObject({
      app: 'acme',
      name: 'Acme prod',
      fields: { api_key: '[REDACTED]', base_url: 'http://acme.test' },
    });
    expect(created.body.data.created_at).toEqual(expect.any(Number));
    const one = await h.request('GET', `/v1/accounts/${accountId}`);
    // The single account also lists the sources that use it (none yet).
    expect(one.body.data).toEqual({ ...created.body.data, used_by: [] });
    expect(created.body.data).toMatchObject({ status: 'ok', status_message: null, oauth: null });
    const listed = await h.request('GET', '/v1/accounts?app=acme');
    expect(listed.body.data).toEqual([created.body.data]);
    expect((await h.request('GET', '/v1/accounts?app=github')).body.data).toEqual([]);
    for (const response of [created, one, listed]) expect(response.text).not.toContain(SECRET);
  });

  it('keeps the secret sealed in the database file', async () => {
    expect(readRows(h.dbFile, 'SELECT id FROM accounts WHERE id = ?', accountId)).toHaveLength(1);
    const bytes = readFileSync(h.dbFile).toString('latin1') + readFileSync(`${h.dbFile}-wal`).toString('latin1');
    expect(bytes).toContain(accountId);
    expect(bytes).not.toContain(SECRET);
  });

  it('names a default account after its app', async () => {
    const created = await h.request('POST', '/v1/accounts', {
      body: { app: 'github', fields: { oauth_access_token: 'gh-token' } },
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      app: 'github',
      name: 'GitHub account',
      fields: { oauth_access_token: '[REDACTED]' },
    });
  });

  it('refuses bad accounts naming what is wrong, and stores nothing', async () => {
    const before = await accountsSnapshot();
    const cases: [unknown, number, string, string][] = [
      [{ app: 'nope', fields: {} }, 400, 'VALIDATION_FAILED', '"nope"'],
      [{ app: 'acme', fields: { api_key: 'k', password: 'p' } }, 400, 'VALIDATION_FAILED', '"password"'],
      [{ app: 'acme', fields: { base_url: 'http://x' } }, 400, 'VALIDATION_FAILED', '"api_key"'],
      [{ app: 'acme', fields: { api_key: 7 } }, 400, 'VALIDATION_FAILED', 'fields'],
      [{ app: 'acme', fields: { api_key: 'k' }, owner: 'me' }, 400, 'VALIDATION_FAILED', 'owner'],
      [{ fields: { api_key: 'k' } }, 400, 'VALIDATION_FAILED', 'app'],
    ];
    for (const [body, status, code, named] of cases) {
      const response = await h.request('POST', '/v1/accounts', { body });
      expect(response.status, JSON.stringify(body)).toBe(status);
      expect(response.body.error.code).toBe(code);
      expect(`${response.body.error.message as string} ${JSON.stringify(response.body.error.details ?? {})}`).toContain(
        named,
      );
    }
    const missing = await h.request('GET', '/v1/accounts/apn_missing');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('NOT_FOUND');
    expect((await h.request('DELETE', '/v1/accounts/apn_missing')).status).toBe(404);
    expect((await h.request('GET', '/v1/accounts?limit=0')).status).toBe(400);
    expect(await accountsSnapshot()).toEqual(before);
  });

  it('gives a deployed app prop the credentials as this.<prop>.$auth, in hooks and runs', async () => {
    const deployed = await h.request('POST', '/v1/sources', {
      body: {
        component_code: fixture('server/acme-auth-source.mjs'),
        configured_props: { acme: { authProvisionId: accountId } },
      },
    });
    expect(deployed.status).toBe(200);
    const sourceId = deployed.body.data.id as string;
    // The echo keeps the reference, never the credentials.
    expect(deployed.body.data.configured_props).toEqual({ acme: { authProvisionId: accountId } });
    expect(deployed.text).not.toContain(SECRET);
    expect((await h.request('POST', `/v1/sources/${sourceId}/run`, { body: {} })).status).toBe(202);
    const event = await waitFor(async () => {
      const events = await h.request('GET', `/v1/sources/${sourceId}/event_summaries?expand=event`);
      return events.body.data[0]?.event;
    }, 'the run to emit');
    expect(event).toEqual({
      auth: { api_key: SECRET, base_url: 'http://acme.test' },
      deployedWithKeyLength: SECRET.length,
    });
    await queueIdle(h, sourceId);
    // Runs queued together go to the worker as one batch: each still sees the account.
    for (let i = 0; i < 6; i += 1)
      expect((await h.request('POST', `/v1/sources/${sourceId}/run`, { body: {} })).status).toBe(202);
    await queueIdle(h, sourceId);
    const all = await h.request('GET', `/v1/sources/${sourceId}/event_summaries?expand=event&limit=100`);
    expect(all.body.data).toHaveLength(7);
    for (const entry of all.body.data)
      expect(entry.event.auth).toEqual({ api_key: SECRET, base_url: 'http://acme.test' });

    // A workflow whose code step names the account is among its users too.
    const workflow = await h.request('POST', '/v1/workflows', {
      body: {
        name: 'Acme workflow',
        trigger: { type: 'manual' },
        steps: [
          {
            name: 'call',
            code:
              'export default defineComponent({ props: { acme: { type: "app", app: "acme" } }, ' +
              'async run() { return Object.keys(this.acme.$auth); } })',
            props: { acme: { authProvisionId: accountId } },
          },
        ],
      },
    });
    expect(workflow.status, JSON.stringify(workflow.body)).toBe(201);
    const workflowId = workflow.body.data.id as string;
    // Deleting the account says which sources and workflows used it; their next run lacks the account.
    const removed = await h.request('DELETE', `/v1/accounts/${accountId}`);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({
      data: {
        id: accountId,
        used_by: [
          { id: sourceId, name: 'Acme Auth Source' },
          { id: workflowId, name: 'Acme workflow' },
        ],
      },
    });
    expect((await h.request('GET', `/v1/accounts/${accountId}`)).status).toBe(404);
    await h.request('POST', `/v1/sources/${sourceId}/run`, { body: {} });
    await queueIdle(h, sourceId);
    const logs = await h.request('GET', `/v1/sources/${sourceId}/logs?limit=100`);
    expect(logs.body.data.map((entry: { message: string }) => entry.message).join('\n')).toContain(
      'app prop "acme" needs a connected account',
    );
  });

  it('refuses an account of another app, an unknown account, or a raw value for an app prop, changing nothing', async () => {
    const github = await h.request('POST', '/v1/accounts', {
      body: { app: 'github', name: 'gh', fields: { oauth_access_token: 't' } },
    });
    const acme = await h.request('POST', '/v1/accounts', {
      body: { app: 'acme', name: 'acme 2', fields: { api_key: SECRET } },
    });
    const code = fixture('server/acme-auth-source.mjs');
    // Save the code first so a refused deploy cannot differ by a saved component.
    await h.request('POST', '/v1/components', { body: { component_code: code } });
    const before = await accountsSnapshot();
    const cases: [unknown, string][] = [
      [
        { authProvisionId: github.body.data.id },
        `app prop "acme" needs an account of app "acme"; ${github.body.data.id as string} is an account of "github"`,
      ],
      [{ authProvisionId: 'apn_unknown' }, 'app prop "acme": no connected account "apn_unknown"'],
      [{ api_key: 'raw' }, 'app prop "acme" takes { "authProvisionId": "apn_…" }'],
    ];
    for (const [value, message] of cases) {
      const response = await h.request('POST', '/v1/sources', {
        body: { component_code: code, configured_props: { acme: value } },
      });
      expect(response.status, JSON.stringify(value)).toBe(400);
      expect(response.body.error).toMatchObject({
        code: 'PROP_INVALID',
        message: expect.stringContaining(message),
        details: { prop: 'acme' },
      });
    }
    expect(await accountsSnapshot()).toEqual(before);

    // The same check guards an update: the source keeps its account.
    const deployed = await h.request('POST', '/v1/sources', {
      body: { component_code: code, configured_props: { acme: { authProvisionId: acme.body.data.id } } },
    });
    expect(deployed.status).toBe(200);
    const sourceId = deployed.body.data.id as string;
    const refused = await h.request('PUT', `/v1/sources/${sourceId}`, {
      body: { configured_props: { acme: { authProvisionId: github.body.data.id } } },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details).toMatchObject({ prop: 'acme' });
    expect((await h.request('GET', `/v1/sources/${sourceId}`)).body.data.configured_props).toEqual({
      acme: { authProvisionId: acme.body.data.id },
    });
  });
});
