/**
 * Bad inputs to the REST API (reliability.md §5.2): each gets a clear 4xx with the error body of
 * contract §9.1, and changes nothing. After every refused request the sources, the registry and
 * the row counts are compared with what they were. Also: every /v1 route needs a valid API key,
 * and /v1/openapi.json describes the routes from the same schemas that validate them.
 */
import { readdirSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fixture,
  queueIdle,
  snapshot,
  startHarness,
  type ApiResponse,
  type Harness,
  type RequestOptions,
} from './server-harness.js';

let h: Harness;
let sourceId: string;
let componentId: string;
let baseline: unknown;

beforeAll(async () => {
  h = await startHarness({ apiBodyLimitBytes: 1024 * 1024 });
  const deployed = await h.request('POST', '/v1/sources', { body: { component_code: fixture('f13-hooks.mjs') } });
  expect(deployed.status).toBe(200);
  sourceId = deployed.body.data.id;
  const published = await h.request('PUT', '/v1/components/fx-counter', {
    body: { component_code: fixture('f02-counter.mjs') },
  });
  expect(published.status).toBe(201);
  componentId = published.body.data.id;
  baseline = await snapshot(h);
});

afterAll(async () => {
  await h?.close({ remove: true });
});

/** The error body every refusal must have: { error: { code, message, details? } } and nothing else. */
function expectError(response: ApiResponse, status: number, code?: string): void {
  expect(response.status, response.text).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(Object.keys(response.body)).toEqual(['error']);
  const error = response.body.error as Record<string, unknown>;
  expect(typeof error['code']).toBe('string');
  expect(typeof error['message']).toBe('string');
  expect((error['message'] as string).length).toBeGreaterThan(5);
  expect(Object.keys(error).every((key) => ['code', 'message', 'details'].includes(key))).toBe(true);
  if (code) expect(error['code']).toBe(code);
}

async function refused(
  method: string,
  url: string,
  options: RequestOptions,
  status: number,
  code?: string,
): Promise<ApiResponse> {
  const response = await h.request(method, url, options);
  expectError(response, status, code);
  expect(await snapshot(h), `${method} ${url} changed data`).toEqual(baseline);
  return response;
}

/** A request whose path is sent exactly as written (fetch would normalise `..` segments away). */
function rawRequest(method: string, rawPath: string): Promise<{ status: number; body: string }> {
  const url = new URL(h.base);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: url.hostname, port: url.port, method, path: rawPath, headers: { authorization: `Bearer ${h.key}` } },
      (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    request.on('error', reject);
    request.end();
  });
}

describe('API keys', () => {
  it('refuses every /v1 route of the OpenAPI document without a key, with a wrong key, or with the key in the query', async () => {
    const openapi = await h.request('GET', '/v1/openapi.json');
    expect(openapi.status).toBe(200);
    const paths = openapi.body.paths as Record<string, Record<string, { security: unknown[] }>>;
    const all = Object.entries(paths)
      .filter(([route]) => route.startsWith('/v1/'))
      .flatMap(([route, methods]) =>
        Object.entries(methods).map(([method, operation]) => [method.toUpperCase(), route, operation] as const),
      );
    // Signing a browser in and out is the one /v1 route without a key (it is what gets the session).
    expect(
      all.filter(([, , operation]) => operation.security.length === 0).map(([m, route]) => `${m} ${route}`),
    ).toEqual(['POST /v1/session', 'GET /v1/session', 'DELETE /v1/session']);
    const routes = all
      .filter(([, , operation]) => operation.security.length > 0)
      .map(([method, route]) => [method, route] as const);
    expect(routes.length).toBeGreaterThanOrEqual(16);
    routes.push(['GET', '/v1/openapi.json']);
    const fill = (route: string) =>
      route
        .replace('/v1/components/{id}', `/v1/components/${componentId}`)
        .replace('{key}', 'fx-counter')
        .replace('{id}', sourceId);
    const wrong = [null, 'trb_not-a-key', `${h.key}x`, h.key.slice(0, -1), ''];
    for (const [method, route] of routes) {
      const url = fill(route);
      const body =
        method === 'GET' || method === 'DELETE' ? {} : { body: { component_code: fixture('f02-counter.mjs') } };
      for (const key of wrong) {
        const response = await refused(method, url, { ...body, key }, 401, 'UNAUTHORIZED');
        expect(response.headers.get('www-authenticate') ?? '').not.toContain(h.key);
      }
      await refused(method, `${url}?token=${h.key}`, { ...body, key: null }, 401, 'UNAUTHORIZED');
      await refused(
        method,
        url,
        { ...body, key: null, headers: { authorization: `Basic ${Buffer.from(`admin:${h.key}`).toString('base64')}` } },
        401,
        'UNAUTHORIZED',
      );
    }
    // A key that is unknown and one that is almost right get the same answer.
    const unknown = await h.request('GET', '/v1/users/me', { key: 'trb_not-a-key' });
    const almost = await h.request('GET', '/v1/users/me', { key: `${h.key}x` });
    expect(almost.text).toBe(unknown.text);
    // The health check is the one route without a key.
    expect((await h.request('GET', '/healthz', { key: null })).status).toBe(200);
  });
});

describe('malformed bodies', () => {
  const bodyRoutes = (): [string, string][] => [
    ['POST', '/v1/components'],
    ['PUT', '/v1/components/fx-counter'],
    ['POST', '/v1/sources'],
    ['PUT', `/v1/sources/${sourceId}`],
    ['POST', `/v1/sources/${sourceId}/run`],
  ];

  it('refuses JSON that does not parse, empty bodies and non-object bodies with 400', async () => {
    for (const [method, url] of bodyRoutes()) {
      for (const rawBody of [
        '{"component_code":',
        '{name: "unquoted"}',
        "{'a':1}",
        '{"a":1}}',
        '\u0000',
        'undefined',
      ]) {
        await refused(method, url, { rawBody }, 400, 'VALIDATION_FAILED');
      }
      await refused(method, url, { rawBody: '' }, 400, 'VALIDATION_FAILED');
      for (const rawBody of ['[]', '[{"component_code":"x"}]', '"a string"', '42', 'true']) {
        const response = await refused(method, url, { rawBody }, 400, 'VALIDATION_FAILED');
        expect(response.body.error.details.issues.length).toBeGreaterThan(0);
      }
    }
  });

  it('refuses unknown fields, naming them', async () => {
    const cases: [string, string, Record<string, unknown>][] = [
      ['POST', '/v1/components', { component_code: fixture('f02-counter.mjs'), colour: 'red' }],
      ['PUT', '/v1/components/fx-counter', { component_code: fixture('f02-counter.mjs'), force: true }],
      ['POST', '/v1/sources', { component_code: fixture('f02-counter.mjs'), activ: false }],
      ['POST', '/v1/sources', { component_code: fixture('f02-counter.mjs'), configuredProps: {} }],
      ['PUT', `/v1/sources/${sourceId}`, { activ: false }],
      ['PUT', `/v1/sources/${sourceId}`, { active: false, id: 'dc_other' }],
      ['POST', `/v1/sources/${sourceId}/run`, { event: {}, trigger: 'timer' }],
    ];
    for (const [method, url, body] of cases) {
      const response = await refused(method, url, { body }, 400, 'VALIDATION_FAILED');
      const unknownKey = Object.keys(body).find((key) => !['component_code', 'event', 'active'].includes(key));
      expect(response.body.error.message).toContain(`"${unknownKey}"`);
    }
  });

  it('refuses wrong types and out-of-range values, listing each issue', async () => {
    const cases: [string, string, unknown][] = [
      ['POST', '/v1/components', { component_code: 42 }],
      ['POST', '/v1/components', { component_code: '' }],
      ['POST', '/v1/components', {}],
      ['POST', '/v1/components', { component_url: ['http://example.com/x.mjs'] }],
      ['PUT', '/v1/components/fx-counter', { component_code: null }],
      ['POST', '/v1/sources', {}],
      ['POST', '/v1/sources', { name: 'only a name' }],
      ['POST', '/v1/sources', { component_code: fixture('f02-counter.mjs'), configured_props: [] }],
      ['POST', '/v1/sources', { component_code: fixture('f02-counter.mjs'), configured_props: 'a=1' }],
      ['POST', '/v1/sources', { component_code: fixture('f02-counter.mjs'), name: '' }],
      ['POST', '/v1/sources', { component_code: fixture('f02-counter.mjs'), name: 'n'.repeat(201) }],
      ['POST', '/v1/sources', { component_code: fixture('f02-counter.mjs'), name: 7 }],
      ['POST', '/v1/sources', { component_id: 12 }],
      ['PUT', `/v1/sources/${sourceId}`, { active: 'false' }],
      ['PUT', `/v1/sources/${sourceId}`, { active: 0 }],
      ['PUT', `/v1/sources/${sourceId}`, { configured_props: null }],
      ['PUT', `/v1/sources/${sourceId}`, { name: ['a'] }],
    ];
    for (const [method, url, body] of cases) {
      const response = await refused(method, url, { body }, 400, 'VALIDATION_FAILED');
      expect(response.body.error.details.issues.length, JSON.stringify(body)).toBeGreaterThan(0);
      expect(response.body.error.details.issues[0].path).toMatch(/^body/);
    }
    const twoIssues = await refused(
      'PUT',
      `/v1/sources/${sourceId}`,
      { body: { active: 'x', name: 5 } },
      400,
      'VALIDATION_FAILED',
    );
    expect(twoIssues.body.error.details.issues.map((issue: { path: string }) => issue.path).sort()).toEqual([
      'body.active',
      'body.name',
    ]);
  });

  it('refuses bad query parameters', async () => {
    for (const url of [
      `/v1/sources/${sourceId}/event_summaries?limit=0`,
      `/v1/sources/${sourceId}/event_summaries?limit=101`,
      `/v1/sources/${sourceId}/event_summaries?limit=-1`,
      `/v1/sources/${sourceId}/event_summaries?limit=ten`,
      `/v1/sources/${sourceId}/event_summaries?limit=1.5`,
      `/v1/sources/${sourceId}/event_summaries?limit=1&limit=2`,
      `/v1/sources/${sourceId}/event_summaries?expand=all`,
      `/v1/sources/${sourceId}/event_summaries?unknown=1`,
      `/v1/sources/${sourceId}/logs?limit=1000`,
      `/v1/sources/${sourceId}/logs?before=abc`,
      `/v1/sources/${sourceId}/logs?after=-1`,
      `/v1/users/me/sources?limit=0`,
      `/v1/users/me/sources?page=2`,
    ]) {
      await refused('GET', url, {}, 400, 'VALIDATION_FAILED');
    }
    await refused('DELETE', `/v1/sources/${sourceId}?force=yes`, {}, 400, 'VALIDATION_FAILED');
    await refused('DELETE', `/v1/sources/${sourceId}?cascade=true`, {}, 400, 'VALIDATION_FAILED');
    await refused('DELETE', `/v1/sources/${sourceId}/events?start=1`, {}, 400, 'VALIDATION_FAILED');
  });

  it('refuses prototype-pollution keys and JSON nested too deep, without touching Object.prototype', async () => {
    const code = JSON.stringify(fixture('f02-counter.mjs'));
    for (const rawBody of [
      `{"component_code":${code},"__proto__":{"polluted":true}}`,
      `{"component_code":${code},"configured_props":{"__proto__":{"polluted":true}}}`,
      `{"component_code":${code},"configured_props":{"constructor":{"prototype":{"polluted":true}}}}`,
    ]) {
      await refused('POST', '/v1/sources', { rawBody }, 400, 'VALIDATION_FAILED');
    }
    await refused(
      'PUT',
      `/v1/sources/${sourceId}`,
      { rawBody: '{"configured_props":{"__proto__":{"polluted":true}}}' },
      400,
      'VALIDATION_FAILED',
    );
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();

    for (const depth of [200, 5_000, 100_000]) {
      const nested = `${'['.repeat(depth)}${']'.repeat(depth)}`;
      const deploy = await refused(
        'POST',
        '/v1/sources',
        { rawBody: `{"component_code":${code},"configured_props":{"meta":${nested}}}` },
        400,
        'VALIDATION_FAILED',
      );
      expect(deploy.body.error.message).toContain('nested deeper than 64');
      await refused(
        'POST',
        `/v1/sources/${sourceId}/run`,
        { rawBody: `{"event":${nested}}` },
        400,
        'VALIDATION_FAILED',
      );
    }
    // 64 levels are fine: the body object plus 63 arrays.
    const run = await h.request('POST', `/v1/sources/${sourceId}/run`, {
      rawBody: `{"event":${'['.repeat(63)}${']'.repeat(63)}}`,
    });
    expect(run.status).toBe(202);
    await queueIdle(h, sourceId);
    baseline = await snapshot(h);
  });

  it('refuses bodies over the limit with 413, code over 5 MB with 400, and non-JSON content types', async () => {
    const big = await refused(
      'POST',
      '/v1/components',
      { body: { component_code: `// ${'x'.repeat(1024 * 1024)}` } },
      413,
      'BODY_TOO_LARGE',
    );
    expect(big.body.error.message).toContain('larger');
    await refused(
      'POST',
      `/v1/sources/${sourceId}/run`,
      { body: { event: 'e'.repeat(2 * 1024 * 1024) } },
      413,
      'BODY_TOO_LARGE',
    );
    await refused(
      'PUT',
      `/v1/sources/${sourceId}`,
      { body: { configured_props: { blob: 'b'.repeat(1024 * 1024) } } },
      413,
      'BODY_TOO_LARGE',
    );

    for (const contentType of [
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/octet-stream',
      'application/xml',
    ]) {
      const response = await h.request('POST', '/v1/sources', { rawBody: 'component_code=x', contentType });
      expectError(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
      expect(await snapshot(h)).toEqual(baseline);
    }
    // text/plain is parsed as a string, which is not an object: still a clear 400.
    await refused(
      'POST',
      '/v1/sources',
      { rawBody: JSON.stringify({ component_code: 'x' }), contentType: 'text/plain' },
      400,
      'VALIDATION_FAILED',
    );
  });

  it('refuses component code over 5 MB when the body limit allows it', async () => {
    const roomy = await startHarness({ apiBodyLimitBytes: 8 * 1024 * 1024, startEngine: false });
    try {
      const before = await snapshot(roomy);
      const response = await roomy.request('POST', '/v1/components', {
        body: { component_code: `// ${'x'.repeat(5 * 1024 * 1024)}` },
      });
      expectError(response, 400, 'VALIDATION_FAILED');
      expect(response.body.error.details.field).toBe('component_code');
      expect(await snapshot(roomy)).toEqual(before);
    } finally {
      await roomy.close({ remove: true });
    }
  });
});

describe('unknown ids', () => {
  it('answers 404 NOT_FOUND for sources, components and registry keys that do not exist', async () => {
    const valid = { component_code: fixture('f02-counter.mjs') };
    for (const ref of ['dc_doesnotexi', 'dc_', 'no-such-slug', 'sc_abcdefghij']) {
      await refused('GET', `/v1/sources/${ref}`, {}, 404, 'NOT_FOUND');
      await refused('PUT', `/v1/sources/${ref}`, { body: { active: false } }, 404, 'NOT_FOUND');
      await refused('PUT', `/v1/sources/${ref}`, { body: valid }, 404, 'NOT_FOUND');
      await refused('DELETE', `/v1/sources/${ref}`, {}, 404, 'NOT_FOUND');
      await refused('DELETE', `/v1/sources/${ref}?force=true`, {}, 404, 'NOT_FOUND');
      await refused('POST', `/v1/sources/${ref}/run`, { body: {} }, 404, 'NOT_FOUND');
      await refused('GET', `/v1/sources/${ref}/event_summaries`, {}, 404, 'NOT_FOUND');
      await refused('DELETE', `/v1/sources/${ref}/events`, {}, 404, 'NOT_FOUND');
      await refused('GET', `/v1/sources/${ref}/logs`, {}, 404, 'NOT_FOUND');
    }
    await refused('GET', '/v1/components/sc_doesnotexi', {}, 404, 'NOT_FOUND');
    await refused('GET', '/v1/components/registry/not-published', {}, 404, 'NOT_FOUND');
    await refused('DELETE', '/v1/components/not-published', {}, 404, 'NOT_FOUND');
    await refused('POST', '/v1/sources', { body: { component_id: 'sc_doesnotexi' } }, 404, 'NOT_FOUND');
    await refused('PUT', `/v1/sources/${sourceId}`, { body: { component_id: 'sc_doesnotexi' } }, 404, 'NOT_FOUND');
    await refused('PUT', `/v1/sources/${sourceId}`, { body: { component_key: 'not-published' } }, 404, 'NOT_FOUND');
    await refused('GET', `/v1/sources/${sourceId}/event_summaries?before=0-0`, {}, 404, 'NOT_FOUND');
    await refused('DELETE', `/v1/sources/${sourceId}/events?end_id=0-0`, {}, 404, 'NOT_FOUND');
    await refused('GET', '/v1/no-such-route', {}, 404, 'NOT_FOUND');
    await refused('PATCH', `/v1/sources/${sourceId}`, { body: { active: false } }, 404, 'NOT_FOUND');
  });
});

describe('path traversal in keys, ids and names', () => {
  const traversals = [
    '..%2F..%2Fetc',
    '..%2f..%2fetc%2fpasswd',
    '%2e%2e%2f%2e%2e%2fetc',
    '..%5C..%5Cwindows',
    '%2Fetc%2Fpasswd',
    'a%00b',
    'FX-COUNTER',
    '%EF%BD%86x-counter',
  ];

  it('refuses publishing or unpublishing under such keys (400) and finds nothing under them (404)', async () => {
    for (const key of traversals) {
      const put = await refused(
        'PUT',
        `/v1/components/${key}`,
        { body: { component_code: fixture('f02-counter.mjs') } },
        400,
        'VALIDATION_FAILED',
      );
      expect(put.body.error.details.field).toBe('key');
      await refused('DELETE', `/v1/components/${key}`, {}, 400, 'VALIDATION_FAILED');
      await refused('GET', `/v1/components/${key}`, {}, 404, 'NOT_FOUND');
      await refused('GET', `/v1/components/registry/${key}`, {}, 404, 'NOT_FOUND');
      await refused('GET', `/v1/sources/${key}`, {}, 404, 'NOT_FOUND');
      await refused('PUT', `/v1/sources/${key}`, { body: { active: false } }, 404, 'NOT_FOUND');
      await refused('DELETE', `/v1/sources/${key}`, {}, 404, 'NOT_FOUND');
      await refused('POST', `/v1/sources/${key}/run`, { body: {} }, 404, 'NOT_FOUND');
    }
    await refused(
      'PUT',
      `/v1/components/${'k'.repeat(129)}`,
      { body: { component_code: fixture('f02-counter.mjs') } },
      400,
      'VALIDATION_FAILED',
    );
    // Path segments the router cannot take still get the API's error body.
    await refused('GET', `/v1/sources/${'s'.repeat(5000)}`, {}, 400, 'VALIDATION_FAILED');
    await refused(
      'PUT',
      `/v1/components/${'k'.repeat(5000)}`,
      { body: { component_code: fixture('f02-counter.mjs') } },
      400,
      'VALIDATION_FAILED',
    );
    const badEncoding = await rawRequest('DELETE', '/v1/components/%E0%A4%A');
    expect(badEncoding.status).toBe(400);
    expect(JSON.parse(badEncoding.body)).toMatchObject({ error: { code: 'VALIDATION_FAILED' } });
    expect(await snapshot(h)).toEqual(baseline);
  });

  it('takes a registry key of the longest allowed length (128) and a 200-character Unicode name in the path', async () => {
    const key = `k${'0123456789abcdef'.repeat(8)}`.slice(0, 128);
    const code = fixture('f02-counter.mjs').replace('key: "fx-counter"', `key: "${key}"`);
    const published = await h.request('PUT', `/v1/components/${key}`, { body: { component_code: code } });
    expect(published.status, published.text).toBe(201);
    expect((await h.request('GET', `/v1/components/registry/${key}`)).body.data.key).toBe(key);
    const name = '源'.repeat(200);
    const deployed = await h.request('POST', '/v1/sources', { body: { component_key: key, name } });
    expect(deployed.status).toBe(200);
    const byName = await h.request('GET', `/v1/sources/${encodeURIComponent(name)}`);
    expect(byName.status).toBe(200);
    expect(byName.body.data.id).toBe(deployed.body.data.id);
    expect((await h.request('DELETE', `/v1/sources/${deployed.body.data.id}`)).status).toBe(200);
    expect((await h.request('DELETE', `/v1/components/${key}`)).status).toBe(200);
    expect(await snapshot(h, { savedComponents: false })).toEqual(withoutSavedComponents(baseline));
    baseline = await snapshot(h); // the saved component stays (reachable by its sc_ id)
  });

  it('does not resolve raw ../ or %2e%2e segments (fetch would normalise them away, so these go out as written)', async () => {
    for (const [method, rawPath, status] of [
      ['GET', '/v1/sources/../../etc/passwd', 404],
      ['GET', `/v1/sources/${sourceId}/../../users/me`, 404],
      ['DELETE', `/v1/sources/${sourceId}/..`, 404],
      ['GET', '/v1/sources/..', 404],
      ['DELETE', '/v1/sources/%2e%2e', 404],
      ['PUT', '/v1/components/../../etc', 404],
      ['DELETE', '/v1/components/../registry', 404],
      ['GET', '/v1/components/./registry', 404],
      ['DELETE', '/v1/components/..', 400],
      ['DELETE', '/v1/components/%2e%2e', 400],
      ['DELETE', '/v1/components/%2e%2e%2f%2e%2e%2fetc', 400],
    ] as const) {
      const response = await rawRequest(method, rawPath);
      expect(response.status, `${method} ${rawPath}`).toBe(status);
      expect(JSON.parse(response.body)).toMatchObject({
        error: { code: status === 404 ? 'NOT_FOUND' : 'VALIDATION_FAILED' },
      });
      expect(await snapshot(h)).toEqual(baseline);
    }
  });

  it('turns a name with ../ into a plain slug, and stores code only under its hash', async () => {
    const deployed = await h.request('POST', '/v1/sources', {
      body: { component_code: fixture('f02-counter.mjs'), name: '../../etc/passwd' },
    });
    expect(deployed.status).toBe(200);
    expect(deployed.body.data.name_slug).toBe('etc-passwd');
    const renamed = await h.request('PUT', `/v1/sources/${deployed.body.data.id}`, {
      body: { name: '..\\..\\windows\\system32' },
    });
    expect(renamed.body.data.name_slug).toBe('windows-system32');
    const dots = await h.request('PUT', `/v1/sources/${deployed.body.data.id}`, { body: { name: '../..' } });
    expect(dots.body.data.name_slug).toBe('source');
    // The data directory holds the database, the master key and code files named by hash only.
    const entries = readdirSync(h.dataDir).filter((name) => !name.startsWith('tributary.db'));
    expect(entries.sort()).toEqual(['code', 'master.key']);
    for (const file of readdirSync(path.join(h.dataDir, 'code'))) expect(file).toMatch(/^[0-9a-f]{32}\.(mjs|cjs)$/);
    expect((await h.request('DELETE', `/v1/sources/${deployed.body.data.id}`)).status).toBe(200);
    expect(await snapshot(h, { savedComponents: false })).toEqual(withoutSavedComponents(baseline));
  });
});

function withoutSavedComponents(value: unknown): unknown {
  const copy = structuredClone(value) as { counts: Record<string, number> };
  delete copy.counts['components'];
  return copy;
}

describe('the OpenAPI document', () => {
  it('is generated from the request schemas: strict bodies, query parameters, bearer or session security', async () => {
    const response = await h.request('GET', '/v1/openapi.json');
    expect(response.status).toBe(200);
    const doc = response.body;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: 'Tributary API', version: '0.0.0-test' });
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    const paths = doc.paths as Record<
      string,
      Record<
        string,
        {
          requestBody?: { content: Record<string, { schema: Record<string, unknown> }> };
          parameters: { name: string; in: string }[];
          security: unknown[];
          responses: Record<string, unknown>;
        }
      >
    >;
    for (const [route, method] of [
      ['/v1/components', 'post'],
      ['/v1/components/{id}', 'get'],
      ['/v1/components/{key}', 'put'],
      ['/v1/components/{key}', 'delete'],
      ['/v1/components/registry/{key}', 'get'],
      ['/v1/users/me', 'get'],
      ['/v1/users/me/sources', 'get'],
      ['/v1/sources', 'post'],
      ['/v1/sources/{id}', 'get'],
      ['/v1/sources/{id}', 'put'],
      ['/v1/sources/{id}', 'delete'],
      ['/v1/sources/{id}/run', 'post'],
      ['/v1/sources/{id}/event_summaries', 'get'],
      ['/v1/sources/{id}/events', 'delete'],
      ['/v1/sources/{id}/logs', 'get'],
    ] as const) {
      const operation = paths[route]?.[method];
      expect(operation, `${method} ${route}`).toBeDefined();
      expect(operation?.security).toEqual([{ bearer: [] }, { session: [] }]);
      expect(operation?.responses).toHaveProperty('401');
    }
    const deploy = paths['/v1/sources']?.['post']?.requestBody?.content['application/json']?.schema as Record<
      string,
      unknown
    >;
    expect(deploy['additionalProperties']).toBe(false);
    expect(Object.keys(deploy['properties'] as object).sort()).toEqual([
      'component_code',
      'component_id',
      'component_key',
      'component_url',
      'configured_props',
      'name',
    ]);
    const update = paths['/v1/sources/{id}']?.['put']?.requestBody?.content['application/json']?.schema as Record<
      string,
      { type?: string }
    >;
    expect((update['properties'] as unknown as Record<string, { type?: string }>)['active']?.type).toBe('boolean');
    const eventParams = paths['/v1/sources/{id}/event_summaries']?.['get']?.parameters.map(
      (parameter) => `${parameter.in}:${parameter.name}`,
    );
    expect(eventParams?.sort()).toEqual(['path:id', 'query:after', 'query:before', 'query:expand', 'query:limit']);
    const run = paths['/v1/sources/{id}/run']?.['post']?.responses;
    expect(run).toHaveProperty('202');
  });
});
