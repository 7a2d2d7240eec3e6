/**
 * The two load generators of the workflow benchmarks (bench/closed-loop.mjs): autocannon, which
 * `npm run bench:workflows` uses as issue 10 specifies, and node:http's client (`--load-generator
 * node-http`). Each drives a small loopback server for a short window; the figures the benchmarks
 * judge by (2xx per second, latency, the counter read at the window's edges) must agree with what
 * the server itself saw, whichever generator sent the load.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedLoop, measureClosedLoop } from '../../../bench/closed-loop.mjs';

let server: http.Server;
let url = '';
/** POSTs the server answered 200, and the bodies' lengths it saw. */
let answered = 0;
const bodyLengths = new Set<number>();

beforeAll(async () => {
  server = http.createServer((request, response) => {
    let length = 0;
    request.on('data', (chunk: Buffer) => (length += chunk.length));
    request.on('end', () => {
      if (request.url === '/teapot') {
        response.writeHead(418).end();
        return;
      }
      bodyLengths.add(length);
      answered += 1;
      response.writeHead(200, { 'content-type': 'text/plain' }).end('OK');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('closed-loop load generators of the workflow benchmarks', () => {
  it.each(['autocannon', 'node-http'])(
    '%s: the window counts what the server answered, with 1 KB bodies and latencies',
    async (generator) => {
      bodyLengths.clear();
      const load = closedLoop({ concurrency: '8', warmup: '500', duration: '1500', 'load-generator': generator });
      expect(load.generator).toBe(generator);
      const figures = await measureClosedLoop(`test ${generator}`, `${url}/e/test`, load, () => answered);
      expect(figures.ok).toBeGreaterThan(100);
      expect(figures.nonOk).toBe(0);
      expect(figures.statuses).toEqual({ 200: figures.ok });
      // Requests started in the window against answers counted at its edges: the same flow, give or
      // take the requests in flight at either edge.
      expect(Math.abs((figures.completedPerSecond ?? 0) - figures.reqPerSecond)).toBeLessThan(
        figures.reqPerSecond * 0.05 + (8 / 1.5) * 2,
      );
      expect(figures.p50Ms).toBeGreaterThan(0);
      expect(figures.p99Ms).toBeGreaterThanOrEqual(figures.p50Ms ?? 0);
      expect(figures.acknowledged).toBeGreaterThan(figures.ok);
      expect([...bodyLengths].every((length) => length >= 1000 && length <= 1040)).toBe(true);
    },
    30_000,
  );

  it('autocannon: answers other than 2xx are counted as not ok', async () => {
    const load = closedLoop({ concurrency: '4', warmup: '200', duration: '800', 'load-generator': 'autocannon' });
    const figures = await measureClosedLoop('test teapot', `${url}/teapot`, load);
    expect(figures.ok).toBe(0);
    expect(figures.nonOk).toBeGreaterThan(10);
    expect(Object.keys(figures.statuses)).toEqual(['418']);
  }, 30_000);

  it('refuses a load generator it does not know', () => {
    expect(() => closedLoop({ concurrency: '1', warmup: '0', duration: '1', 'load-generator': 'wrk' })).toThrow(
      /--load-generator must be one of autocannon, node-http, got wrk/,
    );
  });
});
