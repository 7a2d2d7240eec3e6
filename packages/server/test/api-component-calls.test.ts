/**
 * Calls into saved components over the REST API (issues 5 and 6): a prop's async options run in the
 * sandbox with the connected account (against a local HTTP server that checks the token), props
 * after reloadProps, an action run answering exactly the local `run --json` object, and the list of
 * saved components. Bad input gets a 4xx with a stable code.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildRunReport } from '@tributary/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, snapshot, startHarness, type Harness } from './server-harness.js';

let h: Harness;
let acme: Server;
let acmeUrl: string;
const TOKEN = 'acme-token-for-options';
const seen: { auth: string | undefined; url: string | undefined }[] = [];
let accountId: string;
let actionId: string;

beforeAll(async () => {
  acme = createServer((request, response) => {
    seen.push({ auth: request.headers.authorization, url: request.url });
    if (request.headers.authorization !== `Bearer ${TOKEN}`) {
      response.writeHead(401).end();
      return;
    }
    const page = new URL(request.url ?? '/', 'http://x').searchParams.get('page');
    const boards =
      page === '0'
        ? [
            { id: 'b1', name: 'Main' },
            { id: 'b2', name: 'Ops' },
          ]
        : [];
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(boards));
  });
  acme.listen(0, '127.0.0.1');
  await once(acme, 'listening');
  acmeUrl = `http://127.0.0.1:${(acme.address() as AddressInfo).port}`;
  h = await startHarness();
  const account = await h.request('POST', '/v1/accounts', {
    body: { app: 'acme', fields: { api_key: TOKEN, base_url: acmeUrl } },
  });
  expect(account.status).toBe(201);
  accountId = account.body.data.id;
  const saved = await h.request('POST', '/v1/components', {
    body: { component_code: fixture('server/acme-boards-action.mjs') },
  });
  expect(saved.status).toBe(200);
  actionId = saved.body.data.id;
});

afterAll(async () => {
  await h?.close({ remove: true });
  acme?.close();
});

describe('POST /v1/components/configure', () => {
  it("runs the prop's options() with the account's credentials as this.$auth", async () => {
    const response = await h.request('POST', '/v1/components/configure', {
      body: { id: actionId, prop_name: 'board', configured_props: { acme: { authProvisionId: accountId } } },
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      options: [
        { label: 'Main', value: 'b1' },
        { label: 'Ops', value: 'b2' },
      ],
      string_options: null,
      context: null,
      errors: [],
      observations: [{ level: 'info', message: 'fetched 2 boards', ts: expect.any(Number) }],
    });
    expect(seen.at(-1)).toEqual({ auth: `Bearer ${TOKEN}`, url: '/boards?page=0' });
    const next = await h.request('POST', '/v1/components/configure', {
      body: {
        id: 't-acme-boards',
        prop_name: 'board',
        page: 1,
        prev_context: {},
        configured_props: { acme: { authProvisionId: accountId } },
      },
    });
    expect(next.status).toBe(200);
    expect(next.body.options).toEqual([]);
    expect(seen.at(-1)?.url).toBe('/boards?page=1');
  });

  it('reports an options() failure in errors: a wrong token refused by the API, or no account at all', async () => {
    const wrong = await h.request('POST', '/v1/accounts', {
      body: { app: 'acme', fields: { api_key: 'wrong-token', base_url: acmeUrl } },
    });
    const refused = await h.request('POST', '/v1/components/configure', {
      body: { id: actionId, prop_name: 'board', configured_props: { acme: { authProvisionId: wrong.body.data.id } } },
    });
    expect(refused.status).toBe(200);
    expect(refused.body).toMatchObject({ options: [], errors: [expect.stringContaining('Acme answered 401')] });
    expect(seen.at(-1)?.auth).toBe('Bearer wrong-token');
    const calls = seen.length;
    const response = await h.request('POST', '/v1/components/configure', {
      body: { id: actionId, prop_name: 'board' },
    });
    expect(response.status).toBe(200);
    expect(response.body.options).toEqual([]);
    expect(response.body.errors).toHaveLength(1);
    expect(seen).toHaveLength(calls);
  });

  it('refuses unknown components, props, accounts and fields with stable codes', async () => {
    const cases: [unknown, number, string][] = [
      [{ id: 'sc_missing', prop_name: 'board' }, 404, 'NOT_FOUND'],
      [{ id: actionId, prop_name: 'nope' }, 400, 'PROP_UNKNOWN'],
      [
        { id: actionId, prop_name: 'board', configured_props: { acme: { authProvisionId: 'apn_nope' } } },
        400,
        'PROP_INVALID',
      ],
      [{ id: actionId, prop_name: 'board', page: -1 }, 400, 'VALIDATION_FAILED'],
      [{ id: actionId, prop_name: 'board', color: 'red' }, 400, 'VALIDATION_FAILED'],
      [{ prop_name: 'board' }, 400, 'VALIDATION_FAILED'],
    ];
    for (const [body, status, code] of cases) {
      const response = await h.request('POST', '/v1/components/configure', { body });
      expect(response.status, JSON.stringify(body)).toBe(status);
      expect(response.body.error.code).toBe(code);
    }
  });
});

describe('POST /v1/components/props', () => {
  it('answers the props after additionalProps() ran with the configured values', async () => {
    const saved = await h.request('POST', '/v1/components', { body: { component_code: fixture('f21-dynamic.mjs') } });
    expect(saved.status).toBe(200);
    const declared = saved.body.data.configurable_props.map((prop: { name: string }) => prop.name);
    const response = await h.request('POST', '/v1/components/props', {
      body: { id: saved.body.data.id, configured_props: { mode: 'detailed' } },
    });
    expect(response.status).toBe(200);
    expect(response.body.errors).toEqual([]);
    expect(response.body.observations).toEqual([]);
    expect(declared).toEqual(['mode']);
    expect(response.body.dynamic_props.configurable_props).toEqual([
      expect.objectContaining({ name: 'mode', reloadProps: true }),
      expect.objectContaining({ name: 'depth', type: 'integer', min: 1 }),
    ]);
    const simple = await h.request('POST', '/v1/components/props', {
      body: { id: saved.body.data.id, configured_props: { mode: 'simple' } },
    });
    expect(simple.body.dynamic_props.configurable_props.map((prop: { name: string }) => prop.name)).toEqual(['mode']);
  });

  it('treats values not given yet as no error, and reports an invalid one with the declared props', async () => {
    const empty = await h.request('POST', '/v1/components/props', { body: { id: actionId, configured_props: {} } });
    expect(empty.status).toBe(200);
    expect(empty.body.errors).toEqual([]);
    expect(empty.body.dynamic_props.configurable_props.map((prop: { name: string }) => prop.name)).toEqual([
      'acme',
      'board',
    ]);
    const invalid = await h.request('POST', '/v1/components/props', {
      body: { id: 'fx-dynamic', configured_props: { mode: 'bogus' } },
    });
    expect(invalid.status).toBe(200);
    expect(invalid.body.errors).toEqual([expect.stringContaining('"mode"')]);
    expect(invalid.body.dynamic_props.configurable_props.map((prop: { name: string }) => prop.name)).toEqual(['mode']);
  });
});

describe('POST /v1/components/props with component_code', () => {
  it('reads the props of code not saved yet, keeps values that still apply, and stores nothing', async () => {
    const before = await snapshot(h);
    const edited = fixture('f21-dynamic.mjs').replace(
      'props: {',
      'props: {\n    region: { type: "string", label: "Region" },',
    );
    expect(edited).not.toBe(fixture('f21-dynamic.mjs'));
    const response = await h.request('POST', '/v1/components/props', {
      // "gone" is a prop of the old code: it no longer applies, so it is left out, not refused.
      body: { component_code: edited, configured_props: { mode: 'detailed', gone: 1 } },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.errors).toEqual([]);
    expect(response.body.dynamic_props.configurable_props.map((prop: { name: string }) => prop.name)).toEqual([
      'region',
      'mode',
      'depth',
    ]);
    expect(await snapshot(h)).toEqual(before);
  });

  it('refuses code that does not parse with its position, and a body with both or neither of id and code', async () => {
    const broken = await h.request('POST', '/v1/components/props', {
      body: { component_code: 'export default { props: {', configured_props: {} },
    });
    expect(broken.status).toBe(400);
    expect(broken.body.error.code).toBe('COMPONENT_SYNTAX_ERROR');
    for (const body of [{ id: 'fx-dynamic', component_code: 'x' }, { configured_props: {} }]) {
      const refused = await h.request('POST', '/v1/components/props', { body });
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe('VALIDATION_FAILED');
      expect(refused.text).toContain('give exactly one of id and component_code');
    }
  });
});

describe('error locations', () => {
  it("name the author's file and line in errors, stacks and logs, never the server's copy of the code", async () => {
    const saved = await h.request('POST', '/v1/components', {
      body: { component_code: fixture('server/stack-line.mjs') },
    });
    expect(saved.status).toBe(200);
    const run = await h.request('POST', '/v1/actions/run', { body: { id: saved.body.data.id } });
    expect(run.status).toBe(200);
    const { error, logs } = run.body.data;
    expect(error).toMatchObject({ code: 'COMPONENT_ERROR', message: 'thrown on line ten' });
    expect(error.stack).toContain('at Object.run (component.mjs:10:11)');
    expect(logs[0].message).toContain('at Object.run (component.mjs:9:19)');
    const broken = await h.request('POST', '/v1/components', {
      body: { component_code: 'export default {\n  key: "x",\n  props: {,\n};\n' },
    });
    expect(broken.status).toBe(400);
    expect(broken.body.error).toMatchObject({
      code: 'COMPONENT_SYNTAX_ERROR',
      message: expect.stringMatching(/^component\.mjs:3:11: /),
      details: { file: 'component.mjs', line: 3, column: 11 },
    });
    const everything = JSON.stringify([run.body, broken.body]);
    expect(everything).not.toContain(h.dataDir);
    expect(everything).not.toMatch(/[0-9a-f]{32}\.mjs/);
  });
});

describe('POST /v1/actions/run', () => {
  it('answers exactly the object the local run --json prints', async () => {
    const response = await h.request('POST', '/v1/actions/run', {
      body: { id: actionId, configured_props: { acme: { authProvisionId: accountId }, board: 'b2' } },
    });
    expect(response.status).toBe(200);
    const expected = buildRunReport({ type: 'action', results: [], warnings: [] });
    expect(Object.keys(response.body.data).sort()).toEqual(Object.keys(expected).sort());
    expect(response.body.data).toMatchObject({
      ok: true,
      type: 'action',
      return_value: { board: 'b2', keyLength: TOKEN.length },
      exports: { $summary: 'picked b2' },
      summary: 'picked b2',
      emits: [],
      error: null,
    });
    expect(response.text).not.toContain(TOKEN);
  });

  it('reports a failing action as ok: false with its error, and refuses bad requests', async () => {
    const failing = await h.request('POST', '/v1/components', {
      body: {
        component_code:
          'export default { name: "Boom", version: "0.0.1", key: "t-boom", type: "action", props: {}, async run() { throw new Error("boom"); } };',
      },
    });
    const run = await h.request('POST', '/v1/actions/run', { body: { id: failing.body.data.id } });
    expect(run.status).toBe(200);
    expect(run.body.data).toMatchObject({
      ok: false,
      error: { code: 'COMPONENT_ERROR', message: expect.stringContaining('boom') },
    });

    const source = await h.request('POST', '/v1/components', { body: { component_code: fixture('f01-ping.mjs') } });
    const before = await snapshot(h);
    const cases: [unknown, number, string][] = [
      [{ id: source.body.data.id }, 400, 'WRONG_COMPONENT_TYPE'],
      [{ id: actionId, configured_props: { acme: { authProvisionId: accountId } } }, 400, 'PROP_REQUIRED'],
      [
        { id: actionId, configured_props: { acme: { authProvisionId: accountId }, board: 'b1', nope: 1 } },
        400,
        'PROP_UNKNOWN',
      ],
      [{ id: actionId, timeout_seconds: 0 }, 400, 'VALIDATION_FAILED'],
      [{ id: actionId, timeout_seconds: 'soon' }, 400, 'VALIDATION_FAILED'],
      [{ id: 'no-such-key' }, 404, 'NOT_FOUND'],
    ];
    for (const [body, status, code] of cases) {
      const response = await h.request('POST', '/v1/actions/run', { body });
      expect(response.status, JSON.stringify(body)).toBe(status);
      expect(response.body.error.code).toBe(code);
    }
    expect(await snapshot(h)).toEqual(before);
  });
});

describe('GET /v1/users/me/components', () => {
  it('lists saved components newest first, with pagination both ways', async () => {
    const all = await h.request('GET', '/v1/users/me/components?limit=100');
    expect(all.status).toBe(200);
    const ids = all.body.data.map((row: { id: string }) => row.id);
    expect(all.body.page_info.total_count).toBe(ids.length);
    expect(ids.length).toBeGreaterThanOrEqual(4);
    const created = all.body.data.map((row: { created_at: number }) => row.created_at);
    expect([...created].sort((a, b) => b - a)).toEqual(created);
    expect(ids).toContain(actionId);
    const first = await h.request('GET', '/v1/users/me/components?limit=2');
    expect(first.body.data.map((row: { id: string }) => row.id)).toEqual(ids.slice(0, 2));
    const second = await h.request(
      'GET',
      `/v1/users/me/components?limit=2&after=${first.body.page_info.end_cursor as string}`,
    );
    expect(second.body.data.map((row: { id: string }) => row.id)).toEqual(ids.slice(2, 4));
    const back = await h.request(
      'GET',
      `/v1/users/me/components?limit=2&before=${second.body.page_info.start_cursor as string}`,
    );
    expect(back.body.data.map((row: { id: string }) => row.id)).toEqual(ids.slice(0, 2));
    expect((await h.request('GET', '/v1/users/me/components?limit=abc')).status).toBe(400);
    expect((await h.request('GET', '/v1/users/me/components?after=sc_nope')).body.error.code).toBe('NOT_FOUND');
  });
});

describe('OpenAPI', () => {
  it('describes every new route', async () => {
    const doc = await h.request('GET', '/v1/openapi.json');
    const paths = Object.keys(doc.body.paths);
    for (const route of [
      '/v1/apps',
      '/v1/apps/{slug}',
      '/v1/accounts',
      '/v1/accounts/{id}',
      '/v1/components/configure',
      '/v1/components/props',
      '/v1/actions/run',
      '/v1/users/me/components',
      '/v1/api_keys',
      '/v1/api_keys/{id}',
    ]) {
      expect(paths, route).toContain(route);
    }
  });
});
