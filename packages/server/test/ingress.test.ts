/**
 * HTTP interface ingress `ANY /e/{endpointId}/...` (contract §3.4–§3.6, reliability §5.2), against
 * a real engine (SQLite queue, sandbox workers) and server on temporary folders.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ENDPOINT_BODY_BYTES } from '@tributary/runtime';
import {
  postJson,
  startTestServer,
  waitFor,
  waitForEvents,
  type DeployedSource,
  type EventRecord,
  type TestServer,
  queuedInvocations,
} from './ingress-harness.js';
import { openSqlite } from './server-harness.js';

const CAPTURE = 'server/http-capture.mjs';

/** Rows of the durable queue for one source. */
async function queuedRows(
  server: TestServer,
  sourceId: string,
): Promise<{ id: string; status: string; trigger: string; event: string }[]> {
  return Promise.resolve(
    queuedInvocations(server, sourceId).map(({ id, status, trigger, event }) => ({ id, status, trigger, event })),
  );
}

describe('HTTP ingress', () => {
  let server: TestServer;
  let capture: DeployedSource;

  beforeAll(async () => {
    server = await startTestServer();
    capture = await server.api.deploy(CAPTURE);
  });

  afterAll(async () => {
    await server?.close();
  });

  /** Waits for the capture source's event whose path is `path`. */
  async function capturedAt(path: string): Promise<Record<string, unknown>> {
    const record = await waitFor(
      async () =>
        (await server.api.allEvents(capture.id, 100)).find((event) => (event.event as { path?: string }).path === path),
      `an event at ${path}`,
    );
    return record.event as Record<string, unknown>;
  }

  it('publishes an endpoint URL under /e/ for a source with an HTTP interface', () => {
    expect(capture.endpoint_url).toMatch(/^http:\/\/endpoints\.test\.invalid\/e\/[A-Za-z0-9_-]+$/);
  });

  it('answers 200 "OK" and runs the source with { method, path, query, headers, bodyRaw, body }', async () => {
    const body = '{"hello":"world","n":[1,2]}';
    const response = await fetch(server.api.endpoint(capture, '/a/b?k=v&tag=1&tag=2&empty='), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Custom-Header': 'Yes' },
      body,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await response.text()).toBe('OK');

    const event = await capturedAt('/a/b');
    expect(event).toMatchObject({
      method: 'POST',
      path: '/a/b',
      query: { k: 'v', tag: ['1', '2'], empty: '' },
      bodyRaw: body,
      rawBody: body,
      body: { hello: 'world', n: [1, 2] },
    });
    const headers = event['headers'] as Record<string, string>;
    expect(headers['x-custom-header']).toBe('Yes');
    expect(headers['content-type']).toBe('application/json');
    expect(Object.keys(headers).every((name) => name === name.toLowerCase())).toBe(true);
    expect(event['url']).toBe(
      `${server.base}${new URL(capture.endpoint_url ?? '').pathname}/a/b?k=v&tag=1&tag=2&empty=`,
    );
  });

  it('accepts any method and path; the endpoint root is path "/" and a GET has no body', async () => {
    for (const method of ['GET', 'PUT', 'PATCH', 'DELETE']) {
      const response = await fetch(server.api.endpoint(capture, `/m/${method.toLowerCase()}`), {
        method,
        ...(method === 'GET' ? {} : { body: `${method} body` }),
      });
      expect(response.status, method).toBe(200);
      expect(await response.text()).toBe('OK');
    }
    for (const method of ['GET', 'PUT', 'PATCH', 'DELETE']) {
      const event = await capturedAt(`/m/${method.toLowerCase()}`);
      expect(event['method']).toBe(method);
      if (method === 'GET') {
        expect(event['bodyRaw']).toBe('');
        expect('body' in event).toBe(false); // undefined, so absent from the stored JSON
      } else {
        expect(event['bodyRaw']).toBe(`${method} body`);
        expect(event['body']).toBe(`${method} body`);
      }
    }
    const root = await fetch(server.api.endpoint(capture), { method: 'POST', body: '{"root":true}' });
    expect(root.status).toBe(200);
    const events = await waitFor(async () => {
      const all = await server.api.allEvents(capture.id, 100);
      return all.find((record) => (record.event as { body?: { root?: boolean } }).body?.root === true);
    }, 'the root event');
    expect((events.event as Record<string, unknown>)['path']).toBe('/');
  });

  it('keeps an urlencoded body as a string and parses a JSON body sent without a JSON content-type', async () => {
    const form = await fetch(server.api.endpoint(capture, '/form'), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=1&b=two',
    });
    expect(form.status).toBe(200);
    const plain = await fetch(server.api.endpoint(capture, '/plain'), {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '[1,2,3]',
    });
    expect(plain.status).toBe(200);
    expect((await capturedAt('/form'))['body']).toBe('a=1&b=two');
    expect((await capturedAt('/plain'))['body']).toEqual([1, 2, 3]);
  });

  it('gives a multipart body with text fields only as an object with one key per field', async () => {
    const form = new FormData();
    form.append('name', 'Ada');
    form.append('role', 'engineer');
    form.append('tag', 'x');
    form.append('tag', 'y');
    const response = await fetch(server.api.endpoint(capture, '/multipart'), { method: 'POST', body: form });
    expect(response.status).toBe(200);
    const event = await capturedAt('/multipart');
    expect(event['body']).toEqual({ name: 'Ada', role: 'engineer', tag: ['x', 'y'] });
    expect(event['bodyRaw']).toContain('name="role"');
  });

  it('answers 415 to a multipart body with a file part, and runs nothing', async () => {
    const form = new FormData();
    form.append('name', 'Ada');
    form.append('upload', new Blob(['file contents'], { type: 'text/plain' }), 'notes.txt');
    const response = await fetch(server.api.endpoint(capture, '/upload'), { method: 'POST', body: form });
    expect(response.status).toBe(415);
    const json = (await response.json()) as { error: { code: string; message: string } };
    expect(json.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    // A later request is captured while the upload never was.
    await fetch(server.api.endpoint(capture, '/after-upload'), { method: 'POST', body: 'x' });
    await capturedAt('/after-upload');
    const paths = (await server.api.allEvents(capture.id, 100)).map(
      (record) => (record.event as { path: string }).path,
    );
    expect(paths).not.toContain('/upload');
  });

  it('passes prototype-polluting JSON through as data without touching the server', async () => {
    const body = '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},"ok":1}';
    const response = await fetch(server.api.endpoint(capture, '/proto'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(response.status).toBe(200);
    const event = await capturedAt('/proto');
    expect(event['bodyRaw']).toBe(body);
    expect((event['body'] as Record<string, unknown>)['ok']).toBe(1);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('answers 400 to a JSON body nested deeper than 64 levels (no stack overflow, no 500), and runs nothing', async () => {
    const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    for (const depth of [65, 5_000, 200_000]) {
      const response = await fetch(server.api.endpoint(capture, `/deep-${depth}`), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: nested(depth),
      });
      expect(response.status, `depth ${depth}`).toBe(400);
      expect(await response.json()).toMatchObject({ error: { code: 'VALIDATION_FAILED' } });
    }
    const atLimit = await fetch(server.api.endpoint(capture, '/deep-64'), { method: 'POST', body: nested(64) });
    expect(atLimit.status).toBe(200);
    expect((await capturedAt('/deep-64'))['bodyRaw']).toBe(nested(64));
    const paths = (await server.api.allEvents(capture.id, 100)).map(
      (record) => (record.event as { path: string }).path,
    );
    expect(paths.filter((path) => path.startsWith('/deep-'))).toEqual(['/deep-64']);
    expect(server.logs.filter((line) => /deep-/.test(line))).toEqual([]);
  });

  it('answers 413 to a body over 512 KB and accepts one of exactly 512 KB', async () => {
    expect(MAX_ENDPOINT_BODY_BYTES).toBe(512 * 1024);
    const tooLarge = await fetch(server.api.endpoint(capture, '/too-large'), {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'x'.repeat(512 * 1024 + 1),
    });
    expect(tooLarge.status).toBe(413);
    expect(((await tooLarge.json()) as { error: { code: string } }).error.code).toBe('BODY_TOO_LARGE');

    const atLimit = await fetch(server.api.endpoint(capture, '/at-limit'), {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'y'.repeat(512 * 1024),
    });
    expect(atLimit.status).toBe(200);
    expect(await atLimit.text()).toBe('OK');
    const event = await capturedAt('/at-limit');
    expect((event['bodyRaw'] as string).length).toBe(512 * 1024);
    const paths = (await server.api.allEvents(capture.id, 100)).map(
      (record) => (record.event as { path: string }).path,
    );
    expect(paths).not.toContain('/too-large');
  });

  it('answers OPTIONS with CORS headers without running the source', async () => {
    const response = await fetch(server.api.endpoint(capture, '/preflight'), {
      method: 'OPTIONS',
      headers: { origin: 'https://example.test', 'access-control-request-method': 'POST' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-methods')).toBe('GET,HEAD,PUT,PATCH,POST,DELETE');
    expect(await queuedRows(server, capture.id)).toEqual([]);
    await fetch(server.api.endpoint(capture, '/after-preflight'), { method: 'POST', body: 'x' });
    await capturedAt('/after-preflight');
    const paths = (await server.api.allEvents(capture.id, 100)).map(
      (record) => (record.event as { path: string }).path,
    );
    expect(paths).not.toContain('/preflight');
  });

  it('answers 404 for an unknown endpoint id', async () => {
    const response = await fetch(`${server.base}/e/no-such-endpoint/x`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
    const options = await fetch(`${server.base}/e/no-such-endpoint`, { method: 'OPTIONS' });
    expect(options.status).toBe(404);
  });

  it('answers 404 while a source is inactive, 200 again once reactivated, and 404 once deleted', async () => {
    const source = await server.api.deploy('f13-hooks.mjs', { name: 'lifecycle' });
    const url = server.api.endpoint(source, '/hook');
    expect((await postJson(url, { phase: 'active' })).status).toBe(200);

    const off = await server.api.call('PUT', `/v1/sources/${source.id}`, { active: false });
    expect(off.status).toBe(200);
    const whileInactive = await postJson(url, { phase: 'inactive' });
    expect(whileInactive.status).toBe(404);
    expect(JSON.parse(whileInactive.text)).toMatchObject({ error: { code: 'NOT_FOUND' } });

    const on = await server.api.call<{ data: DeployedSource }>('PUT', `/v1/sources/${source.id}`, { active: true });
    expect(on.status).toBe(200);
    expect(on.json.data.endpoint_url).toBe(source.endpoint_url); // same endpoint after reactivation
    expect((await postJson(url, { phase: 'reactivated' })).status).toBe(200);
    const events = await waitFor(async () => {
      const all = await server.api.allEvents(source.id, 100);
      return all.some((record) => (record.event as { phase?: string }).phase === 'reactivated') ? all : undefined;
    }, 'the reactivated delivery');
    const phases = events.map((record) => (record.event as { phase?: string }).phase).filter(Boolean);
    expect(phases).toEqual(['active', 'reactivated']);

    expect((await server.api.call('DELETE', `/v1/sources/${source.id}`)).status).toBe(200);
    const afterDelete = await postJson(url, { phase: 'deleted' });
    expect(afterDelete.status).toBe(404);
  });

  it('acknowledges with 200 once the invocation is durably queued, before any user code runs', async () => {
    const source = await server.api.deploy('server/numbered-webhook.mjs', { name: 'queued-first' });
    // With the workers stopped no component code can run; the ingress must still acknowledge.
    await server.engine.runner.stop();
    try {
      const response = await postJson(server.api.endpoint(source), { n: 7 });
      expect(response.status).toBe(200);
      expect(response.text).toBe('OK');
      const rows = await queuedRows(server, source.id);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ status: 'queued', trigger: 'http' });
      expect(JSON.parse(rows[0]?.event ?? 'null')).toMatchObject({ method: 'POST', body: { n: 7 } });
      expect(await server.api.allEvents(source.id)).toEqual([]);
    } finally {
      await server.engine.runner.start();
    }
    const events = await waitForEvents(server.api, source.id, 1);
    expect(events.map((record) => record.event)).toEqual([{ n: 7 }]);
    expect(events[0]?.metadata).toMatchObject({ id: '7', emitter_id: source.id });
    await waitFor(
      async () => ((await queuedRows(server, source.id)).length === 0 ? true : undefined),
      'the queue row to be removed',
    );
  });

  it("runs one source's requests in the order they were acknowledged, even within one millisecond", async () => {
    const source = await server.api.deploy('server/numbered-webhook.mjs', { name: 'fifo' });
    const overHttp = 10;
    const count = 60;
    // Queue them all first (workers stopped), so only the queue decides the order.
    await server.engine.runner.stop();
    try {
      for (let n = 0; n < overHttp; n += 1)
        expect((await postJson(server.api.endpoint(source), { n })).status).toBe(200);
      // The rest straight into the queue the ingress uses, fast enough for many to share a millisecond.
      for (let n = overHttp; n < count; n += 1) {
        await server.engine.runner.enqueue({
          sourceId: source.id,
          trigger: 'http',
          event: { method: 'POST', path: '/', body: { n } },
        });
      }
      const rows = await queuedRows(server, source.id);
      const createdAt = queuedInvocations(server, source.id);
      expect(rows).toHaveLength(count);
      expect(new Set(createdAt.map((row) => row.created_at)).size).toBeLessThan(count); // some share a millisecond
    } finally {
      await server.engine.runner.start();
    }
    const events = await waitForEvents(server.api, source.id, count, 30_000);
    expect(events.map((record) => (record.event as { n: number }).n)).toEqual(
      Array.from({ length: count }, (_, n) => n),
    );
  });

  it("does not hold a source's request behind another source's long backlog", async () => {
    const busy = await server.api.deploy('server/numbered-webhook.mjs', {
      name: 'backlogged',
      configuredProps: { delayMs: 20 },
    });
    const idle = await server.api.deploy('server/numbered-webhook.mjs', { name: 'idle', variant: 'idle' });
    const backlog = 300;
    await server.engine.runner.stop();
    try {
      for (let n = 0; n < backlog; n += 1) {
        await server.engine.runner.enqueue({
          sourceId: busy.id,
          trigger: 'http',
          event: { method: 'POST', path: '/', body: { n } },
        });
      }
      expect((await postJson(server.api.endpoint(idle), { n: 1 })).status).toBe(200);
    } finally {
      await server.engine.runner.start();
    }
    // How long the idle run takes on a loaded machine is not the point: how much of the backlog ran
    // before it is (below), so the wait is as long as any other.
    await waitForEvents(server.api, idle.id, 1, 30_000);
    // The other source's request ran while the backlog was still queued: the queue is read 200 rows
    // at a time, so waiting behind the backlog would mean 100 or more of it had run first.
    expect((await queuedRows(server, busy.id)).length).toBeGreaterThan(backlog - 60);
  });

  it('does not wait for a slow run when customResponse is off', async () => {
    // The run takes 5 s before it emits: no event yet when the answer came means the answer did
    // not wait for the run (a clock would also bound how fast a loaded machine answers).
    const source = await server.api.deploy('server/numbered-webhook.mjs', {
      name: 'slow-default',
      configuredProps: { delayMs: 5000 },
    });
    const response = await postJson(server.api.endpoint(source), { n: 1 });
    expect(response.status).toBe(200);
    expect(await server.api.allEvents(source.id)).toEqual([]);
    const events = await waitForEvents(server.api, source.id, 1);
    expect(events[0]?.event).toEqual({ n: 1 });
  });

  it('with customResponse, answers with the first http.respond() (status coerced, object body as JSON)', async () => {
    const echo = await server.api.deploy('f05-echo.mjs');
    const response = await fetch(server.api.endpoint(echo, '/echo/path?x=1'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"ping":1}',
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('x-fixture')).toBe('echo');
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({ got: { ping: 1 } });
    const events = await waitForEvents(server.api, echo.id, 1);
    expect(events[0]?.event).toMatchObject({
      method: 'POST',
      path: '/echo/path',
      query: { x: '1' },
      body: { ping: 1 },
    });
    expect(events[0]?.metadata['summary']).toBe('POST /echo/path');
    // The second respond() (status 500) was ignored, with a warning in the source's log.
    const logs = await server.api.call<{ data: { level: string; message: string }[] }>(
      'GET',
      `/v1/sources/${echo.id}/logs?limit=100`,
    );
    expect(logs.json.data).toContainEqual(
      expect.objectContaining({ level: 'warn', message: expect.stringMatching(/called more than once/) }),
    );
  });

  it('with customResponse, answers 400 "No response was issued by the source" when run never responds', async () => {
    const silent = await server.api.deploy('f07-silent.mjs');
    const response = await postJson(server.api.endpoint(silent), { any: 'thing' });
    expect(response.status).toBe(400);
    expect(response.text).toBe('No response was issued by the source');
    // The run's emits are committed all the same.
    const events = await waitForEvents(server.api, silent.id, 1);
    expect(events.map((record) => record.event)).toEqual([{ seen: true }]);
  });

  it('answers a legacy shorthand HTTP source (F06) with 200 OK at once, whether or not its run emits', async () => {
    const legacy = await server.api.deploy('f06-legacy-bin.cjs', { configuredProps: { token: 'secret-token' } });
    const rejected = await postJson(server.api.endpoint(legacy), { rejected: true }, { 'x-token': 'wrong' });
    expect(rejected.status).toBe(200);
    expect(rejected.text).toBe('OK');
    const accepted = await postJson(server.api.endpoint(legacy), { accepted: true }, { 'x-token': 'secret-token' });
    expect(accepted.status).toBe(200);
    expect(accepted.text).toBe('OK');
    await waitForEvents(server.api, legacy.id, 1);
    // Both requests ran (two run markers), only the one with the right token emitted.
    await waitFor(async () => {
      const logs = await server.api.call<{ data: { message: string }[] }>(
        'GET',
        `/v1/sources/${legacy.id}/logs?limit=100`,
      );
      return logs.json.data.filter((entry) => entry.message === '--- run started').length === 2 ? true : undefined;
    }, 'two runs of the legacy source');
    expect((await server.api.allEvents(legacy.id)).map((record) => record.event)).toEqual([{ accepted: true }]);
  });

  it('ignores http.respond() without customResponse: the caller has 200 OK and the source log a warning', async () => {
    const source = await server.api.deploy('server/respond-ignored.mjs');
    const response = await fetch(server.api.endpoint(source, '/reject-me'), { method: 'POST', body: 'x' });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('OK');
    const events = await waitForEvents(server.api, source.id, 1);
    expect(events[0]?.event).toEqual({ path: '/reject-me' });
    const logs = await server.api.call<{ data: { level: string; message: string }[] }>(
      'GET',
      `/v1/sources/${source.id}/logs?limit=100`,
    );
    expect(logs.json.data).toContainEqual(
      expect.objectContaining({ level: 'warn', message: expect.stringMatching(/http\.respond\(\) ignored/) }),
    );
  });

  it('serialises the invocations of one source and runs sources of different components in parallel', async () => {
    // Two saved components: sources of one component share a worker and take turns in it
    // (docs/decisions/0003-server.md), sources of different components run side by side.
    const first = await server.api.deploy('server/serial-sleeper.mjs', { name: 'sleeper-a' });
    const second = await server.api.deploy('server/serial-sleeper.mjs', { name: 'sleeper-b', variant: 'b' });
    expect(second.component_id).not.toBe(first.component_id);
    const perSource = 4;
    const sends: Promise<{ status: number }>[] = [];
    for (let i = 0; i < perSource; i += 1) {
      sends.push(postJson(server.api.endpoint(first), { tag: `a${i}` }));
      sends.push(postJson(server.api.endpoint(second), { tag: `b${i}` }));
    }
    expect((await Promise.all(sends)).map((response) => response.status)).toEqual(Array(perSource * 2).fill(200));
    type Span = { tag: string; start: number; end: number };
    const spansOf = (events: EventRecord[]): Span[] =>
      events.map((record) => record.event as Span).sort((x, y) => x.start - y.start);
    const a = spansOf(await waitForEvents(server.api, first.id, perSource, 20_000));
    const b = spansOf(await waitForEvents(server.api, second.id, perSource, 20_000));
    for (const spans of [a, b]) {
      expect(spans).toHaveLength(perSource);
      for (const span of spans) expect(span.end - span.start).toBeGreaterThanOrEqual(195);
      for (let i = 1; i < spans.length; i += 1) {
        const previous = spans[i - 1] as Span;
        const current = spans[i] as Span;
        expect(current.start, `${current.tag} starts before ${previous.tag} ends`).toBeGreaterThanOrEqual(previous.end);
      }
    }
    const overlaps = a.some((x) => b.some((y) => x.start < y.end && y.start < x.end));
    expect(overlaps, `no run of sleeper-a overlapped a run of sleeper-b: ${JSON.stringify({ a, b })}`).toBe(true);
    // Per-source FIFO: the runs happen in the order the requests were queued.
    expect(a.map((span) => span.tag)).toEqual(['a0', 'a1', 'a2', 'a3']);
    expect(b.map((span) => span.tag)).toEqual(['b0', 'b1', 'b2', 'b3']);
  });
});

describe('HTTP ingress: store failure', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  });

  afterAll(async () => {
    await server?.close();
  });

  it('acknowledges nothing when the queue cannot be written: 5xx, then 200 once the store is back', async () => {
    const source = await server.api.deploy('server/numbered-webhook.mjs');
    // A trigger created on a connection of the test's own makes the engine's inserts fail for real.
    const sqlite = openSqlite(server.dbFile);
    sqlite
      .prepare("CREATE TRIGGER refuse_queue BEFORE INSERT ON invocations BEGIN SELECT RAISE(ABORT, 'refused'); END")
      .run();
    let refused: { status: number; text: string };
    try {
      refused = await postJson(server.api.endpoint(source), { n: 1 });
    } finally {
      sqlite.prepare('DROP TRIGGER refuse_queue').run();
      sqlite.close();
    }
    expect(refused.status).toBeGreaterThanOrEqual(500);
    expect(refused.text).not.toBe('OK');
    expect(await queuedRows(server, source.id)).toEqual([]);

    expect((await postJson(server.api.endpoint(source), { n: 2 })).status).toBe(200);
    const events = await waitForEvents(server.api, source.id, 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await server.api.allEvents(source.id)).map((record) => record.event)).toEqual([{ n: 2 }]);
    expect(events).toHaveLength(1);
  });
});

// A 3 s deadline and runs of 7 s: each bound below leaves a loaded machine seconds, not the
// hundreds of milliseconds a 400 ms deadline did.
describe('HTTP ingress: customResponse deadline', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ responseDeadlineMs: 3000 });
  });

  afterAll(async () => {
    await server?.close();
  });

  it('answers 504 when http.respond() does not come before the deadline; the run still completes', async () => {
    const slow = await server.api.deploy('server/slow-respond.mjs', { configuredProps: { delayMs: 7000 } });
    const started = Date.now();
    const response = await fetch(server.api.endpoint(slow, '/late'), { method: 'POST', body: 'x' });
    const elapsed = Date.now() - started;
    expect(response.status).toBe(504);
    expect(await response.text()).toMatch(/did not respond in time/);
    // At least the deadline; no upper bound on a loaded machine's speed: the 504 itself says the
    // deadline ended the wait, since the run's own http.respond() comes only after 7 s.
    expect(elapsed).toBeGreaterThanOrEqual(2990);
    const events = await waitForEvents(server.api, slow.id, 1, 30_000);
    expect(events[0]?.event).toEqual({ responded: true, path: '/late' });
    // The wait that timed out is gone from the pub/sub port; the late reply found nobody.
    expect(server.engine.pubsub.stats().replyWaiters).toBe(0);
  });

  it('stops waiting as soon as the client disconnects, well before the deadline', async () => {
    const slow = await server.api.deploy('server/slow-respond.mjs', {
      name: 'abandoned',
      configuredProps: { delayMs: 7000 },
    });
    const client = new AbortController();
    const request = fetch(server.api.endpoint(slow), { method: 'POST', body: 'x', signal: client.signal });
    request.catch(() => undefined);
    await waitFor(() => (server.engine.pubsub.stats().replyWaiters === 1 ? true : undefined), 'the ingress to wait');
    const left = Date.now();
    client.abort();
    await waitFor(
      () => (server.engine.pubsub.stats().replyWaiters === 0 ? true : undefined),
      'the wait of the client that left to end',
    );
    expect(Date.now() - left).toBeLessThan(2000); // the deadline is 3 s after the request
    // The invocation was acknowledged as queued, so it still runs to the end.
    expect((await waitForEvents(server.api, slow.id, 1, 30_000))[0]?.event).toEqual({ responded: true, path: '/' });
  });

  it('answers with http.respond() when it comes before the deadline', async () => {
    const quick = await server.api.deploy('server/slow-respond.mjs', {
      name: 'quick',
      configuredProps: { delayMs: 0 },
    });
    const response = await fetch(server.api.endpoint(quick), { method: 'POST', body: 'x' });
    expect(response.status).toBe(202);
    expect(await response.text()).toBe('late');
  });
});
