/**
 * HTTP-level inputs the framework meets before a route does: errors Node and Fastify raise answer
 * the project's error shape with a registry code, an empty JSON body counts as no body, and every
 * method Node's HTTP parser accepts reaches an HTTP endpoint.
 */
import { ERROR_CODES } from '@tributary/contracts';
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from './ingress-harness.js';
import { fixture, snapshot, startHarness, type Harness } from './server-harness.js';

let h: Harness;
let port: number;

beforeAll(async () => {
  h = await startHarness({ apiBodyLimitBytes: 64 * 1024 });
  port = Number(new URL(h.base).port);
});

afterAll(async () => {
  await h?.close({ remove: true });
});

/** Writes `raw` on a fresh connection and returns everything the server sent before closing. */
function rawExchange(raw: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.setTimeout(5000, () => {
      socket.destroy();
      reject(new Error('no answer within 5 s'));
    });
    socket.write(raw);
  });
}

/** Status and parsed JSON body of a raw HTTP answer. */
function parseRaw(answer: string): { status: number; contentType: string; body: { error?: Record<string, unknown> } } {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
  const contentType = /\r\ncontent-type: ([^\r]*)/i.exec(head)?.[1] ?? '';
  return { status, contentType, body: JSON.parse(body) as { error?: Record<string, unknown> } };
}

function expectRegistryError(status: number, body: { error?: Record<string, unknown> }, code: string): void {
  expect(body.error?.['code']).toBe(code);
  expect(typeof body.error?.['message']).toBe('string');
  expect(code in ERROR_CODES).toBe(true);
  expect(ERROR_CODES[code as keyof typeof ERROR_CODES].status).toBe(status);
}

describe('framework errors answer { error: { code, message } } with a registry code', () => {
  it('431 for request headers over the limit (answered by Node before Fastify)', async () => {
    for (const path of ['/v1/users/me', '/e/some-endpoint/x']) {
      const answer = parseRaw(
        await rawExchange(`GET ${path} HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`),
      );
      expect(answer.status, path).toBe(431);
      expect(answer.contentType).toMatch(/^application\/json/);
      expectRegistryError(431, answer.body, 'HEADERS_TOO_LARGE');
      expect(String(answer.body.error?.['message'])).toMatch(/16 KB/);
    }
  });

  it('400 for a request Node cannot parse (bad request line, unknown method, bad header)', async () => {
    for (const raw of [
      'this is not http\r\n\r\n',
      'FROBNICATE /v1/users/me HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET /v1/users/me HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n',
    ]) {
      const answer = parseRaw(await rawExchange(raw));
      expect(answer.status, raw).toBe(400);
      expectRegistryError(400, answer.body, 'MALFORMED_REQUEST');
    }
  });

  it('bad JSON, prototype poisoning, a wrong media type and an oversized body on /v1', async () => {
    const before = await snapshot(h);
    const badJson = await h.request('POST', '/v1/sources', { rawBody: '{"component_code": ' });
    expect(badJson.status).toBe(400);
    expectRegistryError(400, badJson.body, 'VALIDATION_FAILED');
    expect(badJson.body.error.message).toMatch(/not valid JSON/);

    const poisoned = await h.request('POST', '/v1/sources', { rawBody: '{"__proto__": {"admin": true}}' });
    expect(poisoned.status).toBe(400);
    expectRegistryError(400, poisoned.body, 'VALIDATION_FAILED');
    expect(poisoned.body.error.message).toMatch(/__proto__/);

    const text = await h.request('POST', '/v1/sources', { rawBody: '<a/>', contentType: 'application/xml' });
    expect(text.status).toBe(415);
    expectRegistryError(415, text.body, 'UNSUPPORTED_MEDIA_TYPE');

    const large = await h.request('POST', '/v1/sources', {
      body: { component_code: `// ${'x'.repeat(100 * 1024)}\n${fixture('f02-counter.mjs')}` },
    });
    expect(large.status).toBe(413);
    expectRegistryError(413, large.body, 'BODY_TOO_LARGE');
    expect(large.body.error.message).toMatch(/65536 bytes/);

    // Refused from Content-Length alone, before the body is read.
    const declared = parseRaw(
      await rawExchange(
        `POST /v1/sources HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${h.key}\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${10 * 1024 * 1024}\r\nConnection: close\r\n\r\n{}`,
      ),
    );
    expect(declared.status).toBe(413);
    expectRegistryError(413, declared.body, 'BODY_TOO_LARGE');
    expect(await snapshot(h)).toEqual(before);
  });
});

describe('DELETE with Content-Type: application/json and no body', () => {
  it('is accepted on every DELETE route', async () => {
    const headers = { 'content-type': 'application/json' };
    const deployed = await h.request('POST', '/v1/sources', { body: { component_code: fixture('f02-counter.mjs') } });
    expect(deployed.status).toBe(200);
    const id = deployed.body.data.id as string;
    const key = await h.request('POST', '/v1/api_keys', { body: { name: 'to delete' } });
    const account = await h.request('POST', '/v1/accounts', {
      body: { app: 'github', name: 'to delete', fields: { oauth_access_token: 'gh-token' } },
    });
    const published = await h.request('PUT', '/v1/components/fx-sum', {
      body: { component_code: fixture('x16-sum-v1.mjs') },
    });
    expect(published.status).toBe(201);

    for (const url of [
      `/v1/sources/${id}/events`,
      `/v1/api_keys/${key.body.data.id}`,
      `/v1/accounts/${account.body.data.id}`,
      '/v1/components/fx-sum',
      `/v1/sources/${id}`,
    ]) {
      const response = await h.request('DELETE', url, { headers });
      expect(response.status, `${url}: ${response.text}`).toBeLessThan(300);
    }
    expect((await h.request('GET', `/v1/sources/${id}`)).status).toBe(404);
  });

  it('still refuses an empty JSON body on the routes that take a body', async () => {
    const before = await snapshot(h);
    const response = await h.request('POST', '/v1/api_keys', { headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_FAILED');
    expect(response.body.error.details.field).toBe('body');
    expect(response.body.error.message).toMatch(/empty/);
    expect(await snapshot(h)).toEqual(before);
  });
});

describe('every method reaches an HTTP endpoint', () => {
  it('answers 200 to each method of http.METHODS (CONNECT is a tunnel, not a request) and runs the source', async () => {
    const deployed = await h.request('POST', '/v1/sources', {
      body: { component_code: fixture('server/http-capture.mjs'), name: 'methods' },
    });
    expect(deployed.status).toBe(200);
    const path = new URL(deployed.body.data.endpoint_url as string).pathname;
    const methods = http.METHODS.filter((method) => method !== 'CONNECT');
    for (const method of methods) {
      const status = await new Promise<number>((resolve, reject) => {
        const request = http.request(
          {
            host: '127.0.0.1',
            port,
            method,
            path: `${path}/m/${method.toLowerCase()}`,
            // RFC 10008: a QUERY request without Content-Type must fail (it does, 400 VALIDATION_FAILED).
            headers: method === 'QUERY' ? { 'content-type': 'text/plain' } : {},
          },
          (response) => {
            response.resume();
            response.on('end', () => resolve(response.statusCode ?? 0));
          },
        );
        request.on('error', reject);
        request.end(method === 'QUERY' ? 'q=1' : undefined);
      });
      expect(status, method).toBe(200);
    }
    const events = await waitFor(async () => {
      const listed = await h.request(
        'GET',
        `/v1/sources/${deployed.body.data.id}/event_summaries?limit=100&expand=event`,
      );
      return listed.body.data.length >= methods.length - 1
        ? (listed.body.data as { event: { method: string } }[])
        : undefined;
    }, 'an event per method');
    // OPTIONS is a CORS preflight, answered without running the source.
    expect(new Set(events.map((record) => record.event.method))).toEqual(
      new Set(methods.filter((method) => method !== 'OPTIONS')),
    );
  });
});
