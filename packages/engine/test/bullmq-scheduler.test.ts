/**
 * Timers on BullMQ job schedulers (src/scheduler/bullmq-scheduler.ts) over PostgreSQL: the
 * Scheduler contract suite, then what only job schedulers do, on the real clock, for timer sources
 * and timer workflows. Needs PostgreSQL
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
import { SourceTimerTargets } from '../src/scheduler/source-timer-targets.js';
import { openPostgres } from '../src/store/open-postgres.js';
import { PostgresWorkflowStore } from '../src/workflows/postgres-workflow-store.js';
import { WorkflowTimerTargets } from '../src/workflows/workflow-timer-targets.js';
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

type TimerBackend = Backend & {
  readonly scheduler: BullmqScheduler;
  readonly jobs: BullmqTimerJobs;
  readonly workflows: PostgresWorkflowStore;
};

interface TimerOpenOptions extends OpenOptions {
  /** Told the queue key of each workflow run a timer queued. */
  readonly onRun?: (queueKey: string) => void;
  /** The drift metric's feed: how late each queued tick was. */
  readonly onTickLate?: (lateMs: number) => void;
}

/** A process's share: its own pool, its own BullMQ connection, the same prefix as its peers. */
async function openTimerBackend(bullPrefix: string, options: TimerOpenOptions): Promise<TimerBackend> {
  const backend = await openPostgresBackend(database.url, options);
  const jobs = new BullmqTimerJobs({
    redis: await connectRedis({ url: TEST_REDIS_URL, name: 'tributary-test-timers', maxRetriesPerRequest: null }),
    prefix: bullPrefix,
    log: options.log ?? (() => undefined),
  });
  const workflows = new PostgresWorkflowStore(backend.db);
  const scheduler = new BullmqScheduler({
    jobs,
    targets: {
      source: new SourceTimerTargets({
        db: backend.db,
        now: options.now,
        queueTicks: (ticks) => queueTicks(backend.db, ticks),
        onQueued: options.onQueued ?? (() => undefined),
      }),
      workflow: new WorkflowTimerTargets({
        store: workflows,
        now: options.now,
        notify: options.onRun ?? (() => undefined),
      }),
    },
    now: options.now,
    sweep: backend.scheduler,
    log: options.log ?? (() => undefined),
    ...(options.onTickLate ? { onTickLate: options.onTickLate } : {}),
  });
  return {
    ...backend,
    scheduler,
    jobs,
    workflows,
    async close() {
      await scheduler.stop();
      await jobs.close();
      await backend.close();
    },
  };
}

function timerBackends(): BackendFactory & { open(options: TimerOpenOptions): Promise<TimerBackend> } {
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
  let late: number[];
  const open = async (): Promise<TimerBackend> => {
    const backend = await factory.open({
      now: Date.now,
      retry: RETRY,
      onQueued: (ids) => queued.push(...ids),
      onTickLate: (ms) => late.push(ms),
    });
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
    late = [];
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
    // A runner's part: each tick leaves the queue soon after it came (a tick due while the previous
    // one is still queued would be merged into it).
    const ticks: number[] = [];
    // Five seconds at least, and on a loaded machine until two ticks came (or 30 s passed): the
    // count is checked against the time that really went by, not against five slots.
    const until = Date.now() + 5000;
    while (Date.now() < until || (ticks.length < 2 && Date.now() < startedAt + 30_000)) {
      const claimed = await a.queue.claim(source.id, 100);
      ticks.push(...claimed.map((item) => (JSON.parse(item.event) as { timestamp: number }).timestamp));
      await a.queue.drop(claimed.map((item) => item.id));
      await a.queue.release(source.id);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await Promise.all([a.scheduler.stop(), b.scheduler.stop()]);
    const elapsedSeconds = (Date.now() - startedAt) / 1000;
    ticks.push(...(await ticksOf(a, source.id)));
    expect(ticks.length).toBeGreaterThanOrEqual(2);
    // One tick per slot at most: the job at the job scheduler's creation precedes the first fire time.
    expect(ticks.length).toBeLessThanOrEqual(Math.floor(elapsedSeconds));
    expect(ticks).toEqual([...new Set(ticks)].sort((x, y) => x - y));
    expect(queued).toHaveLength(ticks.length);
  }, 60_000);

  it('queues a slot once when its job fires again, and none before the first fire time', async () => {
    const backend = await open();
    const t = Date.now();
    const source = await createSource(backend, t, { timer: SECOND, next_fire_at: t + 1000 });
    const fire = (scheduledAt: number): Promise<string[]> =>
      backend.scheduler.fire({ owner: 'source', id: source.id, scheduledAt });
    expect(await fire(t)).toEqual([]);
    expect(await fire(t + 1000)).toEqual([source.id]);
    expect(await fire(t + 1000)).toEqual([]);
    expect(await fire(t + 1200)).toEqual([]);
    expect(await ticksOf(backend, source.id)).toEqual([Math.floor((t + 1000) / 1000)]);
    expect((await backend.store.getSource(source.id))?.next_fire_at).toBe(t + 2000);
    expect(late).toHaveLength(1);
  });

  it('keeps one job scheduler per active timer source: added, changed and removed with the store', async () => {
    const backend = await open();
    await backend.jobs.sync({
      source: [{ id: 'dc_gone', schedule: { kind: 'interval', intervalSeconds: 60 } }],
      workflow: [],
    });
    const kept = await createSource(backend, Date.now(), { timer: SECOND, next_fire_at: Date.now() + 1000 });
    const stopped = await createSource(backend, Date.now(), { timer: SECOND, next_fire_at: Date.now() + 1000 });
    await createSource(backend, Date.now());
    backend.scheduler.start();
    await backend.scheduler.settled();
    const ids = async (): Promise<string[]> => (await backend.jobs.scheduled()).map((timer) => timer.id);
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
      expect.objectContaining({ owner: 'source', id: kept.id, pattern: '0 9 * * *', tz: 'Europe/Paris' }),
    ]);
  });
});

describe('timer workflows on BullMQ job schedulers (wftimer:<workflow id>), on the real clock', () => {
  const SECOND = JSON.stringify({ kind: 'interval', intervalSeconds: 1 });
  let factory: ReturnType<typeof timerBackends>;
  let opened: TimerBackend[];
  let runs: string[];
  let late: number[];
  const open = async (): Promise<TimerBackend> => {
    const backend = await factory.open({
      now: Date.now,
      retry: RETRY,
      onRun: (queueKey) => runs.push(queueKey),
      onTickLate: (ms) => late.push(ms),
    });
    opened.push(backend);
    return backend;
  };
  const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
  const timestampsOf = async (backend: TimerBackend, workflowId: string): Promise<number[]> =>
    (await backend.workflows.listRuns(workflowId, { limit: 100 })).data
      .map((run) => (JSON.parse(run.event) as { timestamp: number }).timestamp)
      .sort((x, y) => x - y);
  const workflowTimers = async (backend: TimerBackend): Promise<string[]> =>
    (await backend.jobs.scheduled()).filter((timer) => timer.owner === 'workflow').map((timer) => timer.id);

  /**
   * A workflow row and version as `WorkflowService.save` stores them, written straight to the store
   * so the interval can be 1 s (the API's minimum is 15 s).
   */
  let saved = 0;
  const saveWorkflow = async (
    backend: TimerBackend,
    options: { readonly nextFireAt?: number; readonly intervalSeconds?: number; readonly active?: boolean },
  ): Promise<string> => {
    saved += 1;
    const id = `wf_timer${saved}`;
    const now = Date.now();
    const trigger =
      options.nextFireAt === undefined
        ? ({ type: 'manual' } as const)
        : ({ type: 'timer', interval_seconds: options.intervalSeconds ?? 1 } as const);
    await backend.workflows.saveWorkflow(
      {
        id,
        name: id,
        active: options.active ?? true,
        version: 1,
        triggerType: trigger.type,
        endpointId: null,
        sourceId: null,
        nextFireAt: options.nextFireAt ?? null,
        runsDropped: 0,
        createdAt: now,
        updatedAt: now,
      },
      {
        workflowId: id,
        version: 1,
        spec: { name: id, trigger, steps: [{ name: 'a', action: 'k' }] },
        steps: [],
        createdAt: now,
      },
    );
    return id;
  };

  beforeEach(() => {
    factory = timerBackends();
    opened = [];
    runs = [];
    late = [];
  });
  afterEach(async () => {
    for (const backend of opened) await backend.close();
    await factory.dispose();
  });

  it('fires each slot of a 1 s workflow timer once although two schedulers take the jobs; deactivated, it stops', async () => {
    const [a, b] = [await open(), await open()];
    const startedAt = Date.now();
    const id = await saveWorkflow(a, { nextFireAt: startedAt + 1000 });
    a.scheduler.start();
    b.scheduler.start();
    // A runner's part: each run leaves the queue soon after it came (a tick due while the previous
    // run is still queued would be merged into it).
    const seen = new Set<string>();
    // 4.5 s at least, and on a loaded machine until two runs came (or 30 s passed): the count is
    // checked against the time that really went by.
    while (Date.now() < startedAt + 4500 || (seen.size < 2 && Date.now() < startedAt + 30_000)) {
      for (const run of (await a.workflows.listRuns(id, { limit: 100 })).data) {
        if (seen.has(run.id)) continue;
        seen.add(run.id);
        await a.workflows.dropEntry(run.id);
      }
      await sleep(50);
    }
    // Deactivated as `WorkflowService.setActive` does it: the store, then a word to the scheduler.
    await b.workflows.setActive(id, false, Date.now());
    b.scheduler.wake();
    await b.scheduler.settled();
    const elapsedSeconds = (Date.now() - startedAt) / 1000;
    const fired = await timestampsOf(a, id);
    expect(fired.length).toBeGreaterThanOrEqual(2);
    // One run per slot at most: the job at the job scheduler's creation precedes the first fire time.
    expect(fired.length).toBeLessThanOrEqual(Math.floor(elapsedSeconds));
    expect(new Set(fired).size).toBe(fired.length);
    expect(runs).toHaveLength(fired.length);
    expect(await workflowTimers(a)).toEqual([]);
    await sleep(1500);
    expect(await timestampsOf(a, id)).toEqual(fired);
  }, 60_000);

  it('queues a slot once, merges a tick into a timer run still queued, and feeds the drift metric', async () => {
    const backend = await open();
    const t = Date.now();
    // Missed while no scheduler ran: due 5 s ago.
    const id = await saveWorkflow(backend, { nextFireAt: t - 5000 });
    const fire = (scheduledAt: number): Promise<string[]> =>
      backend.scheduler.fire({ owner: 'workflow', id, scheduledAt });
    expect(await fire(t - 60_000)).toEqual([]);
    expect(await fire(t)).toEqual([id]);
    expect(late).toHaveLength(1);
    expect(late[0]).toBeGreaterThanOrEqual(5000);
    expect(late[0]).toBeLessThan(60_000);
    // The same slot again (a job retried after a crash) queues nothing.
    expect(await fire(t)).toEqual([]);
    // The next slot while the first run is still queued: merged, the fire time moves on.
    expect(await fire(t + 1000)).toEqual([]);
    expect((await backend.workflows.getWorkflow(id))?.nextFireAt).toBe(t + 2000);
    const [first] = (await backend.workflows.listRuns(id, { limit: 100 })).data;
    await backend.workflows.dropEntry(first?.id ?? '');
    expect(await fire(t + 2000)).toEqual([id]);
    expect(await timestampsOf(backend, id)).toEqual([Math.floor(t / 1000), Math.floor((t + 2000) / 1000)]);
    expect(runs).toHaveLength(2);
    // Sources feed the same metric from their job schedulers.
    const source = await createSource(backend, t, { timer: SECOND, next_fire_at: t - 3000 });
    expect(await backend.scheduler.fire({ owner: 'source', id: source.id, scheduledAt: t })).toEqual([source.id]);
    expect(late).toHaveLength(3);
    expect(late[2]).toBeGreaterThanOrEqual(3000);
  });

  it('keeps one job scheduler per active timer workflow beside the sources’: reconciled at start, removed on delete', async () => {
    const first = await open();
    await first.jobs.sync({
      source: [],
      workflow: [{ id: 'wf_gone', schedule: { kind: 'interval', intervalSeconds: 60 } }],
    });
    const source = await createSource(first, Date.now(), { timer: SECOND, next_fire_at: Date.now() + 60_000 });
    const kept = await saveWorkflow(first, { nextFireAt: Date.now() + 60_000, intervalSeconds: 60 });
    await saveWorkflow(first, { nextFireAt: Date.now() + 60_000, active: false });
    await saveWorkflow(first, {});
    first.scheduler.start();
    await first.scheduler.settled();
    expect(await first.jobs.scheduled()).toEqual([
      expect.objectContaining({ owner: 'source', id: source.id, every: 1000 }),
      expect.objectContaining({ owner: 'workflow', id: kept, every: 60_000 }),
    ]);
    // Changed while no scheduler ran (nor told one): the next one to start reconciles.
    await first.scheduler.stop();
    await first.workflows.deleteWorkflow(kept);
    const added = await saveWorkflow(first, { nextFireAt: Date.now() + 60_000, intervalSeconds: 60 });
    const second = await open();
    second.scheduler.start();
    await second.scheduler.settled();
    expect(await workflowTimers(second)).toEqual([added]);
    // A delete on a running process (`WorkflowService.delete` wakes the scheduler): gone at once.
    await second.workflows.deleteWorkflow(added);
    second.scheduler.wake();
    await second.scheduler.settled();
    expect(await workflowTimers(second)).toEqual([]);
    expect((await second.jobs.scheduled()).map((timer) => timer.id)).toEqual([source.id]);
  });
});
