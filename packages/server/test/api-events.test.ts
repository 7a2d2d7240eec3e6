/**
 * RUN NOW, the event bin (newest first, last 100, cursors, expand=event, deletion) and the log
 * (newest first, last 100, errors with their stack) over the REST API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, queueIdle, readRows, snapshot, startHarness, waitFor, type Harness } from './server-harness.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.close({ remove: true });
});

interface Summary {
  id: string;
  indexed_at_ms: number;
  event: Record<string, unknown> | string;
  metadata: Record<string, unknown>;
  truncated?: boolean;
}

/** Emits `count` events per run (default 60) numbered within the run; logs each run's batch number. */
const BATCH = `
export default {
  key: "t-batch", name: "Batch", version: "0.0.1", type: "source",
  props: { db: "$.service.db" },
  async run(event) {
    if (event && event.fail) throw new Error("asked to fail: " + event.fail);
    const batch = (this.db.get("batch") ?? 0) + 1;
    this.db.set("batch", batch);
    const count = (event && event.count) ?? 60;
    console.log("batch " + batch);
    if (event && event.big) this.$emit({ big: "z".repeat(event.big) }, { summary: "big" });
    for (let i = 0; i < count; i++) this.$emit({ batch, i }, { summary: "batch " + batch + " item " + i, id: batch + "-" + i });
    if (event && event.lines) for (let i = 0; i < event.lines; i++) console.log("line " + i);
  },
};
`;

async function runNow(sourceId: string, event?: unknown): Promise<string> {
  const response = await h.request('POST', `/v1/sources/${sourceId}/run`, {
    body: event === undefined ? {} : { event },
  });
  expect(response.status).toBe(202);
  expect(response.body.data.invocation_id).toMatch(/^inv_/);
  await queueIdle(h, sourceId);
  return response.body.data.invocation_id as string;
}

async function page(sourceId: string, query: string): Promise<{ page_info: Record<string, unknown>; data: Summary[] }> {
  const response = await h.request('GET', `/v1/sources/${sourceId}/event_summaries${query}`);
  expect(response.status, response.text).toBe(200);
  return response.body;
}

describe('RUN NOW and the event bin', () => {
  it('keeps the last 100 events newest first; pages with limit and before/after cursors', async () => {
    const deployed = await h.request('POST', '/v1/sources', { body: { component_code: BATCH } });
    expect(deployed.status).toBe(200);
    const id = deployed.body.data.id as string;

    await runNow(id);
    const first = await page(id, '?limit=100');
    expect(first.page_info['total_count']).toBe(60);
    await runNow(id);

    const all = await page(id, '?limit=100');
    expect(all.page_info).toMatchObject({ total_count: 100, count: 100 });
    // Newest first: batch 2 item 59 down to batch 1 item 20 (the 20 oldest were dropped).
    const expected = [
      ...Array.from({ length: 60 }, (_, k) => ({ batch: 2, i: 59 - k })),
      ...Array.from({ length: 40 }, (_, k) => ({ batch: 1, i: 59 - k })),
    ];
    expect(all.data.map((summary) => summary.event)).toEqual(expected);
    expect(all.page_info['start_cursor']).toBe(all.data[0]?.id);
    expect(all.page_info['end_cursor']).toBe(all.data[99]?.id);
    const first100 = all.data[0];
    expect(first100?.id).toMatch(/^\d{13}-\d+$/);
    expect(first100?.metadata).toMatchObject({
      emitter_id: id,
      emit_id: first100?.id,
      name: 'default',
      summary: 'batch 2 item 59',
      id: '2-59',
    });
    expect(typeof first100?.metadata['ts']).toBe('number');
    expect(first100?.indexed_at_ms).toBe(Number(first100?.id.split('-')[0]));
    expect(new Set(all.data.map((summary) => summary.id)).size).toBe(100);
    const stored = readRows(h.dbFile, 'SELECT id FROM events WHERE source_id = ?', id);
    expect(stored).toHaveLength(100);

    // Default page size 10.
    expect((await page(id, '')).data).toHaveLength(10);

    // Walk back with before= the previous page's end cursor.
    const walked: Summary[] = [];
    let cursor: string | null = null;
    for (let n = 0; n < 10; n += 1) {
      const current = await page(id, `?limit=30${cursor ? `&before=${cursor}` : ''}`);
      walked.push(...current.data);
      if (current.data.length < 30) break;
      cursor = current.page_info['end_cursor'] as string;
    }
    expect(walked.map((summary) => summary.id)).toEqual(all.data.map((summary) => summary.id));

    // after= gives the page right after the cursor (newer events), still newest first.
    const newer = await page(id, `?limit=5&after=${all.data[10]?.id}`);
    expect(newer.data.map((summary) => summary.id)).toEqual(all.data.slice(5, 10).map((summary) => summary.id));

    // An event id that is not in the bin is refused rather than silently ignored.
    const gone = await h.request('GET', `/v1/sources/${id}/event_summaries?before=1-0`);
    expect(gone.status).toBe(404);
    expect(gone.body.error).toMatchObject({ code: 'NOT_FOUND', details: { field: 'before' } });
  });

  it('RUN NOW passes the given event to run; a source without a timer gets {}', async () => {
    const deployed = await h.request('POST', '/v1/sources', {
      body: {
        component_code: `export default { key: "t-echo-event", name: "Echo event", type: "source", version: "0.0.1", async run(event) { this.$emit({ got: event ?? "undefined" }); } };`,
      },
    });
    const id = deployed.body.data.id as string;
    await runNow(id, { hello: ['world', 1, null] });
    await runNow(id);
    await runNow(id, 'just a string');
    const events = (await page(id, '?limit=10')).data.map((summary) => summary.event);
    expect(events).toEqual([{ got: 'just a string' }, { got: {} }, { got: { hello: ['world', 1, null] } }]);
  });

  it('cuts events over 1 KB in summaries unless expand=event', async () => {
    const deployed = await h.request('POST', '/v1/sources', { body: { component_code: BATCH, name: 'big events' } });
    const id = deployed.body.data.id as string;
    await runNow(id, { count: 1, big: 5000 });
    const plain = await page(id, '?limit=10');
    const big = plain.data.find((summary) => summary.metadata['summary'] === 'big');
    expect(big?.truncated).toBe(true);
    expect(typeof big?.event).toBe('string');
    expect((big?.event as string).length).toBeLessThan(1100);
    const small = plain.data.find((summary) => summary.metadata['summary'] !== 'big');
    expect(small?.event).toEqual({ batch: 1, i: 0 });
    expect(small?.truncated).toBeUndefined();

    const expanded = await page(id, '?limit=10&expand=event');
    const full = expanded.data.find((summary) => summary.metadata['summary'] === 'big');
    expect(full?.truncated).toBeUndefined();
    expect(full?.event).toEqual({ big: 'z'.repeat(5000) });
    expect((await h.request('GET', `/v1/sources/${id}/event_summaries?expand=everything`)).status).toBe(400);
  });

  it('DELETE /events removes a range (inclusive) or everything, answers 202, and refuses unknown ids', async () => {
    const deployed = await h.request('POST', '/v1/sources', { body: { component_code: BATCH, name: 'deletable' } });
    const id = deployed.body.data.id as string;
    await runNow(id, { count: 10 });
    const all = (await page(id, '?limit=100')).data;
    expect(all).toHaveLength(10);
    // Newest first, so the range from the 7th newest to the 4th newest is start = all[6], end = all[3].
    const range = await h.request('DELETE', `/v1/sources/${id}/events?start_id=${all[6]?.id}&end_id=${all[3]?.id}`);
    expect(range.status).toBe(202);
    expect(range.body).toEqual({});
    const left = (await page(id, '?limit=100')).data.map((summary) => summary.id);
    expect(left).toEqual([...all.slice(0, 3), ...all.slice(7)].map((summary) => summary.id));

    // A typo in an id must not widen the deletion (it used to delete everything from the start).
    const before = await snapshot(h);
    for (const query of [
      'start_id=nope',
      'end_id=nope',
      `start_id=nope&end_id=${all[0]?.id}`,
      `start_id=${all[6]?.id}`,
    ]) {
      const response = await h.request('DELETE', `/v1/sources/${id}/events?${query}`);
      expect(response.status, query).toBe(404);
      expect(response.body.error.code).toBe('NOT_FOUND');
    }
    expect(await snapshot(h)).toEqual(before);

    const everything = await h.request('DELETE', `/v1/sources/${id}/events`);
    expect(everything.status).toBe(202);
    expect((await page(id, '?limit=100')).page_info).toMatchObject({
      total_count: 0,
      count: 0,
      start_cursor: null,
      end_cursor: null,
    });
    // The source itself is untouched.
    expect((await h.request('GET', `/v1/sources/${id}`)).status).toBe(200);
  });

  it('answers 404 for RUN NOW, events and logs of unknown sources', async () => {
    const before = await snapshot(h);
    for (const [method, url, body] of [
      ['POST', '/v1/sources/dc_doesnotexi/run', {}],
      ['GET', '/v1/sources/dc_doesnotexi/event_summaries', undefined],
      ['DELETE', '/v1/sources/dc_doesnotexi/events', undefined],
      ['GET', '/v1/sources/dc_doesnotexi/logs', undefined],
      ['GET', '/v1/sources/not-a-source/logs', undefined],
    ] as const) {
      const response = await h.request(method, url, body === undefined ? {} : { body });
      expect(response.status, `${method} ${url}`).toBe(404);
      expect(response.body.error.code).toBe('NOT_FOUND');
    }
    expect(await snapshot(h)).toEqual(before);
  });
});

describe('logs', () => {
  it('lists log entries newest first with invocation ids, keeps the last 100, and records errors', async () => {
    const deployed = await h.request('POST', '/v1/sources', { body: { component_code: BATCH, name: 'chatty' } });
    const id = deployed.body.data.id as string;
    const invocation = await runNow(id, { count: 1 });
    const logs = await h.request('GET', `/v1/sources/${id}/logs`);
    expect(logs.status).toBe(200);
    // The deploy and activate hooks come first (started/finished markers), then the run.
    expect(logs.body.page_info).toMatchObject({ total_count: 7, count: 7 });
    const runLogs = logs.body.data.slice(0, 3);
    expect(runLogs.map((entry: { message: string }) => entry.message)).toEqual([
      expect.stringMatching(/^--- run finished in \d+ ms$/),
      'batch 1',
      '--- run started',
    ]);
    expect(
      logs.body.data.slice(3).map((entry: { message: string }) => entry.message.replace(/\d+ ms/, 'N ms')),
    ).toEqual([
      '--- activate finished in N ms',
      '--- activate started',
      '--- deploy finished in N ms',
      '--- deploy started',
    ]);
    for (const entry of runLogs) {
      expect(entry).toMatchObject({ level: 'info', invocation_id: invocation });
      expect(entry.id).toMatch(/^\d+$/);
      expect(typeof entry.ts).toBe('number');
    }

    const failing = await runNow(id, { fail: 'on purpose' });
    const errors = (await h.request('GET', `/v1/sources/${id}/logs?limit=100`)).body.data.filter(
      (entry: { level: string }) => entry.level === 'error',
    );
    expect(errors.length).toBeGreaterThanOrEqual(1);
    expect(errors.every((entry: { invocation_id: string }) => entry.invocation_id === failing)).toBe(true);
    expect(errors.map((entry: { message: string }) => entry.message).join('\n')).toContain('asked to fail: on purpose');
    expect(errors.map((entry: { message: string }) => entry.message).join('\n')).toMatch(
      /--- run failed in \d+ ms: COMPONENT_ERROR/,
    );

    await runNow(id, { count: 0, lines: 150 });
    const capped = await h.request('GET', `/v1/sources/${id}/logs?limit=100`);
    expect(capped.body.page_info).toMatchObject({ total_count: 100, count: 100 });
    expect(capped.body.data[0].message).toMatch(/^--- run finished/);
    expect(capped.body.data[1].message).toBe('line 149');

    // Paging back with before= (log ids are numbers).
    const firstPage = await h.request('GET', `/v1/sources/${id}/logs?limit=40`);
    const secondPage = await h.request(
      'GET',
      `/v1/sources/${id}/logs?limit=40&before=${firstPage.body.page_info.end_cursor}`,
    );
    expect(secondPage.status).toBe(200);
    expect(secondPage.body.data.map((entry: { id: string }) => entry.id)).toEqual(
      capped.body.data.slice(40, 80).map((entry: { id: string }) => entry.id),
    );
    const newer = await h.request('GET', `/v1/sources/${id}/logs?limit=10&after=${capped.body.data[50].id}`);
    expect(newer.body.data.map((entry: { id: string }) => entry.id)).toEqual(
      capped.body.data.slice(40, 50).map((entry: { id: string }) => entry.id),
    );
    const bad = await h.request('GET', `/v1/sources/${id}/logs?before=abc`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_FAILED');
  });

  it('keeps logs and events of each source apart', async () => {
    const a = (
      await h.request('POST', '/v1/sources', { body: { component_code: fixture('f02-counter.mjs'), name: 'apart a' } })
    ).body.data.id as string;
    const b = (
      await h.request('POST', '/v1/sources', { body: { component_code: fixture('f02-counter.mjs'), name: 'apart b' } })
    ).body.data.id as string;
    await runNow(a);
    await runNow(a);
    await runNow(b);
    await waitFor(async () => (await page(a, '')).data.length === 2, 'two events of a');
    expect((await page(a, '')).data.map((summary) => summary.event)).toEqual([{ n: 2 }, { n: 1 }]);
    expect((await page(b, '')).data.map((summary) => summary.event)).toEqual([{ n: 1 }]);
  });
});
