/**
 * Origins and security headers (issue 14): the server's own answers carry CSP, frame, content-type
 * and referrer headers, endpoint responses are left as the component wrote them, and with
 * TRIBUTARY_ENDPOINT_BASE_URL endpoints answer on their own host only.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type DeployedSource, type TestServer } from './ingress-harness.js';

const HOOKS = 'http://hooks.test.invalid';

/** One request with the Host header of our choosing (fetch would set its own). */
function request(
  base: string,
  options: { host: string; path: string; method?: string; key?: string },
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: options.path,
        method: options.method ?? 'GET',
        headers: { host: options.host, ...(options.key ? { authorization: `Bearer ${options.key}` } : {}) },
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end();
  });
}

describe('security headers', () => {
  let server: TestServer;
  let capture: DeployedSource;

  beforeAll(async () => {
    server = await startTestServer();
    capture = await server.api.deploy('server/http-capture.mjs', { name: 'capture' });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("are sent on the server's own answers", async () => {
    const host = new URL(server.base).host;
    for (const path of ['/v1/users/me/sources', '/healthz', '/nowhere']) {
      const { headers } = await request(server.base, { host, path, key: server.key });
      expect(headers['content-security-policy'], path).toMatch(/default-src 'self'/);
      expect(headers['content-security-policy'], path).toMatch(/frame-ancestors 'none'/);
      expect(headers['content-security-policy'], path).toMatch(/script-src 'self'(;|$)/);
      expect(headers['x-frame-options'], path).toBe('DENY');
      expect(headers['x-content-type-options'], path).toBe('nosniff');
      expect(headers['referrer-policy'], path).toBe('no-referrer');
    }
  });

  it("are not added to an endpoint's response, which is the component's", async () => {
    const host = new URL(server.base).host;
    const { status, headers } = await request(server.base, {
      host,
      path: new URL(server.api.endpoint(capture)).pathname,
      method: 'POST',
    });
    expect(status).toBe(200);
    expect(headers['content-security-policy']).toBeUndefined();
    expect(headers['x-frame-options']).toBeUndefined();
  });
});

describe('endpoints on an origin of their own (TRIBUTARY_ENDPOINT_BASE_URL)', () => {
  let server: TestServer;
  let capture: DeployedSource;

  beforeAll(async () => {
    server = await startTestServer({ endpointBaseUrl: HOOKS });
    capture = await server.api.deploy('server/http-capture.mjs', { name: 'capture' });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('publishes endpoint URLs under that origin', () => {
    expect(capture.endpoint_url).toMatch(/^http:\/\/hooks\.test\.invalid\/e\/[A-Za-z0-9_-]+$/);
  });

  it('answers /e/ on the endpoint host only, and nothing else there', async () => {
    const path = new URL(capture.endpoint_url ?? '').pathname;
    const appHost = new URL(server.base).host;
    expect((await request(server.base, { host: 'hooks.test.invalid', path, method: 'POST' })).status).toBe(200);
    const onApp = await request(server.base, { host: appHost, path, method: 'POST' });
    expect(onApp.status).toBe(404);
    expect(JSON.parse(onApp.body)).toMatchObject({
      error: { code: 'NOT_FOUND', message: `endpoints are served at ${HOOKS}/e/..., not on this host` },
    });
    // The API (and the web app) are not served on the endpoint host, a key notwithstanding.
    const api = await request(server.base, {
      host: 'hooks.test.invalid',
      path: '/v1/users/me/sources',
      key: server.key,
    });
    expect(api.status).toBe(404);
    expect(JSON.parse(api.body)).toMatchObject({ error: { code: 'NOT_FOUND' } });
    expect((await request(server.base, { host: appHost, path: '/v1/users/me/sources', key: server.key })).status).toBe(
      200,
    );
    expect((await request(server.base, { host: 'hooks.test.invalid', path: '/healthz' })).status).toBe(200);
  });
});
