/**
 * The `Scheduler` contract (src/ports/scheduler.ts): every implementation runs these tests against
 * the port only, with an injected clock. Timer sources are created through the Store.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSource, RETRY, TestClock, type Backend, type BackendFactory, type MakeBackend } from './backend.js';

const T0 = Date.UTC(2026, 0, 1);
const INTERVAL_MS = 60_000;
const TIMER = JSON.stringify({ kind: 'interval', intervalSeconds: INTERVAL_MS / 1000 });

export function schedulerContract(name: string, makeBackend: MakeBackend): void {
  describe(`Scheduler contract: ${name}`, () => {
    let factory: BackendFactory;
    let backend: Backend;
    let clock: TestClock;
    let queued: string[];
    let logged: string[];

    const open = (): Promise<Backend> =>
      factory.open({
        now: clock.now,
        retry: RETRY,
        onQueued: (ids) => queued.push(...ids),
        log: (message) => logged.push(message),
      });

    beforeEach(async () => {
      factory = await makeBackend();
      clock = new TestClock(T0);
      queued = [];
      logged = [];
      backend = await open();
    });
    afterEach(async () => {
      await backend.scheduler.stop();
      await backend.close();
      await factory.dispose();
    });

    const ticksOf = async (sourceId: string): Promise<unknown[]> => {
      const claimed = await backend.queue.claim(sourceId, 100);
      await backend.queue.release(sourceId);
      return claimed.map((item) => [item.trigger, JSON.parse(item.event)]);
    };

    it('queues a due tick once and moves the next fire time', async () => {
      const source = await createSource(backend, T0, { timer: TIMER, next_fire_at: T0 + INTERVAL_MS });
      expect(await backend.scheduler.tick()).toEqual([]);
      clock.advance(INTERVAL_MS);
      expect(await backend.scheduler.tick()).toEqual([source.id]);
      expect(await backend.scheduler.tick()).toEqual([]);
      expect(queued).toEqual([source.id]);
      expect(await ticksOf(source.id)).toEqual([
        ['timer', { timestamp: (T0 + INTERVAL_MS) / 1000, interval_seconds: INTERVAL_MS / 1000 }],
      ]);
      expect((await backend.store.getSource(source.id))?.next_fire_at).toBe(T0 + 2 * INTERVAL_MS);
    });

    it('never queues one tick twice, even when checks overlap', async () => {
      const source = await createSource(backend, T0, { timer: TIMER, next_fire_at: T0 });
      const results = await Promise.all([backend.scheduler.tick(), backend.scheduler.tick(), backend.scheduler.tick()]);
      expect(results.flat()).toEqual([source.id]);
      expect(await ticksOf(source.id)).toHaveLength(1);
    });

    it('never queues one tick twice when two schedulers check the same backend', async () => {
      const source = await createSource(backend, T0, { timer: TIMER, next_fire_at: T0 });
      const other = await open();
      try {
        const results = await Promise.all([backend.scheduler.tick(), other.scheduler.tick(), other.scheduler.tick()]);
        expect(results.flat()).toEqual([source.id]);
      } finally {
        await other.close();
      }
      expect(await ticksOf(source.id)).toHaveLength(1);
    });

    it('merges a tick due while the previous one is still queued or running, and logs the skipped count', async () => {
      const source = await createSource(backend, T0, { timer: TIMER, next_fire_at: T0 });
      expect(await backend.scheduler.tick()).toEqual([source.id]);
      // The run takes longer than the interval: its entry is still queued (claimed) two ticks later.
      const running = await backend.queue.claim(source.id, 1);
      expect(running).toHaveLength(1);
      for (const tick of [1, 2]) {
        clock.advance(INTERVAL_MS);
        expect(await backend.scheduler.tick()).toEqual([]);
        // The schedule moves on: the merged tick is not fired again later.
        expect((await backend.store.getSource(source.id))?.next_fire_at).toBe(T0 + (tick + 1) * INTERVAL_MS);
      }
      expect(logged.filter((line) => line.includes(`timer tick of ${source.id} merged`))).toEqual([
        `timer tick of ${source.id} merged into its previous tick, still queued or running (1 skipped since this process started)`,
        `timer tick of ${source.id} merged into its previous tick, still queued or running (2 skipped since this process started)`,
      ]);
      // Once the run has committed (its entry gone), the next tick queues again.
      await backend.queue.drop(running.map((item) => item.id));
      await backend.queue.release(source.id);
      clock.advance(INTERVAL_MS);
      expect(await backend.scheduler.tick()).toEqual([source.id]);
      expect(await ticksOf(source.id)).toHaveLength(1);
    });

    it('skips inactive sources and sources without a timer', async () => {
      const inactive = await createSource(backend, T0, { timer: TIMER, next_fire_at: T0, active: 0 });
      const plain = await createSource(backend, T0);
      expect(await backend.scheduler.tick()).toEqual([]);
      expect(await ticksOf(inactive.id)).toEqual([]);
      expect(await ticksOf(plain.id)).toEqual([]);
    });

    it('fires ticks missed while nothing ran once after a restart, then follows the schedule from then', async () => {
      const source = await createSource(backend, T0, { timer: TIMER, next_fire_at: T0 + INTERVAL_MS });
      await backend.close();
      clock.advance(10 * INTERVAL_MS + 5000);
      backend = await open();
      expect(await backend.scheduler.tick()).toEqual([source.id]);
      expect(await backend.scheduler.tick()).toEqual([]);
      expect(await ticksOf(source.id)).toHaveLength(1);
      const next = (await backend.store.getSource(source.id))?.next_fire_at ?? 0;
      expect(next).toBeGreaterThan(clock.now());
      expect(next).toBeLessThanOrEqual(clock.now() + INTERVAL_MS);
    });

    it('once started, checks by itself and reports what it queued', async () => {
      const source = await createSource(backend, T0, { timer: TIMER, next_fire_at: T0 });
      backend.scheduler.start();
      // The wait ends at the first check; the deadline only has to outlast a loaded machine's.
      const deadline = Date.now() + 20_000;
      while (queued.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      await backend.scheduler.stop();
      expect(queued).toEqual([source.id]);
    });
  });
}
