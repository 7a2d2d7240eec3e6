import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from './api-client.js';
import { followSse, type SseMessage } from './sse-follow.js';

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A real event-stream server on loopback: each connection gets the next of `bodies`, then closes. */
async function streamServer(
  bodies: readonly string[],
): Promise<{ client: ApiClient; requests: http.IncomingMessage[] }> {
  const requests: http.IncomingMessage[] = [];
  const server = http.createServer((request, response) => {
    const body = bodies[requests.length] ?? bodies.at(-1) ?? '';
    requests.push(request);
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    // One byte at a time: messages and line endings split across chunks must parse all the same.
    for (const byte of Buffer.from(body)) response.write(Buffer.from([byte]));
    response.end();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const client = new ApiClient({
    profile: 'default',
    apiUrl: `http://127.0.0.1:${port}`,
    apiKey: 'trb_test',
    source: 'flag',
  });
  return { client, requests };
}

interface Followed {
  readonly messages: SseMessage[];
  /** The reconnect delays followSse asked to wait, in order, up to the last message wanted. */
  readonly waits: number[];
}

/**
 * Follows the stream until `until` holds. Reconnect waits are recorded and end at once: which
 * delay was asked for is the point, not how long a loaded machine's timer takes to fire it.
 */
function follow(client: ApiClient, until: (messages: SseMessage[]) => boolean): Promise<Followed> {
  const messages: SseMessage[] = [];
  const waits: number[] = [];
  const controller = new AbortController();
  return new Promise((resolve, reject) => {
    followSse({
      client,
      path: '/v1/sources/dc_x/sse',
      signal: controller.signal,
      wait: async (ms) => void waits.push(ms),
      onMessage: (message) => {
        messages.push(message);
        if (until(messages)) {
          controller.abort();
          // A copy taken now: once the stream ends, the loop may still ask for one more wait.
          resolve({ messages, waits: [...waits] });
        }
      },
    }).catch(reject);
  });
}

describe('followSse', () => {
  it('parses CR, LF and CRLF line endings, multi-line data and comments', async () => {
    const { client } = await streamServer([
      ': keepalive\r\rid: 1\rdata: {"a":1}\r\rid: 2\r\ndata: line one\r\ndata: line two\r\n\r\nid: 3\ndata: x\n\n',
    ]);
    const { messages } = await follow(client, (got) => got.length === 3);
    expect(messages).toEqual([
      { id: '1', event: null, data: '{"a":1}' },
      { id: '2', event: null, data: 'line one\nline two' },
      { id: '3', event: null, data: 'x' },
    ]);
  });

  it('reconnects after the delay the server set with retry: (CR line endings), resuming with Last-Event-ID', async () => {
    // Bare CR ends every line here, the retry: field too: a parser splitting on LF alone sees nothing.
    const { client, requests } = await streamServer(['retry: 50\rid: 7\rdata: first\r\r', 'id: 8\rdata: second\r\r']);
    const { messages, waits } = await follow(client, (got) => got.length === 2);
    expect(messages.map((message) => message.data)).toEqual(['first', 'second']);
    expect(requests[1]?.headers['last-event-id']).toBe('7');
    // The server asked for 50 ms, not the default second.
    expect(waits).toEqual([50]);
  });

  it('waits the default second before reconnecting when the server set no retry:', async () => {
    const { client, requests } = await streamServer(['id: 7\ndata: first\n\n', 'id: 8\ndata: second\n\n']);
    const { messages, waits } = await follow(client, (got) => got.length === 2);
    expect(messages.map((message) => message.data)).toEqual(['first', 'second']);
    expect(requests[1]?.headers['last-event-id']).toBe('7');
    expect(waits).toEqual([1000]);
  });

  it('resumes with Last-Event-ID after the server dropped it as too slow, without passing the close frame on', async () => {
    const close = 'event: tributary/close\ndata: {"error":{"code":"SSE_CLIENT_TOO_SLOW","message":"too slow"}}\n\n';
    const { client, requests } = await streamServer([
      `retry: 50\nid: 7\ndata: first\n\n${close}`,
      'id: 8\ndata: second\n\n',
    ]);
    const { messages, waits } = await follow(client, (got) => got.length === 2);
    expect(messages.map((message) => message.data)).toEqual(['first', 'second']);
    expect(requests[1]?.headers['last-event-id']).toBe('7');
    expect(waits).toEqual([50]);
  });
});
