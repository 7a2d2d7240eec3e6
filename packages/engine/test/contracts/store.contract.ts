/**
 * The `Store` contract (src/ports/store.ts): every implementation runs these tests against the port
 * only. `makeBackend` gives a fresh, empty backend that can be closed and opened again.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createSource,
  emptyCommit,
  RETRY,
  TestClock,
  uniqueId,
  type Backend,
  type BackendFactory,
  type MakeBackend,
} from './backend.js';

const T0 = Date.UTC(2026, 0, 1);

function event(id: string, n: number) {
  return { id, indexedAtMs: T0 + n, event: JSON.stringify({ n }), metadata: JSON.stringify({ summary: `n=${n}` }) };
}

function log(invocationId: string | null, message: string) {
  return { invocationId, ts: T0, level: 'info' as const, message };
}

export function storeContract(name: string, makeBackend: MakeBackend): void {
  describe(`Store contract: ${name}`, () => {
    let factory: BackendFactory;
    let backend: Backend;
    let clock: TestClock;

    beforeEach(async () => {
      factory = await makeBackend();
      clock = new TestClock(T0);
      backend = await factory.open({ now: clock.now, retry: RETRY });
    });
    afterEach(async () => {
      await backend.close();
      await factory.dispose();
    });

    const reopen = async (): Promise<Backend> => {
      await backend.close();
      backend = await factory.open({ now: clock.now, retry: RETRY });
      return backend;
    };

    it('stores a source with its state, and finds it by its active endpoint', async () => {
      const source = await createSource(backend, T0, { endpoint_id: uniqueId('ep') });
      expect(await backend.store.getSource(source.id)).toEqual(source);
      expect(await backend.store.getSource('dc_missing')).toBeUndefined();
      expect(await backend.store.readState(source.id)).toEqual({ db: {}, dedupe: null });
      expect(await backend.store.findEndpoint(source.endpoint_id ?? '')).toEqual({
        id: source.id,
        customResponse: false,
      });
      await backend.store.updateSource({ ...source, active: 0 }, emptyCommit(source.id));
      expect(await backend.store.findEndpoint(source.endpoint_id ?? '')).toBeNull();
    });

    it('commits events, logs, state and the removal of queue entries together, durably', async () => {
      const source = await createSource(backend, T0);
      const id = uniqueId('inv');
      await backend.queue.enqueue([{ id, sourceId: source.id, trigger: 'http', event: '{"n":1}', createdAt: T0 }]);
      const logIds = await backend.store.commit(
        emptyCommit(source.id, {
          events: [event('e1', 1), event('e2', 2)],
          logs: [log(id, 'first'), log(id, 'second')],
          db: '{"count":2}',
          dedupe: '{"type":"unique","keys":["1"]}',
        }),
        { dequeue: [id] },
      );
      expect(logIds).toHaveLength(2);
      expect(logIds[1]).toBeGreaterThan(logIds[0] ?? Infinity);

      const db = await reopen();
      expect(await db.queue.claim(source.id, 10)).toEqual([]);
      expect((await db.store.listEvents(source.id, { limit: 10 })).data.map((record) => record.id)).toEqual([
        'e2',
        'e1',
      ]);
      expect(await db.store.eventsAfter(source.id, 'e1')).toEqual([
        { id: 'e2', indexed_at_ms: T0 + 2, event: { n: 2 }, metadata: { summary: 'n=2' } },
      ]);
      const logs = await db.store.listLogs(source.id, { limit: 10 });
      expect(logs.data.map((entry) => [entry.id, entry.message, entry.invocation_id])).toEqual([
        [String(logIds[1]), 'second', id],
        [String(logIds[0]), 'first', id],
      ]);
      expect((await db.store.logsAfter(source.id, String(logIds[0]))).map((entry) => entry.message)).toEqual([
        'second',
      ]);
      expect(await db.store.readState(source.id)).toEqual({
        db: { count: 2 },
        dedupe: { type: 'unique', keys: ['1'] },
      });
    });

    it('a commit that fails leaves nothing and keeps the queue entry', async () => {
      const source = await createSource(backend, T0);
      await backend.store.commit(emptyCommit(source.id, { db: '{"count":1}' }));
      const id = uniqueId('inv');
      await backend.queue.enqueue([{ id, sourceId: source.id, trigger: 'http', event: '{}', createdAt: T0 }]);
      // One entry of the commit is no longer queued (another worker committed it): all of it is refused.
      await expect(
        backend.store.commit(
          emptyCommit(source.id, { events: [event('e1', 1)], logs: [log(id, 'ran')], db: '{"count":2}' }),
          { dequeue: [id, uniqueId('inv')] },
        ),
      ).rejects.toThrow();
      expect((await backend.store.listEvents(source.id, { limit: 10 })).total).toBe(0);
      expect((await backend.store.listLogs(source.id, { limit: 10 })).total).toBe(0);
      expect(await backend.store.readState(source.id)).toEqual({ db: { count: 1 }, dedupe: null });
      expect((await backend.queue.claim(source.id, 10)).map((entry) => entry.id)).toEqual([id]);
    });

    it('refuses a commit for a source deleted meanwhile, even when its queue entry is still queued', async () => {
      const source = await createSource(backend, T0);
      await backend.store.deleteSource(source.id);
      // An entry queued as the delete ran (an ingress that had looked the endpoint up before), then
      // claimed and run by another process that read the source before the delete committed.
      const id = uniqueId('inv');
      await backend.queue.enqueue([{ id, sourceId: source.id, trigger: 'http', event: '{}', createdAt: T0 }]);
      await expect(
        backend.store.commit(
          emptyCommit(source.id, { events: [event('e1', 1)], logs: [log(id, 'ran')], db: '{"count":1}' }),
          { dequeue: [id] },
        ),
      ).rejects.toMatchObject({ code: 'NOT_FOUND' });
      const db = await reopen();
      expect((await db.store.listEvents(source.id, { limit: 10 })).total).toBe(0);
      expect((await db.store.listLogs(source.id, { limit: 10 })).total).toBe(0);
      expect(await db.store.readState(source.id)).toEqual({ db: {}, dedupe: null });
    });

    it("refuses an update of a source deleted meanwhile, and writes none of its hooks' results", async () => {
      const source = await createSource(backend, T0);
      // Another process deleted it while this one ran the update's hooks.
      await backend.store.deleteSource(source.id);
      await expect(
        backend.store.updateSource(
          { ...source, name: 'renamed', updated_at: T0 + 1 },
          emptyCommit(source.id, { logs: [log(null, 'activated')], db: '{"count":1}' }),
        ),
      ).rejects.toMatchObject({ code: 'NOT_FOUND' });
      const db = await reopen();
      expect(await db.store.getSource(source.id)).toBeUndefined();
      expect((await db.store.listLogs(source.id, { limit: 10 })).total).toBe(0);
      expect(await db.store.readState(source.id)).toEqual({ db: {}, dedupe: null });
    });

    it('adds queue entries in the commit that stores the events starting them, or none when it fails', async () => {
      const source = await createSource(backend, T0);
      const other = await createSource(backend, T0);
      const started = uniqueId('inv');
      await backend.store.commit(emptyCommit(source.id, { events: [event('e1', 1)] }), {
        enqueue: [{ id: started, sourceId: other.id, trigger: 'manual', event: '{"from":"e1"}', createdAt: T0 }],
      });
      const lost = uniqueId('inv');
      await expect(
        backend.store.commit(emptyCommit(source.id, { events: [event('e2', 2)] }), {
          dequeue: [uniqueId('inv')],
          enqueue: [{ id: lost, sourceId: other.id, trigger: 'manual', event: '{"from":"e2"}', createdAt: T0 }],
        }),
      ).rejects.toThrow();
      const db = await reopen();
      expect((await db.queue.claim(other.id, 10)).map((entry) => [entry.id, entry.event])).toEqual([
        [started, '{"from":"e1"}'],
      ]);
      expect((await db.store.listEvents(source.id, { limit: 10 })).data.map((record) => record.id)).toEqual(['e1']);
    });

    it('keeps the last 100 events and log lines of a source', async () => {
      const source = await createSource(backend, T0);
      const events = Array.from({ length: 105 }, (_, n) => event(`e${n}`, n));
      const logs = Array.from({ length: 105 }, (_, n) => log('inv_x', `line ${n}`));
      await backend.store.commit(emptyCommit(source.id, { events, logs }));
      const page = await backend.store.listEvents(source.id, { limit: 100 });
      expect(page.total).toBe(100);
      expect(page.data.at(-1)?.id).toBe('e5');
      expect((await backend.store.listLogs(source.id, { limit: 1 })).total).toBe(100);
    });

    it('deletes a range of events, and refuses a bound that names no event', async () => {
      const source = await createSource(backend, T0);
      await backend.store.commit(emptyCommit(source.id, { events: [1, 2, 3, 4].map((n) => event(`e${n}`, n)) }));
      await expect(backend.store.deleteEvents(source.id, { startId: 'nope' })).rejects.toMatchObject({
        code: 'NOT_FOUND',
      });
      await expect(backend.store.listEvents(source.id, { limit: 10, before: 'nope' })).rejects.toMatchObject({
        code: 'NOT_FOUND',
      });
      await expect(backend.store.listLogs(source.id, { limit: 10, before: 'x' })).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
      });
      expect(await backend.store.deleteEvents(source.id, { startId: 'e2', endId: 'e3' })).toBe(2);
      expect((await backend.store.listEvents(source.id, { limit: 10 })).data.map((record) => record.id)).toEqual([
        'e4',
        'e1',
      ]);
    });

    it('deleting a source removes its events, logs, state, queue entries and dead letters', async () => {
      const source = await createSource(backend, T0);
      const other = await createSource(backend, T0);
      const [dead, queued, kept] = [uniqueId('inv'), uniqueId('inv'), uniqueId('inv')];
      await backend.queue.enqueue([
        { id: dead, sourceId: source.id, trigger: 'http', event: '{}', createdAt: T0 },
        { id: queued, sourceId: source.id, trigger: 'http', event: '{}', createdAt: T0 },
        { id: kept, sourceId: other.id, trigger: 'http', event: '{}', createdAt: T0 },
      ]);
      for (let attempt = 0; attempt < RETRY.maxAttempts; attempt += 1) {
        await backend.queue.fail(dead, 'broken');
        clock.advance(RETRY.maxDelayMs);
      }
      await backend.store.commit(emptyCommit(source.id, { events: [event('e1', 1)], logs: [log(queued, 'x')] }));
      await backend.store.deleteSource(source.id);
      expect(await backend.store.getSource(source.id)).toBeUndefined();
      expect((await backend.store.listEvents(source.id, { limit: 10 })).total).toBe(0);
      expect((await backend.store.listLogs(source.id, { limit: 10 })).total).toBe(0);
      expect(await backend.store.readState(source.id)).toEqual({ db: {}, dedupe: null });
      expect(await backend.queue.claim(source.id, 10)).toEqual([]);
      expect(await backend.queue.deadLetters.get(dead)).toBeNull();
      expect((await backend.queue.claim(other.id, 10)).map((entry) => entry.id)).toEqual([kept]);
    });
  });
}
