/**
 * Dead letters end to end: an invocation whose commit fails in the platform (a real SQLite error,
 * raised by a trigger the test creates on its own connection) is retried with backoff, then listed
 * at /v1/dead-letters with its event and last error; retry queues it again, delete removes it, and
 * every wrong input is answered with a registry code and changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startTestServer, waitFor, waitForEvents, type TestServer } from './ingress-harness.js';
import { openSqlite } from './server-harness.js';

interface DeadLetterBody {
  id: string;
  source_id: string;
  trigger: string;
  event: { body: unknown };
  attempts: number;
  last_error: string;
  created_at: number;
  failed_at: number;
}

describe('dead letters (real engine, server and SQLite file)', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ retry: { maxAttempts: 3, baseDelayMs: 20, maxDelayMs: 100 } });
  });
  afterAll(() => server?.close());

  /** Runs `work` while every commit of logs fails in SQLite itself. */
  async function whileCommitsFail<T>(work: () => Promise<T>): Promise<T> {
    const sqlite = openSqlite(server.dbFile);
    sqlite
      .prepare("CREATE TRIGGER refuse_logs BEFORE INSERT ON logs BEGIN SELECT RAISE(ABORT, 'disk on fire'); END")
      .run();
    try {
      return await work();
    } finally {
      sqlite.prepare('DROP TRIGGER refuse_logs').run();
      sqlite.close();
    }
  }

  async function deadLetters(query = ''): Promise<{ page_info: { total_count: number }; data: DeadLetterBody[] }> {
    const { status, json } = await server.api.call<{ page_info: { total_count: number }; data: DeadLetterBody[] }>(
      'GET',
      `/v1/dead-letters${query}`,
    );
    expect(status).toBe(200);
    return json;
  }

  it('keeps an invocation that failed on every attempt, and runs it again on retry', async () => {
    const source = await server.api.deploy('server/numbered-webhook.mjs', { name: 'dead-letter-source' });
    const other = await server.api.deploy('server/numbered-webhook.mjs', { name: 'dead-letter-other' });
    const letter = await whileCommitsFail(async () => {
      expect((await postJson(server.api.endpoint(source), { n: 7 })).status).toBe(200);
      return waitFor(async () => (await deadLetters()).data[0], 'the dead letter');
    });
    expect(letter).toMatchObject({ source_id: source.id, trigger: 'http', attempts: 3 });
    expect(letter.event.body).toEqual({ n: 7 });
    expect(letter.last_error).toContain('disk on fire');
    expect(letter.failed_at).toBeGreaterThanOrEqual(letter.created_at);
    expect(server.logs.some((line) => line.includes(`${letter.id} of ${source.id} failed 3 times`))).toBe(true);

    // Filtered by source (id or name), and shown on its own.
    expect((await deadLetters(`?source_id=${source.id}`)).data.map((entry) => entry.id)).toEqual([letter.id]);
    expect((await deadLetters('?source_id=dead-letter-source')).page_info.total_count).toBe(1);
    expect((await deadLetters(`?source_id=${other.id}`)).data).toEqual([]);
    const shown = await server.api.call<{ data: DeadLetterBody }>('GET', `/v1/dead-letters/${letter.id}`);
    expect(shown.status).toBe(200);
    expect(shown.json.data).toEqual(letter);

    const retried = await server.api.call<{ data: { invocation_id: string } }>(
      'POST',
      `/v1/dead-letters/${letter.id}/retry`,
    );
    expect(retried.status).toBe(202);
    expect(retried.json.data.invocation_id).toBe(letter.id);
    const events = await waitForEvents(server.api, source.id, 1);
    expect(events.map((record) => record.event)).toEqual([{ n: 7 }]);
    expect((await deadLetters()).data).toEqual([]);
  });

  it('deletes a dead letter without running it; wrong inputs change nothing', async () => {
    const source = await server.api.deploy('server/numbered-webhook.mjs', { name: 'dead-letter-delete' });
    const letter = await whileCommitsFail(async () => {
      expect((await postJson(server.api.endpoint(source), { n: 1 })).status).toBe(200);
      return waitFor(async () => (await deadLetters(`?source_id=${source.id}`)).data[0], 'the dead letter');
    });
    const before = await deadLetters();

    const refused: [string, string, number, string, RegExp][] = [
      ['GET', '/v1/dead-letters/inv_nope', 404, 'NOT_FOUND', /id: no dead letter "inv_nope"/],
      ['POST', '/v1/dead-letters/inv_nope/retry', 404, 'NOT_FOUND', /id: no dead letter/],
      ['DELETE', '/v1/dead-letters/inv_nope', 404, 'NOT_FOUND', /id: no dead letter/],
      ['GET', '/v1/dead-letters?source_id=nope', 404, 'NOT_FOUND', /query\.source_id/],
      ['GET', '/v1/dead-letters?before=inv_nope', 404, 'NOT_FOUND', /query\.before/],
      ['GET', '/v1/dead-letters?limit=0', 400, 'VALIDATION_FAILED', /limit/],
      ['GET', '/v1/dead-letters?colour=red', 400, 'VALIDATION_FAILED', /colour/],
    ];
    for (const [method, url, status, code, message] of refused) {
      const answer = await server.api.call<{ error: { code: string; message: string } }>(method, url);
      expect([url, answer.status, answer.json.error.code]).toEqual([url, status, code]);
      expect(answer.json.error.message).toMatch(message);
    }
    expect(await deadLetters()).toEqual(before);

    const deleted = await server.api.call('DELETE', `/v1/dead-letters/${letter.id}`);
    expect(deleted.status).toBe(204);
    expect((await deadLetters(`?source_id=${source.id}`)).data).toEqual([]);
    expect((await server.api.call('GET', `/v1/dead-letters/${letter.id}`)).status).toBe(404);
    expect(await server.api.allEvents(source.id)).toEqual([]);
  });

  it('describes the routes in /v1/openapi.json', async () => {
    const { json } = await server.api.call<{ paths: Record<string, Record<string, unknown>> }>(
      'GET',
      '/v1/openapi.json',
    );
    expect(Object.keys(json.paths['/v1/dead-letters'] ?? {})).toEqual(['get']);
    expect(Object.keys(json.paths['/v1/dead-letters/{id}'] ?? {}).sort()).toEqual(['delete', 'get']);
    expect(Object.keys(json.paths['/v1/dead-letters/{id}/retry'] ?? {})).toEqual(['post']);
  });
});
