/**
 * A source's backlog runs in batches (one worker request, one commit for up to 64 invocations):
 * what each invocation stores and logs must stay what it was one by one. A slow first request
 * holds the source while the rest queue behind it, so they are picked up as a batch.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  postJson,
  startTestServer,
  waitFor,
  waitForEvents,
  type DeployedSource,
  type TestServer,
  queuedInvocations,
} from './ingress-harness.js';

const SOURCE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures/batch-webhook.mjs');
const RESPONDING = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures/batch-respond.mjs');

interface LogLine {
  readonly level: string;
  readonly message: string;
  readonly invocation_id: string | null;
}

describe('batched runs of a backlog (real engine and server)', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  async function backlog(source: DeployedSource, bodies: Record<string, unknown>[]): Promise<void> {
    const url = server.api.endpoint(source);
    // The first request holds the source for a while; the others queue behind it in order.
    for (const body of bodies) expect((await postJson(url, body)).status).toBe(200);
  }

  async function logsOf(source: DeployedSource): Promise<LogLine[]> {
    const { status, json } = await server.api.call<{ data: LogLine[] }>(
      'GET',
      `/v1/sources/${source.id}/logs?limit=100`,
    );
    expect(status).toBe(200);
    return json.data.reverse();
  }

  /** Log lines grouped by invocation, in the order the invocations started. */
  function byInvocation(lines: readonly LogLine[]): Map<string, string[]> {
    const groups = new Map<string, string[]>();
    for (const line of lines) {
      const id = line.invocation_id ?? 'none';
      groups.set(id, [...(groups.get(id) ?? []), line.message]);
    }
    return groups;
  }

  it('runs every queued request once, in order, each from the state the previous one left, with its own start and end log lines', async () => {
    const source = await server.api.deploy(SOURCE, { name: 'batched' });
    const bodies = Array.from({ length: 25 }, (_, index) => ({
      n: index + 1,
      ...(index === 0 ? { sleepMs: 800 } : {}),
      ...(index === 12 ? { do: 'throw' } : {}),
    }));
    await backlog(source, bodies);
    const events = await waitForEvents(server.api, source.id, 25);
    expect(events.map((record) => record.event)).toEqual(
      bodies.map((body, index) => ({ n: body.n, count: index + 1 })),
    );
    const groups = await waitFor(async () => {
      const grouped = byInvocation(await logsOf(source));
      return grouped.size >= 25 ? grouped : undefined;
    }, 'the log lines of 25 invocations');
    const invocations = [...groups.values()].filter((messages) =>
      messages.some((message) => message.startsWith('request ')),
    );
    expect(invocations).toHaveLength(25);
    for (const [index, messages] of invocations.entries()) {
      expect(messages[0]).toBe('--- run started');
      expect(messages[1]).toBe(`request ${index + 1} is number ${index + 1}`);
      if (index === 12) {
        expect(messages.some((message) => message.includes('request 13 fails on purpose'))).toBe(true);
        expect(messages.at(-1)).toMatch(/^--- run failed in \d+ ms: COMPONENT_ERROR$/);
      } else {
        expect(messages).toHaveLength(3);
        expect(messages[2]).toMatch(/^--- run finished in \d+ ms$/);
      }
    }
    const queued = queuedInvocations(server, source.id);
    expect(queued).toEqual([]);
  });

  it('when the worker dies in the middle of a batch, fails only that request and still runs the ones after it', async () => {
    const source = await server.api.deploy(SOURCE, { name: 'crashing', variant: 'crash' });
    const bodies = Array.from({ length: 12 }, (_, index) => ({
      n: index + 1,
      ...(index === 0 ? { sleepMs: 800 } : {}),
      ...(index === 5 ? { do: 'exit' } : {}),
    }));
    await backlog(source, bodies);
    const events = await waitForEvents(server.api, source.id, 12);
    // The crashing run emitted before it exited: the emit and its db write were streamed, so they are kept.
    expect(events.map((record) => record.event)).toEqual(
      bodies.map((body, index) => ({ n: body.n, count: index + 1 })),
    );
    const grouped = await waitFor(async () => {
      const groups = byInvocation(await logsOf(source));
      return [...groups.values()].filter((messages) => messages.some((message) => message.startsWith('--- run ')))
        .length >= 12
        ? groups
        : undefined;
    }, 'the log lines of 12 invocations');
    const ends = [...grouped.values()]
      .filter((messages) => messages[0] === '--- run started')
      .map((messages) => messages.at(-1) ?? '');
    expect(ends).toHaveLength(12);
    expect(ends.filter((end) => end.includes('failed'))).toEqual([expect.stringMatching(/: CRASHED$/)]);
    expect(ends[5]).toMatch(/CRASHED$/);
  });

  it('answers each customResponse caller of a batch with its own http.respond(), as that request runs', async () => {
    const source = await server.api.deploy(RESPONDING, { name: 'responding' });
    const url = server.api.endpoint(source);
    // The first request holds the source; the rest queue behind it and go to the worker together.
    const first = postJson(url, { n: 1, holdMs: 800 });
    await waitFor(() => (queuedInvocations(server, source.id).length >= 1 ? true : undefined), 'the first request');
    const rest = Array.from({ length: 8 }, (_, index) =>
      postJson(url, { n: index + 2, ...(index === 0 ? { lingerMs: 4000 } : {}) }),
    );
    // Request 2 answers, then keeps running: its answer must not wait for its batch to commit.
    const second = await rest[0];
    expect(second?.status).toBe(200);
    expect(JSON.parse(second?.text ?? '{}')).toEqual({ n: 2, count: 2 });
    const committed = await server.api.call<{ data: { event: { n: number } }[] }>(
      'GET',
      `/v1/sources/${source.id}/event_summaries?limit=25&expand=event`,
    );
    expect(committed.status).toBe(200);
    expect(committed.json.data.map((record) => record.event.n)).not.toContain(2);
    const answers = await Promise.all([first, ...rest]);
    expect(answers.map((answer) => [answer.status, JSON.parse(answer.text)])).toEqual(
      Array.from({ length: 9 }, (_, index) => [200, { n: index + 1, count: index + 1 }]),
    );
    const events = await waitForEvents(server.api, source.id, 9);
    expect(events.map((record) => record.event)).toEqual(
      Array.from({ length: 9 }, (_, index) => ({ n: index + 1, count: index + 1 })),
    );
  });
});
