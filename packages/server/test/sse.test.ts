/**
 * SSE streams of a source's events and logs (contract §9.3, reliability §5.2): frames, auth,
 * keep-alive, Last-Event-ID resume and the legacy aliases, against a real engine and server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  postJson,
  SseStream,
  startTestServer,
  waitFor,
  waitForEvents,
  type DeployedSource,
  type EventRecord,
  type TestServer,
} from './ingress-harness.js';

/** Orders event ids `<indexed_at_ms>-<n>` by time, then by n. */
function compareEventIds(a: string, b: string): number {
  const [aMs = 0, aN = 0] = a.split('-').map(Number);
  const [bMs = 0, bN = 0] = b.split('-').map(Number);
  return aMs - bMs || aN - bN;
}

interface LogRecord {
  readonly id: string;
  readonly ts: number;
  readonly level: string;
  readonly message: string;
  readonly invocation_id: string | null;
}

describe('SSE streams', () => {
  let server: TestServer;
  let numbered: DeployedSource;
  let capture: DeployedSource;
  const open: SseStream[] = [];

  /** Opens a stream on the server and closes it after the test file. */
  async function connect(path: string, headers: Record<string, string> = {}): Promise<SseStream> {
    const stream = await SseStream.open(`${server.base}${path}`, headers);
    open.push(stream);
    return stream;
  }

  const bearer = (): Record<string, string> => ({ authorization: `Bearer ${server.key}` });

  /** Sends { n } to the numbered source; throws unless it is acknowledged. */
  async function send(n: number): Promise<void> {
    const response = await postJson(server.api.endpoint(numbered), { n });
    expect(response.status).toBe(200);
  }

  beforeAll(async () => {
    server = await startTestServer({ sseKeepaliveMs: 100 });
    numbered = await server.api.deploy('server/numbered-webhook.mjs', { name: 'numbered' });
    capture = await server.api.deploy('server/http-capture.mjs', { name: 'capture' });
  });

  afterAll(async () => {
    await Promise.all(open.map((stream) => stream.close()));
    await server?.close();
  });

  describe('auth', () => {
    const paths = (id: string) => [
      `/sources/${id}/sse`,
      `/sources/${id}/logs/sse`,
      `/sse/dc/${id}/emits`,
      `/sse/dc/${id}/observations`,
    ];

    it('answers 401 JSON without a key, on every stream path', async () => {
      for (const path of paths(numbered.id)) {
        const response = await fetch(`${server.base}${path}`);
        expect(response.status, path).toBe(401);
        expect(response.headers.get('content-type')).toMatch(/^application\/json/);
        expect(await response.json()).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
      }
    });

    it('answers 401 JSON to a wrong key, as a Bearer header or as ?token=', async () => {
      for (const path of paths(numbered.id)) {
        const header = await fetch(`${server.base}${path}`, {
          headers: { authorization: 'Bearer trb_wrongwrongwrongwrong' },
        });
        expect(header.status, path).toBe(401);
        expect(await header.json()).toMatchObject({ error: { code: 'UNAUTHORIZED', message: expect.any(String) } });
        const query = await fetch(`${server.base}${path}?token=trb_wrongwrongwrongwrong`);
        expect(query.status, path).toBe(401);
        expect(await query.json()).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
      }
      const notBearer = await fetch(`${server.base}/sources/${numbered.id}/sse`, {
        headers: { authorization: `Basic ${server.key}` },
      });
      expect(notBearer.status).toBe(401);
    });

    it('accepts the key as a Bearer header or as ?token=', async () => {
      const byHeader = await connect(`/sources/${numbered.id}/sse`, bearer());
      expect(byHeader.response.status).toBe(200);
      expect(byHeader.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(byHeader.response.headers.get('cache-control')).toMatch(/no-cache/);
      expect(await byHeader.next()).toEqual({ type: 'comment', text: 'sse-handshake' });

      const byToken = await connect(`/sources/${numbered.id}/sse?token=${encodeURIComponent(server.key)}`);
      expect(byToken.response.status).toBe(200);
      expect(await byToken.next()).toEqual({ type: 'comment', text: 'sse-handshake' });
      await Promise.all([byHeader.close(), byToken.close()]);
    });

    it('answers 404 JSON for an unknown source with a valid key', async () => {
      const response = await fetch(`${server.base}/sources/dc_doesnotexist/sse`, { headers: bearer() });
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
    });
  });

  it('streams each new event as an unnamed message: id = event id, data = the event record', async () => {
    const stream = await connect(`/sources/${numbered.id}/sse`, bearer());
    await stream.next((item) => item.type === 'comment' && item.text === 'sse-handshake');
    await send(101);
    const message = await stream.next((item) => item.type === 'message');
    if (message.type !== 'message') throw new Error('expected a message');
    expect(message.event).toBeNull();
    const record = JSON.parse(message.data) as EventRecord;
    expect(message.id).toBe(record.id);
    expect(record.id).toMatch(/^\d+-\d+$/);
    expect(record.id.startsWith(`${record.indexed_at_ms}-`)).toBe(true);
    expect(record.event).toEqual({ n: 101 });
    expect(record.metadata).toMatchObject({
      emitter_id: numbered.id,
      emit_id: record.id,
      name: 'default',
      id: '101',
      summary: 'n=101',
      ts: expect.any(Number),
    });
    // The frame carries exactly what the event bin stores.
    const bin = await server.api.allEvents(numbered.id, 100);
    expect(bin.find((event) => event.id === record.id)).toEqual(record);
    await stream.close();
  });

  it('sends only events committed after connecting (no replay without Last-Event-ID), only of its source', async () => {
    await send(201);
    await waitFor(
      async () =>
        (await server.api.allEvents(numbered.id, 100)).some((record) => (record.event as { n: number }).n === 201)
          ? true
          : undefined,
      'n=201 in the bin',
    );
    const stream = await connect(`/sources/${numbered.id}/sse`, bearer());
    await stream.next((item) => item.type === 'comment' && item.text === 'sse-handshake');
    await postJson(server.api.endpoint(capture, '/other-source'), { n: -1 });
    await send(202);
    const first = await stream.nextMessage<EventRecord>();
    expect(first.data.event).toEqual({ n: 202 });
    expect(stream.messages).toHaveLength(1);
    await stream.close();
  });

  it('sends keep-alive comments at the configured interval', async () => {
    const stream = await connect(`/sources/${numbered.id}/sse`, bearer());
    await stream.next((item) => item.type === 'comment' && item.text === 'sse-handshake');
    const started = Date.now();
    // Two comments at the configured 100 ms take a fraction of the 15 s default's one; the bound
    // leaves a loaded machine's timer delays room without letting the default pass.
    await stream.next((item) => item.type === 'comment' && item.text === 'keepalive', 10_000);
    await stream.next((item) => item.type === 'comment' && item.text === 'keepalive', 10_000);
    expect(Date.now() - started).toBeLessThan(10_000);
    await stream.close();
  });

  it('resumes from Last-Event-ID: missed events first, in order, then live ones', async () => {
    const source = await server.api.deploy('server/numbered-webhook.mjs', { name: 'resume' });
    for (const n of [1, 2, 3, 4]) {
      expect((await postJson(server.api.endpoint(source), { n })).status).toBe(200);
    }
    const stored = await waitForEvents(server.api, source.id, 4);
    expect(stored.map((record) => record.event)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }]);
    const lastSeen = stored[0] as EventRecord;

    const stream = await connect(`/sources/${source.id}/sse`, { ...bearer(), 'last-event-id': lastSeen.id });
    const missed = [
      await stream.nextMessage<EventRecord>(),
      await stream.nextMessage<EventRecord>(),
      await stream.nextMessage<EventRecord>(),
    ];
    expect(missed.map((message) => message.data.event)).toEqual([{ n: 2 }, { n: 3 }, { n: 4 }]);
    expect(missed.map((message) => message.id)).toEqual(stored.slice(1).map((record) => record.id));
    expect(missed.map((message) => message.data)).toEqual(stored.slice(1));

    expect((await postJson(server.api.endpoint(source), { n: 5 })).status).toBe(200);
    const live = await stream.nextMessage<EventRecord>();
    expect(live.data.event).toEqual({ n: 5 });
    expect(live.id).toBe(live.data.id);
    expect(compareEventIds(live.id ?? '', missed[2]?.id ?? '')).toBeGreaterThan(0);
    // Nothing was sent twice.
    const ids = stream.messages.map((message) => message.id);
    expect(new Set(ids).size).toBe(ids.length);
    await stream.close();

    // An id older than everything stored replays the whole bin, oldest first.
    const fromStart = await connect(`/sources/${source.id}/sse`, { ...bearer(), 'last-event-id': '1-0' });
    const replay = [];
    for (let i = 0; i < 5; i += 1) replay.push((await fromStart.nextMessage<EventRecord>()).data.event);
    expect(replay).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }, { n: 5 }]);
    await fromStart.close();

    // The newest id replays nothing.
    const upToDate = await connect(`/sources/${source.id}/sse`, { ...bearer(), 'last-event-id': live.id ?? '' });
    await upToDate.next((item) => item.type === 'comment' && item.text === 'keepalive', 10_000);
    expect(upToDate.messages).toEqual([]);
    await upToDate.close();
  });

  it('streams log entries: run markers and console output, ids ascending', async () => {
    const stream = await connect(`/sources/${capture.id}/logs/sse`, bearer());
    await stream.next((item) => item.type === 'comment' && item.text === 'sse-handshake');
    await fetch(server.api.endpoint(capture, '/logged'), { method: 'POST', body: 'x' });
    const logs: { id: string | null; data: LogRecord }[] = [];
    for (let i = 0; i < 3; i += 1) logs.push(await stream.nextMessage<LogRecord>());
    expect(logs.map((entry) => entry.data.message)).toEqual([
      '--- run started',
      'captured POST /logged',
      expect.stringMatching(/^--- run finished in \d+ ms$/),
    ]);
    expect(logs.map((entry) => entry.data.level)).toEqual(['info', 'info', 'info']);
    for (const entry of logs) {
      expect(entry.id).toBe(entry.data.id);
      expect(entry.data.invocation_id).toMatch(/^inv_/);
      expect(entry.data.ts).toEqual(expect.any(Number));
    }
    expect(new Set(logs.map((entry) => entry.data.invocation_id)).size).toBe(1);
    const ids = logs.map((entry) => Number(entry.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(3);
    await stream.close();

    // Logs resume from Last-Event-ID as well.
    const resumed = await connect(`/sources/${capture.id}/logs/sse`, {
      ...bearer(),
      'last-event-id': logs[0]?.id ?? '',
    });
    const again = [await resumed.nextMessage<LogRecord>(), await resumed.nextMessage<LogRecord>()];
    expect(again.map((entry) => entry.id)).toEqual([logs[1]?.id, logs[2]?.id]);
    await resumed.close();
  });

  it('serves the aliases /sse/dc/{id}/emits and /sse/dc/{id}/observations', async () => {
    const emits = await connect(`/sse/dc/${numbered.id}/emits`, bearer());
    const observations = await connect(`/sse/dc/${numbered.id}/observations?token=${encodeURIComponent(server.key)}`);
    const events = await connect(`/sources/${numbered.id}/sse`, bearer());
    for (const stream of [emits, observations, events]) {
      expect(stream.response.status).toBe(200);
      expect(stream.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      await stream.next((item) => item.type === 'comment' && item.text === 'sse-handshake');
    }
    await send(301);
    const viaAlias = await emits.nextMessage<EventRecord>();
    const viaMain = await events.nextMessage<EventRecord>();
    expect(viaAlias.data.event).toEqual({ n: 301 });
    expect(viaAlias).toEqual(viaMain);
    const log = await observations.nextMessage<LogRecord>();
    expect(log.data.message).toBe('--- run started');
    expect(log.id).toMatch(/^\d+$/);
    // The log stream carries no events and the event stream no logs.
    await observations.next(
      (item) => item.type === 'message' && /^--- run finished/.test((JSON.parse(item.data) as LogRecord).message),
    );
    expect(observations.messages.every((message) => 'message' in (JSON.parse(message.data) as object))).toBe(true);
    expect(emits.messages.every((message) => 'event' in (JSON.parse(message.data) as object))).toBe(true);
    await Promise.all([emits.close(), observations.close(), events.close()]);
  });

  it('fans an event out to every connected client', async () => {
    const clients = await Promise.all([1, 2, 3].map(() => connect(`/sources/${numbered.id}/sse`, bearer())));
    for (const client of clients) await client.next((item) => item.type === 'comment' && item.text === 'sse-handshake');
    await send(401);
    const received = await Promise.all(clients.map((client) => client.nextMessage<EventRecord>()));
    expect(received.map((message) => message.data.event)).toEqual([{ n: 401 }, { n: 401 }, { n: 401 }]);
    expect(new Set(received.map((message) => message.id)).size).toBe(1);
    await Promise.all(clients.map((client) => client.close()));
  });
});

describe('SSE and server shutdown', () => {
  it('ends open streams when the server closes, instead of waiting for clients to leave', async () => {
    const server = await startTestServer();
    let stream: SseStream | null = null;
    try {
      const source = await server.api.deploy('server/numbered-webhook.mjs');
      stream = await SseStream.open(`${server.base}/sources/${source.id}/sse`, {
        authorization: `Bearer ${server.key}`,
      });
      await stream.next((item) => item.type === 'comment' && item.text === 'sse-handshake');
      const outcome = await Promise.race([
        server.app.close().then(() => 'closed' as const),
        // A close that waits for the client never ends; a loaded machine's close takes a while.
        new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 15_000)),
      ]);
      expect(outcome).toBe('closed');
      // The client sees its stream end.
      await expect(stream.next(() => true, 10_000)).rejects.toThrow(/SSE stream ended/);
    } finally {
      await stream?.close();
      await server.close();
    }
  });
});

describe('SSE and the pub/sub port', () => {
  // A server of its own: the count of subscribers is the process's, other tests' streams would move it.
  it('drops a client’s subscription when it disconnects', async () => {
    const server = await startTestServer();
    const clients: SseStream[] = [];
    try {
      const source = await server.api.deploy('server/numbered-webhook.mjs');
      for (const _ of [1, 2]) {
        const client = await SseStream.open(`${server.base}/sources/${source.id}/sse`, {
          authorization: `Bearer ${server.key}`,
        });
        clients.push(client);
        await client.next((item) => item.type === 'comment' && item.text === 'sse-handshake');
      }
      expect(server.engine.pubsub.stats().subscribers).toBe(2);
      await Promise.all(clients.map((client) => client.close()));
      await waitFor(
        () => (server.engine.pubsub.stats().subscribers === 0 ? true : undefined),
        'the subscriptions of closed streams to end',
      );
    } finally {
      await Promise.all(clients.map((client) => client.close()));
      await server.close();
    }
  });
});
