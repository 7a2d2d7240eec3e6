/**
 * Timers on BullMQ job schedulers (src/scheduler/bullmq-scheduler.ts) over PostgreSQL: the
 * Scheduler contract suite, then what only job schedulers do, on the real clock. Needs PostgreSQL
 * (tools/test-support/postgres.ts) and Redis (tools/test-support/test-redis.ts); every test
 * works under a BullMQ prefix of its own, whose keys are deleted after it.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../tools/test-support/postgres.js';
import {
  connectTestRedis,
  deleteTestKeys,
  TEST_REDIS_URL,
  testRedisPrefix,
} from '../../../tools/test-support/test-redis.js';
import { BullmqTimerJobs, connectRedis } from '../src/index.js';
import { BullmqScheduler } from '../src/scheduler/bullmq-scheduler.js';
import { queueTicks } from '../src/scheduler/postgres-scheduler.js';
import { openPostgres } from '../src/store/open-postgres.js';
import { createSource, RETRY, type Backend, type BackendFactory, type OpenOptions } from './contracts/backend.js';
import { schedulerContract } from './contracts/scheduler.contract.js';
import { emptyDatabase, openPostgresBackend } from './postgres-backend.js';

const prefix = testRedisPrefix();
let database: TestDatabase;
let redis: Awaited<ReturnType<typeof connectTestRedis>>;
beforeAll(async () => {
  redis = await connectTestRedis('tributary-test-timers');
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
  if (!redis) return;
  await deleteTestKeys(redis, prefix);
  await redis.quit();
});

type TimerBackend = Backend & { readonly scheduler: BullmqScheduler; readonly jobs: BullmqTimerJobs };

/** A process's share: its own pool, its own BullMQ connection, the same prefix as its peers. */
async function openTimerBackend(bullPrefix: string, options: OpenOptions): Promise<TimerBackend> {
  const backend = await openPostgresBackend(database.url, options);
  const jobs = new BullmqTimerJobs({
    redis: await connectRedis({ url: TEST_REDIS_URL, name: 'tributary-test-timers', maxRetriesPerRequest: null }),
    prefix: bullPrefix,
    log: options.log ?? (() => undefined),
  });
  const scheduler = new BullmqScheduler({
    jobs,
    db: backend.db,
    now: options.now,
    queueTicks: (ticks) => queueTicks(backend.db, ticks),
    sweep: backend.scheduler,
    onQueued: options.onQueued ?? (() => undefined),
    log: options.log ?? (() => undefined),
  });
  return {
    ...backend,
    scheduler,
    jobs,
    async close() {
      await scheduler.stop();
      await jobs.close();
      await backend.close();
    },
  };
}

function timerBackends(): BackendFactory & { open(options: OpenOptions): Promise<TimerBackend> } {
  const bullPrefix = `${prefix}bull-${Date.now()}-${Math.random().toString(36).slice(2)}`;
  return {
    open: (options) => openTimerBackend(bullPrefix, options),
    async dispose() {
      await deleteTestKeys(redis, bullPrefix);
      const db = await openPostgres({ url: database.url, log: () => undefined, poolSize: 1 });
      try {
        await emptyDatabase(db);
      } finally {
        await db.destroy();
      }
    },
  };
}

schedulerContract('BullMQ job schedulers on PostgreSQL', () => Promise.resolve(timerBackends()));

describe('BullMQ job schedulers, on the real clock', () => {
  const SECOND = JSON.stringify({ kind: 'interval', intervalSeconds: 1 });
  let factory: ReturnType<typeof timerBackends>;
  let opened: TimerBackend[];
  let queued: string[];
  const open = async (): Promise<TimerBackend> => {
    const backend = await factory.open({ now: Date.now, retry: RETRY, onQueued: (ids) => queued.push(...ids) });
    opened.push(backend);
    return backend;
  };
  const ticksOf = async (backend: Backend, sourceId: string): Promise<number[]> => {
    const claimed = await backend.queue.claim(sourceId, 100);
    await backend.queue.release(sourceId);
    return claimed.map((item) => (JSON.parse(item.event) as { timestamp: number }).timestamp);
  };

  beforeEach(() => {
    factory = timerBackends();
    opened = [];
    queued = [];
  });
  afterEach(async () => {
    for (const backend of opened) await backend.close();
    await factory.dispose();
  });

  it('fires each slot once, a second apart, although two schedulers take the jobs', async () => {
    const [a, b] = [await open(), await open()];
    const startedAt = Date.now();
    const source = await createSource(a, startedAt, { timer: SECOND, next_fire_at: startedAt + 1000 });
    a.scheduler.start();
    b.scheduler.start();
    await new Promise((resolve) => setTimeout(resolve, 5000));
    await Promise.all([a.scheduler.stop(), b.scheduler.stop()]);
    const elapsedSeconds = (Date.now() - startedAt) / 1000;
    const ticks = await ticksOf(a, source.id);
    expect(ticks.length).toBeGreaterThanOrEqual(2);
    // One tick per slot at most: the job at the job scheduler's creation precedes the first fire time.
    expect(ticks.length).toBeLessThanOrEqual(Math.floor(elapsedSeconds));
    expect(ticks).toEqual([...new Set(ticks)].sort((x, y) => x - y));
    expect(queued).toHaveLength(ticks.length);
  }, 20_000);

  it('queues a slot once when its job fires again, and none before the first fire time', async () => {
    const backend = await open();
    const t = Date.now();
    const source = await createSource(backend, t, { timer: SECOND, next_fire_at: t + 1000 });
    expect(await backend.scheduler.fire({ sourceId: source.id, scheduledAt: t })).toEqual([]);
    expect(await backend.scheduler.fire({ sourceId: source.id, scheduledAt: t + 1000 })).toEqual([source.id]);
    expect(await backend.scheduler.fire({ sourceId: source.id, scheduledAt: t + 1000 })).toEqual([]);
    expect(await backend.scheduler.fire({ sourceId: source.id, scheduledAt: t + 1200 })).toEqual([]);
    expect(await ticksOf(backend, source.id)).toEqual([Math.floor((t + 1000) / 1000)]);
    expect((await backend.store.getSource(source.id))?.next_fire_at).toBe(t + 2000);
  });

  it('keeps one job scheduler per active timer source: added, changed and removed with the store', async () => {
    const backend = await open();
    await backend.jobs.sync([{ sourceId: 'dc_gone', schedule: { kind: 'interval', intervalSeconds: 60 } }]);
    const kept = await createSource(backend, Date.now(), { timer: SECOND, next_fire_at: Date.now() + 1000 });
    const stopped = await createSource(backend, Date.now(), { timer: SECOND, next_fire_at: Date.now() + 1000 });
    await createSource(backend, Date.now());
    backend.scheduler.start();
    await backend.scheduler.settled();
    const ids = async (): Promise<string[]> => (await backend.jobs.scheduled()).map((timer) => timer.sourceId);
    expect(await ids()).toEqual([kept.id, stopped.id].sort());
    expect((await backend.jobs.scheduled())[0]).toMatchObject({ every: 1000 });
    await backend.db
      .updateTable('sources')
      .set({ active: 0, next_fire_at: null })
      .where('id', '=', stopped.id)
      .execute();
    const cron = JSON.stringify({ kind: 'cron', cron: '0 9 * * *', timezone: 'Europe/Paris' });
    await backend.db.updateTable('sources').set({ timer: cron }).where('id', '=', kept.id).execute();
    backend.scheduler.wake();
    await backend.scheduler.settled();
    expect(await backend.jobs.scheduled()).toEqual([
      expect.objectContaining({ sourceId: kept.id, pattern: '0 9 * * *', tz: 'Europe/Paris' }),
    ]);
  });
});
