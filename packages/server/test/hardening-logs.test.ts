/**
 * What the server logs about a request: the route pattern or a redacted path, never a query
 * string (browsers' SSE `?token=` is an API key) and never an endpoint id (the only secret of an
 * endpoint URL). Checked on the pino output of a real server and on the engine log.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, startHarness, type Harness } from './server-harness.js';

const QUERY_SECRET = 'QSECRET9d2c';
let h: Harness;
const pinoLines: string[] = [];

beforeAll(async () => {
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      pinoLines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  h = await startHarness({
    logLevel: 'debug',
    logStream: stream,
    beforeListen: (app) => {
      app.get('/v1/test-boom/:id', () => {
        throw new Error('boom from a route');
      });
    },
  });
});

afterAll(async () => {
  await h?.close({ remove: true });
});

describe('request logs', () => {
  it('carry route patterns or redacted paths, never query strings, API keys or endpoint ids', async () => {
    const deployed = await h.request('POST', '/v1/sources', {
      body: { component_code: fixture('server/http-capture.mjs'), name: 'logged' },
    });
    expect(deployed.status).toBe(200);
    const sourceId = deployed.body.data.id as string;
    const endpointId = new URL(deployed.body.data.endpoint_url as string).pathname.split('/')[2] ?? '';
    expect(endpointId.length).toBeGreaterThan(10);

    // SSE with the key in the query (browsers' EventSource cannot send headers), good and bad.
    const sse = new AbortController();
    const stream = await fetch(`${h.base}/sources/${sourceId}/sse?token=${h.key}`, { signal: sse.signal });
    expect(stream.status).toBe(200);
    sse.abort();
    expect((await fetch(`${h.base}/sources/${sourceId}/sse?token=wrong-${QUERY_SECRET}`)).status).toBe(401);
    // An endpoint hit with a query, an unknown endpoint, no route, a bad path, a failing route.
    expect(
      (await fetch(`${h.base}/e/${endpointId}/hook?secret=${QUERY_SECRET}`, { method: 'POST', body: '{}' })).status,
    ).toBe(200);
    expect((await fetch(`${h.base}/e/${endpointId}zz/hook?secret=${QUERY_SECRET}`)).status).toBe(404);
    expect((await h.request('GET', `/v1/nope/${endpointId}?token=${QUERY_SECRET}`)).status).toBe(404);
    expect((await fetch(`${h.base}/e/${endpointId}/%zz?token=${QUERY_SECRET}`)).status).toBe(400);
    expect((await h.request('GET', `/v1/test-boom/${endpointId}?token=${QUERY_SECRET}`)).status).toBe(500);

    // A request is logged when its response has gone out, so the client can see the answer before
    // the line is written: wait for the lines rather than a fixed pause.
    const requestLines = () =>
      pinoLines
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((entry) => typeof entry['status'] === 'number')
        .map((entry) => [entry['method'], entry['route'], entry['status']]);
    await expect.poll(requestLines).toEqual(
      expect.arrayContaining([
        ['GET', '/v1/…', 404],
        ['GET', '/sources/:id/sse', 401],
        ['POST', '/e/:endpointId/*', 200],
        ['GET', '/e/:endpointId/*', 404],
        ['GET', '/v1/test-boom/:id', 500],
      ]),
    );
    const everything = [...pinoLines, ...h.logLines].join('\n');
    expect(everything).toContain('boom from a route'); // the failure itself is logged
    for (const secret of [h.key, QUERY_SECRET, endpointId, endpointId.slice(0, 6), '?token', '?secret']) {
      expect(everything, secret).not.toContain(secret);
    }
  });
});
