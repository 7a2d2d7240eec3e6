/**
 * The served OpenAPI document against the server and the generated client against the document:
 * every route of the route table is in it (and every documented path is served), real answers of a
 * real server (SQLite file, sandbox workers, HTTP on loopback) validate against the schemas the
 * document gives for their status, and the committed generated types are what the document gives
 * today.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { apiRoutes } from '@tributary/server';
import { fixture, startHarness, waitFor, type Harness } from '../../server/test/server-harness.js';
// @ts-expect-error: a plain ESM module of the generator (tools/ has no types)
import { renderApiTypes, TYPES_FILE } from '../../../tools/api-client/render.mjs';
import { createApiClient, type ApiClient } from '../src/index.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

interface Operation {
  readonly responses: Record<string, { content?: Record<string, { schema: object }> }>;
}
type Document = { paths: Record<string, Record<string, Operation>> };

let h: Harness;
let doc: Document;
let api: ApiClient;
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
const validators = new Map<object, ValidateFunction>();
/** `METHOD /path/{template} STATUS` of every answer checked against the document. */
const checked = new Set<string>();
const mismatches: string[] = [];

beforeAll(async () => {
  h = await startHarness();
  doc = (await h.request('GET', '/v1/openapi.json')).body as Document;
  api = createApiClient({ baseUrl: h.base, apiKey: h.key });
  // Every answer the client gets is checked against the document's schema for its status.
  api.use({
    async onResponse({ request, response, schemaPath }) {
      const method = request.method.toLowerCase();
      const operation = doc.paths[schemaPath]?.[method];
      const label = `${request.method} ${schemaPath} ${response.status}`;
      const documented = operation?.responses[String(response.status)];
      if (response.status === 204 && documented && !documented.content) {
        expect(await response.clone().text()).toBe('');
        checked.add(label);
        return undefined;
      }
      const schema = documented?.content?.['application/json']?.schema;
      if (!schema) {
        mismatches.push(`${label}: the document has no JSON answer for this status`);
        return undefined;
      }
      let validate = validators.get(schema);
      if (!validate) {
        validate = ajv.compile(schema);
        validators.set(schema, validate);
      }
      const text = await response.clone().text();
      if (!validate(text === '' ? null : JSON.parse(text))) {
        mismatches.push(`${label}: ${ajv.errorsText(validate.errors)}`);
      }
      checked.add(label);
      return undefined;
    },
  });
});

afterAll(async () => {
  await h?.close({ remove: true });
});

/** The answer's data, failing the test with the error body when the call failed. */
async function ok<D>(pending: Promise<{ data?: D; error?: unknown; response: Response }>): Promise<D> {
  const { data, error, response } = await pending;
  if (!response.ok) throw new Error(`${response.status} ${response.url}: ${JSON.stringify(error)}`);
  return data as D;
}

describe('the OpenAPI document', () => {
  it('has every route of the route table, and the server serves every documented operation', async () => {
    const routes = apiRoutes(h.engine, '0').map(
      (spec) => `${spec.method.toLowerCase()} ${spec.url.replace(/:(\w+)/g, '{$1}').replace(/\/\*$/, '/{name}')}`,
    );
    const documented = Object.entries(doc.paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method} ${path}`),
    );
    expect(routes.length).toBeGreaterThan(60);
    expect(routes.filter((route) => !documented.includes(route))).toEqual([]);
    const unserved = documented.filter((operation) => {
      const [method = '', path = ''] = operation.split(' ');
      const url = path
        .replace(/\{(\w+)\}/g, ':$1')
        .replace(/\/:name$/, path.startsWith('/v1/registry') ? '/*' : '/:name');
      return !h.app.hasRoute({ method: method.toUpperCase() as 'GET', url });
    });
    // Endpoints are answered ahead of the framework (decision 0023): those the framework does not
    // route must be the ingress's, answered by it (its 404 names sources and workflows, the
    // framework's would name the route).
    expect(unserved).toEqual(['post /e/{endpointId}']);
    const answer = await h.request('POST', '/e/no-such-endpoint', { body: {} });
    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({
      error: { code: 'NOT_FOUND', message: expect.stringMatching(/source or workflow/) },
    });
  });

  it('describes the answers of a real server: sources, components, events, logs, accounts, keys, workflows', async () => {
    expect((await ok(api.GET('/v1/users/me'))).data.id).toMatch(/\S/);
    expect((await ok(api.GET('/v1/status'))).data.version).toBe('0.0.0-test');

    const saved = await ok(api.POST('/v1/components', { body: { component_code: fixture('f02-counter.mjs') } }));
    expect(saved.data.id).toMatch(/^sc_/);
    await ok(api.GET('/v1/components/{id}', { params: { path: { id: saved.data.id } } }));
    await ok(api.GET('/v1/users/me/components', { params: { query: { limit: 5 } } }));
    const action = await ok(
      api.PUT('/v1/components/{key}', {
        body: { component_code: fixture('f17-sum.mjs') },
        params: { path: { key: 'fx-sum' } },
      }),
    );
    await ok(api.GET('/v1/components/registry'));
    await ok(api.GET('/v1/components/registry/{key}', { params: { path: { key: 'fx-sum' } } }));
    await ok(api.POST('/v1/components/props', { body: { id: action.data.id } }));
    const report = await ok(
      api.POST('/v1/actions/run', { body: { id: action.data.id, configured_props: { nums: [1, 2, 3] } } }),
    );
    expect(report.data).toMatchObject({ ok: true, return_value: 6 });

    const source = await ok(api.POST('/v1/sources', { body: { component_id: saved.data.id, name: 'counter' } }));
    const id = source.data.id;
    await ok(api.GET('/v1/sources/{id}', { params: { path: { id } } }));
    await ok(api.GET('/v1/users/me/sources'));
    await ok(api.PUT('/v1/sources/{id}', { params: { path: { id } }, body: { name: 'counter two' } }));
    await ok(api.POST('/v1/sources/{id}/run', { params: { path: { id } }, body: {} }));
    const events = await waitFor(async () => {
      const page = await ok(api.GET('/v1/sources/{id}/event_summaries', { params: { path: { id } } }));
      return page.data.length > 0 ? page : undefined;
    }, 'the run to emit');
    expect(events.data[0]?.event).toEqual({ n: 1 });
    await ok(api.GET('/v1/sources/{id}/logs', { params: { path: { id } } }));
    await ok(api.DELETE('/v1/sources/{id}/events', { params: { path: { id }, query: {} } }));

    await ok(api.GET('/v1/apps'));
    const account = await ok(
      api.POST('/v1/accounts', { body: { app: 'openai', name: 'OpenAI', fields: { api_key: 'sk-contract' } } }),
    );
    await ok(api.GET('/v1/accounts'));
    await ok(api.GET('/v1/accounts/{id}', { params: { path: { id: account.data.id } } }));
    await ok(api.DELETE('/v1/accounts/{id}', { params: { path: { id: account.data.id } } }));

    const key = await ok(api.POST('/v1/api_keys', { body: { name: 'contract' } }));
    await ok(api.GET('/v1/api_keys'));
    await ok(api.DELETE('/v1/api_keys/{id}', { params: { path: { id: key.data.id } } }));

    await ok(api.GET('/v1/dead-letters'));
    await ok(api.GET('/v1/registry/packages'));
    await ok(api.GET('/v1/users/me/subscriptions'));
    const workflow = await ok(
      api.POST('/v1/workflows', {
        body: {
          name: 'sum',
          trigger: { type: 'manual' },
          steps: [{ name: 'sum', action: 'fx-sum', props: { nums: [2, 3] } }],
        },
      }),
    );
    await ok(api.GET('/v1/workflows'));
    await ok(api.GET('/v1/workflows/{id}', { params: { path: { id: workflow.data.id } } }));
    const started = await ok(
      api.POST('/v1/workflows/{id}/run', { params: { path: { id: workflow.data.id } }, body: {} }),
    );
    await waitFor(async () => {
      const run = await ok(api.GET('/v1/workflow-runs/{id}', { params: { path: { id: started.data.run_id } } }));
      return run.data.status === 'succeeded' ? run : undefined;
    }, 'the workflow run to succeed');
    await ok(api.GET('/v1/workflows/{id}/runs', { params: { path: { id: workflow.data.id } } }));
    await ok(api.GET('/v1/deliveries', { params: { query: { run_id: started.data.run_id } } }));
    await ok(api.POST('/v1/workflows/{id}/deactivate', { params: { path: { id: workflow.data.id } } }));
    await ok(api.DELETE('/v1/workflows/{id}', { params: { path: { id: workflow.data.id } } }));
    await ok(api.DELETE('/v1/sources/{id}', { params: { path: { id }, query: {} } }));

    // Errors are answers too: their bodies are the document's error shape.
    const signedOut = await api.GET('/v1/session', { headers: { authorization: '' } });
    expect(signedOut.response.status).toBe(401);
    const missing = await api.GET('/v1/sources/{id}', { params: { path: { id: 'dc_missing' } } });
    expect(missing.response.status).toBe(404);
    expect(missing.error?.error.code).toBe('NOT_FOUND');
    const invalid = await api.POST('/v1/api_keys', { body: { name: '' } });
    expect(invalid.response.status).toBe(400);
    expect(invalid.error?.error.code).toBe('VALIDATION_FAILED');

    expect(mismatches).toEqual([]);
    expect(checked.size).toBeGreaterThanOrEqual(40);
  });
});

describe('the generated client', () => {
  it('is up to date with the served document (npm run api:generate rewrites it)', async () => {
    const fresh = (await renderApiTypes(doc)) as string;
    expect(readFileSync(TYPES_FILE as string, 'utf8') === fresh, 'run npm run api:generate and commit the result').toBe(
      true,
    );
  });
});
