/**
 * SSE hardening (issue 14): a client that does not read is dropped once its unread output passes
 * the buffer limit, with a last frame saying why; stream tickets replace API keys in URLs.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamTickets } from '../src/sse/stream-tickets.js';
import {
  postJson,
  SseStream,
  startTestServer,
  waitFor,
  type DeployedSource,
  type TestServer,
} from './ingress-harness.js';

// Above one request's burst (4 × 1 MB), so a client that reads keeps up.
const LIMIT = 8 * 1024 * 1024;

describe('SSE hardening', () => {
  let server: TestServer;
  let bulky: DeployedSource;

  beforeAll(async () => {
    server = await startTestServer({ sseMaxBufferBytes: LIMIT });
    bulky = await server.api.deploy('server/bulky-emitter.mjs', { name: 'bulky' });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('drops a client that does not read once its unread output passes the limit, and keeps serving the others', async () => {
    const reading = await SseStream.open(`${server.base}/sources/${bulky.id}/sse`, {
      authorization: `Bearer ${server.key}`,
    });
    const url = new URL(server.base);
    const socket = net.connect({ host: url.hostname, port: Number(url.port) });
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      `GET /sources/${bulky.id}/sse HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${server.key}\r\n\r\n`,
    );
    // This client reads nothing from here on: the server's output piles up in its buffers.
    socket.pause();
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.on('error', () => undefined);
    // Each request emits ~4 MB; 8 of them are more than the socket buffers and the limit hold.
    // Once dropped, the client reads again (within the server's grace) to see the close frame.
    const dropped = waitFor(
      () => server.logs.find((line) => /SSE client of \/sources\/:id\/sse dropped: it read too slowly/.test(line)),
      'the slow client to be dropped',
      120_000,
    ).then(() => socket.resume());
    // The reading client gets each request's events before the next request is sent.
    for (let n = 1; n <= 8; n++) {
      const response = await postJson(server.api.endpoint(bulky), { n });
      expect(response.status).toBe(200);
      await waitFor(() => (reading.messages.length >= 4 * n ? true : undefined), `request ${n}'s events`, 30_000);
    }
    await dropped;
    await closed;
    // Each write is one chunk of the chunked body, so frames are whole between chunk headers.
    const text = Buffer.concat(received).toString('utf8');
    expect(text).toMatch(/^HTTP\/1\.1 200/);
    const close = /event: tributary\/close\ndata: (.*)\n\n/.exec(text);
    expect(JSON.parse(close?.[1] ?? '{}')).toMatchObject({ error: { code: 'SSE_CLIENT_TOO_SLOW' } });
    expect(text.indexOf('event: tributary/close')).toBeGreaterThan(text.lastIndexOf('\nid: '));
    expect(text.match(/\nid: /g)?.length ?? 0).toBeLessThan(32);
    expect(reading.messages).toHaveLength(32);
    expect(server.logs.filter((line) => line.includes('read too slowly'))).toHaveLength(1);
    await reading.close();
  }, 150_000);

  describe('stream tickets', () => {
    async function ticketFor(path: string): Promise<{ status: number; json: Record<string, unknown> }> {
      return server.api.call('POST', '/v1/sse/tickets', { path });
    }

    it('opens the stream it was issued for, once', async () => {
      const path = `/sources/${bulky.id}/sse`;
      const issued = await ticketFor(path);
      expect(issued.status).toBe(201);
      const data = issued.json['data'] as { ticket: string; url: string; expires_at: number };
      expect(data.ticket).toMatch(/^sst_/);
      expect(data.url).toBe(`${path}?ticket=${data.ticket}`);
      expect(data.expires_at).toBeGreaterThan(Date.now() / 1000);
      const stream = await SseStream.open(`${server.base}${data.url}`);
      try {
        expect(stream.response.status).toBe(200);
      } finally {
        await stream.close();
      }
      const again = await fetch(`${server.base}${data.url}`);
      expect(again.status).toBe(401);
      expect(await again.json()).toMatchObject({ error: { code: 'UNAUTHORIZED', message: /ticket is not valid/ } });
    });

    it('does not open another stream than its own', async () => {
      const issued = await ticketFor(`/sources/${bulky.id}/sse`);
      const { ticket } = issued.json['data'] as { ticket: string };
      const response = await fetch(`${server.base}/sources/${bulky.id}/logs/sse?ticket=${ticket}`);
      expect(response.status).toBe(401);
    });

    it('is refused for a path that is not a stream, and without a key', async () => {
      const bad = await ticketFor('/v1/sources');
      expect(bad.status).toBe(400);
      expect(bad.json).toMatchObject({ error: { code: 'VALIDATION_FAILED', details: { field: 'path' } } });
      const anonymous = await fetch(`${server.base}/v1/sse/tickets`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ path: `/sources/${bulky.id}/sse` }),
      });
      expect(anonymous.status).toBe(401);
    });

    it('expires after 60 seconds', () => {
      let now = 1_000_000;
      const tickets = new StreamTickets(() => now);
      const late = tickets.issue('/sse/orders');
      const early = tickets.issue('/sse/orders');
      now += 59_999;
      expect(tickets.redeem(early.ticket, '/sse/orders')).toBe(true);
      now += 1;
      expect(tickets.redeem(late.ticket, '/sse/orders')).toBe(false);
    });
  });
});
