/**
 * The `InvocationQueue` contract (src/ports/invocation-queue.ts), with its dead-letter list: every
 * implementation runs these tests against the port only, with an injected clock.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NewInvocation, Trigger } from '../../src/ports/invocation-queue.js';
import { RETRY, TestClock, uniqueId, type Backend, type BackendFactory, type MakeBackend } from './backend.js';

const T0 = Date.UTC(2026, 0, 1);

export function queueContract(name: string, makeBackend: MakeBackend): void {
  describe(`InvocationQueue contract: ${name}`, () => {
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

    const entry = (sourceId: string, n: number, trigger: Trigger = 'http'): NewInvocation => ({
      id: uniqueId('inv'),
      sourceId,
      trigger,
      event: JSON.stringify({ n }),
      createdAt: clock.now(),
    });

    const events = async (sourceId: string, limit = 100): Promise<unknown[]> => {
      const claimed = await backend.queue.claim(sourceId, limit);
      await backend.queue.release(sourceId);
      return claimed.map((item) => JSON.parse(item.event) as unknown);
    };

    it('keeps what enqueue resolved across a close and reopen', async () => {
      const source = uniqueId('dc');
      const first = entry(source, 1, 'timer');
      await backend.queue.enqueue([first]);
      const db = await reopen();
      expect(await db.queue.sourcesWithWork()).toEqual([source]);
      expect(await db.queue.claim(source, 10)).toEqual([{ ...first, attempts: 0, notBefore: 0, lastError: null }]);
    });

    it('hands out a source first in, first out, in batches up to the limit, across enqueue calls', async () => {
      const [a, b] = [uniqueId('dc'), uniqueId('dc')];
      await Promise.all([
        backend.queue.enqueue([entry(a, 1)]),
        backend.queue.enqueue([entry(b, 1), entry(a, 2)]),
        backend.queue.enqueue([entry(a, 3)]),
      ]);
      expect(await backend.queue.sourcesWithWork()).toEqual([a, b]);
      expect(await events(a, 2)).toEqual([{ n: 1 }, { n: 2 }]);
      expect(await events(a)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
      expect(await events(b)).toEqual([{ n: 1 }]);
    });

    it('claims a source for one claimer at a time, until it is released', async () => {
      const [a, b] = [uniqueId('dc'), uniqueId('dc')];
      await backend.queue.enqueue([entry(a, 1), entry(b, 1)]);
      expect(await backend.queue.claim(a, 10)).toHaveLength(1);
      expect(await backend.queue.claim(a, 10)).toEqual([]);
      expect(await backend.queue.claim(b, 10)).toHaveLength(1);
      await backend.queue.release(a);
      expect(await backend.queue.claim(a, 10)).toHaveLength(1);
    });

    it('holds a source without reading it, exclusive with claims, until it is released', async () => {
      const [a, b] = [uniqueId('wfrun'), uniqueId('wfrun')];
      await backend.queue.enqueue([entry(a, 1), entry(b, 1)]);
      expect(await backend.queue.hold(a)).toBe(true);
      expect(await backend.queue.hold(a)).toBe(false);
      expect(await backend.queue.claim(a, 10)).toEqual([]);
      // Held entries stay queued: a release gives them to the next claimer.
      await backend.queue.release(a);
      expect(await events(a)).toEqual([{ n: 1 }]);
      expect(await backend.queue.claim(b, 10)).toHaveLength(1);
      expect(await backend.queue.hold(b)).toBe(false);
      await backend.queue.release(b);
      expect(await backend.queue.hold(b)).toBe(true);
    });

    it('retries a failure after an exponential backoff, holding back its source only', async () => {
      const [a, b] = [uniqueId('dc'), uniqueId('dc')];
      const first = entry(a, 1);
      await backend.queue.enqueue([first, entry(a, 2), entry(b, 1)]);
      await backend.queue.claim(a, 1);
      expect(await backend.queue.fail(first.id, 'the database is away')).toEqual({
        kind: 'retry',
        attempts: 1,
        notBefore: T0 + RETRY.baseDelayMs,
      });
      await backend.queue.release(a);
      expect(await backend.queue.nextRetryAt()).toBe(T0 + RETRY.baseDelayMs);
      // Order is kept: n=2 waits behind n=1; the other source does not wait.
      expect(await events(a)).toEqual([]);
      expect(await events(b)).toEqual([{ n: 1 }]);
      clock.advance(RETRY.baseDelayMs - 1);
      expect(await events(a)).toEqual([]);
      clock.advance(1);
      const [retried] = await backend.queue.claim(a, 10);
      expect(retried).toMatchObject({ id: first.id, attempts: 1, lastError: 'the database is away' });
      // The next wait doubles (capped at maxDelayMs), and the count survives a restart.
      expect(await backend.queue.fail(first.id, 'still away')).toEqual({
        kind: 'retry',
        attempts: 2,
        notBefore: clock.now() + Math.min(RETRY.maxDelayMs, RETRY.baseDelayMs * 2),
      });
      const db = await reopen();
      clock.advance(RETRY.maxDelayMs);
      expect((await db.queue.claim(a, 10))[0]).toMatchObject({ id: first.id, attempts: 2 });
    });

    it('moves an entry to the dead letters after its last attempt, with its source, trigger, event, error and times', async () => {
      const source = uniqueId('dc');
      const doomed = entry(source, 1, 'manual');
      const next = entry(source, 2);
      await backend.queue.enqueue([doomed, next]);
      let outcome;
      for (let attempt = 1; attempt <= RETRY.maxAttempts; attempt += 1) {
        outcome = await backend.queue.fail(doomed.id, `failure ${attempt}`);
        clock.advance(RETRY.maxDelayMs);
      }
      expect(outcome).toEqual({ kind: 'dead', attempts: RETRY.maxAttempts });
      const failedAt = clock.now() - RETRY.maxDelayMs;
      const letter = {
        id: doomed.id,
        sourceId: source,
        trigger: 'manual',
        event: { n: 1 },
        attempts: RETRY.maxAttempts,
        lastError: `failure ${RETRY.maxAttempts}`,
        createdAt: T0,
        failedAt,
      };
      // It no longer holds back its source.
      expect(await events(source)).toEqual([{ n: 2 }]);
      expect(await backend.queue.fail(doomed.id, 'again')).toEqual({ kind: 'gone' });
      const db = await reopen();
      expect(await db.queue.deadLetters.get(doomed.id)).toEqual(letter);
      expect(await db.queue.deadLetters.list({ limit: 10 })).toEqual({ data: [letter], total: 1 });
      expect(await db.queue.deadLetters.list({ limit: 10, sourceId: uniqueId('dc') })).toEqual({
        data: [],
        total: 0,
      });
    });

    it('retries a dead letter at the end of its source queue with attempts from zero, or deletes it', async () => {
      const source = uniqueId('dc');
      const [one, two] = [entry(source, 1), entry(source, 2)];
      await backend.queue.enqueue([one, two]);
      for (const item of [one, two])
        for (let attempt = 0; attempt < RETRY.maxAttempts; attempt += 1) {
          await backend.queue.fail(item.id, 'broken');
          clock.advance(RETRY.maxDelayMs);
        }
      const listed = await backend.queue.deadLetters.list({ limit: 1 });
      expect(listed.total).toBe(2);
      expect(listed.data.map((letter) => letter.id)).toEqual([two.id]);
      const rest = await backend.queue.deadLetters.list({ limit: 10, before: two.id });
      expect(rest.data.map((letter) => letter.id)).toEqual([one.id]);
      await expect(backend.queue.deadLetters.list({ limit: 10, before: 'inv_nope' })).rejects.toMatchObject({
        code: 'NOT_FOUND',
      });

      await backend.queue.enqueue([entry(source, 3)]);
      expect(await backend.queue.deadLetters.retry(one.id)).toBe(true);
      expect(await backend.queue.deadLetters.retry(one.id)).toBe(false);
      expect(await backend.queue.deadLetters.get(one.id)).toBeNull();
      const claimed = await backend.queue.claim(source, 10);
      expect(claimed.map((item) => [JSON.parse(item.event), item.attempts])).toEqual([
        [{ n: 3 }, 0],
        [{ n: 1 }, 0],
      ]);
      expect(await backend.queue.deadLetters.delete(two.id)).toBe(true);
      expect(await backend.queue.deadLetters.delete(two.id)).toBe(false);
      expect((await backend.queue.deadLetters.list({ limit: 10 })).total).toBe(0);
    });

    it('drops entries without results', async () => {
      const source = uniqueId('dc');
      const [one, two] = [entry(source, 1), entry(source, 2)];
      await backend.queue.enqueue([one, two]);
      await backend.queue.drop([one.id]);
      expect(await events(source)).toEqual([{ n: 2 }]);
    });
  });
}
