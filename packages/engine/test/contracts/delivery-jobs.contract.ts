/**
 * The DeliveryJobs port's guarantees (packages/engine/src/delivery/delivery-jobs.ts), run against
 * every implementation: durable and idempotent inserts, one claimer per job, leases that expire,
 * a stale claimer's result ignored, and the listings the API reads.
 */
import { AppError } from '@tributary/contracts';
import { afterEach, describe, expect, it } from 'vitest';
import type { AttemptResult, DeliveryJobs, NewDelivery } from '../../src/delivery/delivery-jobs.js';

export interface DeliveryJobsBackend {
  /** Opens the implementation on the same durable data each time (a reopen is a restart). */
  open(): Promise<{ readonly jobs: DeliveryJobs; close(): Promise<void> }>;
  dispose(): Promise<void>;
}

const job = (id: string, overrides: Partial<NewDelivery> = {}): NewDelivery => ({
  id,
  kind: 'http',
  owner: 'u_local',
  runId: 'run_1',
  stepName: 'step',
  subscriptionId: null,
  target: 'https://example.com/hook',
  config: { method: 'POST', url: 'https://example.com/hook', auth: { username: 'u', password: 'p' } },
  shown: { method: 'POST', url: 'https://example.com/hook', auth: { username: 'u', password: '[REDACTED]' } },
  maxAttempts: 3,
  createdAt: 1000,
  ...overrides,
});

const failed = (attempt: number, nextAttemptAt: number | null): AttemptResult => ({
  attempt: { attempt, at: 1000, duration_ms: 5, ok: false, detail: 'HTTP 503' },
  status: nextAttemptAt === null ? 'failed' : 'pending',
  nextAttemptAt,
  lastError: 'HTTP 503',
});

export function deliveryJobsContract(name: string, backend: () => Promise<DeliveryJobsBackend>): void {
  describe(`DeliveryJobs contract: ${name}`, () => {
    const cleanups: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });
    const open = async () => {
      const factory = await backend();
      cleanups.push(() => factory.dispose());
      const first = await factory.open();
      cleanups.push(() => first.close());
      return { factory, jobs: first.jobs, close: () => first.close() };
    };

    it('keeps an inserted job across a reopen, pending with no attempts, its configuration shown redacted', async () => {
      const { factory, jobs, close } = await open();
      await jobs.insert([job('dlv_a')]);
      await close();
      const again = await factory.open();
      cleanups.push(() => again.close());
      expect(await again.jobs.get('dlv_a')).toMatchObject({
        status: 'pending',
        attempts: 0,
        max_attempts: 3,
        run_id: 'run_1',
        step_name: 'step',
        config: { auth: { password: '[REDACTED]' } },
        next_attempt_at: 1000,
        log: [],
      });
      const [claimed] = await again.jobs.claimDue(1000, 10, 60_000);
      expect(claimed?.config).toMatchObject({ auth: { password: 'p' } });
    });

    it('stores a job inserted twice under one id once', async () => {
      const { jobs } = await open();
      await jobs.insert([job('dlv_a')]);
      await jobs.insert([job('dlv_a', { target: 'other' }), job('dlv_b')]);
      expect((await jobs.listByRun('run_1')).map((record) => [record.id, record.target])).toEqual([
        ['dlv_a', 'https://example.com/hook'],
        ['dlv_b', 'https://example.com/hook'],
      ]);
    });

    it('hands a due job to one claimer until its lease runs out', async () => {
      const { jobs } = await open();
      await jobs.insert([job('dlv_a'), job('dlv_later', { createdAt: 5000 })]);
      expect(await jobs.claimDue(999, 10, 100)).toEqual([]);
      const first = await jobs.claimDue(1000, 10, 100);
      expect(first.map((claimed) => claimed.id)).toEqual(['dlv_a']);
      expect(await jobs.claimDue(1050, 10, 100)).toEqual([]);
      expect((await jobs.get('dlv_a'))?.status).toBe('delivering');
      const second = await jobs.claimDue(1100, 10, 100);
      expect(second.map((claimed) => claimed.id)).toEqual(['dlv_a']);
      // The first claimer's late result is ignored: the job is the second claimer's now.
      await jobs.finish(first[0]!, failed(1, 2000), 1150);
      expect((await jobs.get('dlv_a'))?.status).toBe('delivering');
      await jobs.finish(second[0]!, failed(1, 2000), 1160);
      expect(await jobs.get('dlv_a')).toMatchObject({ status: 'pending', attempts: 1, last_error: 'HTTP 503' });
    });

    it('records each attempt, schedules the next and tells when something is due', async () => {
      const { jobs } = await open();
      expect(await jobs.nextDueAt()).toBeNull();
      await jobs.insert([job('dlv_a')]);
      expect(await jobs.nextDueAt()).toBe(1000);
      const [claimed] = await jobs.claimDue(1000, 10, 100);
      expect(await jobs.nextDueAt()).toBe(1100);
      await jobs.finish(claimed!, failed(1, 3000), 1010);
      expect(await jobs.nextDueAt()).toBe(3000);
      const [again] = await jobs.claimDue(3000, 10, 100);
      await jobs.finish(
        again!,
        {
          attempt: { attempt: 2, at: 3000, duration_ms: 4, ok: true, detail: 'HTTP 200' },
          status: 'delivered',
          nextAttemptAt: null,
          lastError: null,
        },
        3004,
      );
      expect(await jobs.get('dlv_a')).toMatchObject({
        status: 'delivered',
        attempts: 2,
        last_error: null,
        next_attempt_at: null,
        delivered_at: 3004,
        log: [
          { attempt: 1, ok: false, detail: 'HTTP 503' },
          { attempt: 2, ok: true, detail: 'HTTP 200' },
        ],
      });
      expect(await jobs.nextDueAt()).toBeNull();
    });

    it("lists a subscription's deliveries newest first with a before cursor, and refuses an unknown cursor", async () => {
      const { jobs } = await open();
      await jobs.insert(['dlv_1', 'dlv_2', 'dlv_3'].map((id) => job(id, { kind: 'webhook', subscriptionId: 'sub_a' })));
      await jobs.insert([job('dlv_x', { kind: 'webhook', subscriptionId: 'sub_b' })]);
      const page = await jobs.listBySubscription('sub_a', { limit: 2 });
      expect(page.total).toBe(3);
      expect(page.data.map((record) => record.id)).toEqual(['dlv_3', 'dlv_2']);
      const next = await jobs.listBySubscription('sub_a', { limit: 2, before: 'dlv_2' });
      expect(next.data.map((record) => record.id)).toEqual(['dlv_1']);
      await expect(jobs.listBySubscription('sub_a', { limit: 2, before: 'dlv_x' })).rejects.toBeInstanceOf(AppError);
    });

    it("gives a target's latest deliveries oldest first", async () => {
      const { jobs } = await open();
      await jobs.insert(['dlv_1', 'dlv_2', 'dlv_3'].map((id) => job(id, { kind: 'sse', target: 'orders' })));
      await jobs.insert([job('dlv_4', { kind: 'sse', target: 'other' })]);
      expect((await jobs.recentByTarget('sse', 'orders', 2)).map((record) => record.id)).toEqual(['dlv_2', 'dlv_3']);
    });
  });
}
