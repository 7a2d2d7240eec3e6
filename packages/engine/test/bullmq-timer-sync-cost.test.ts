/**
 * What one wake of the BullMQ scheduler costs (src/scheduler/bullmq-scheduler.ts): with 50 timer
 * workflows on a real SQLite store and real Redis (tools/test-support/test-redis.ts), a wake that
 * changes nothing reads the workflow store once and lists the job schedulers once, however many
 * timers there are. The store and the Redis connection are the real ones, passed in through the
 * options behind wrappers that only count the calls.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  connectTestRedis,
  deleteTestKeys,
  TEST_REDIS_URL,
  testRedisPrefix,
} from '../../../tools/test-support/test-redis.js';
import { BullmqTimerJobs, connectRedis } from '../src/index.js';
import { BullmqScheduler } from '../src/scheduler/bullmq-scheduler.js';
import { SourceTimerTargets } from '../src/scheduler/source-timer-targets.js';
import { SqliteScheduler } from '../src/scheduler/sqlite-scheduler.js';
import { EVENT_BIN_SIZE, LOG_SIZE } from '../src/sources/event-store.js';
import { openDatabase } from '../src/store/open-database.js';
import type { Database } from '../src/store/schema.js';
import { SqliteWrites } from '../src/store/sqlite-writes.js';
import { SqliteWorkflowStore } from '../src/workflows/sqlite-workflow-store.js';
import { WorkflowTimerTargets } from '../src/workflows/workflow-timer-targets.js';
import type { WorkflowStore } from '../src/workflows/workflow-store.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const TIMERS = 50;
const prefix = testRedisPrefix();
let admin: Awaited<ReturnType<typeof connectTestRedis>>;
let dir: string;
let db: Kysely<Database>;
let jobs: BullmqTimerJobs;

beforeAll(async () => {
  admin = await connectTestRedis('tributary-test-timer-sync-cost');
  dir = mkdtempSync(path.join(os.tmpdir(), 'tributary-timer-sync-cost-'));
});

afterAll(async () => {
  await jobs?.close();
  await db?.destroy();
  if (admin) {
    await deleteTestKeys(admin, prefix);
    await admin.quit();
  }
  rmSync(dir, { recursive: true, force: true });
});

/** The store itself, with the name of every method called on it recorded in `calls`. */
function countingStore(store: WorkflowStore, calls: string[]): WorkflowStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(String(property));
        return (value as (...rest: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

/** Records the name of every command the connection sends (BullMQ's scripts included) in `commands`. */
function countCommands(redis: Redis, commands: string[]): Redis {
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = (command, stream) => {
    commands.push(command.name.toLowerCase());
    return send(command, stream);
  };
  return redis;
}

describe('a BullMQ scheduler wake (Redis at 127.0.0.1:6379)', () => {
  it('costs one store query and one job scheduler listing, with 50 timer workflows', async () => {
    const opened = await openDatabase({ file: path.join(dir, 'tributary.db') });
    db = opened.db;
    const store = new SqliteWorkflowStore(opened.raw);
    const writes = new SqliteWrites(opened.raw, EVENT_BIN_SIZE, LOG_SIZE);
    const now = Date.now();
    for (let i = 0; i < TIMERS; i += 1) {
      const id = `wf_cost${String(i).padStart(2, '0')}`;
      const trigger = { type: 'timer', interval_seconds: 60 + i } as const;
      await store.saveWorkflow(
        {
          id,
          name: id,
          active: true,
          version: 1,
          triggerType: 'timer',
          endpointId: null,
          sourceId: null,
          nextFireAt: now + 60_000,
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
    }

    const storeCalls: string[] = [];
    const commands: string[] = [];
    jobs = new BullmqTimerJobs({
      redis: countCommands(
        await connectRedis({ url: TEST_REDIS_URL, name: 'tributary-test-timer-sync-cost', maxRetriesPerRequest: null }),
        commands,
      ),
      prefix: `${prefix}bull`,
      log: () => undefined,
    });
    const scheduler = new BullmqScheduler({
      jobs,
      targets: {
        source: new SourceTimerTargets({
          db,
          now: Date.now,
          queueTicks: (ticks) => Promise.resolve(writes.queueTicks(ticks)),
          onQueued: () => undefined,
        }),
        workflow: new WorkflowTimerTargets({
          store: countingStore(store, storeCalls),
          now: Date.now,
          notify: () => undefined,
        }),
      },
      now: Date.now,
      sweep: new SqliteScheduler({ db, writes, now: Date.now, onQueued: () => undefined, log: () => undefined }),
      log: () => undefined,
    });

    // The first wake creates the 50 job schedulers.
    scheduler.wake();
    await scheduler.settled();
    const scheduled = await jobs.scheduled();
    expect(scheduled).toHaveLength(TIMERS);
    expect(scheduled[TIMERS - 1]).toMatchObject({ owner: 'workflow', id: 'wf_cost49', every: 109_000 });

    // A wake with nothing changed: no per-workflow read, and one listing of the job schedulers.
    storeCalls.length = 0;
    commands.length = 0;
    scheduler.wake();
    await scheduler.settled();
    expect(storeCalls).toEqual(['timerWorkflows']);
    // BullMQ lists the job schedulers with one range read of its sorted set, then reads each one's
    // hash (sent together); nothing is upserted or removed.
    expect(commands.filter((name) => name.includes('range'))).toHaveLength(1);
    expect(commands.length).toBeLessThanOrEqual(TIMERS + 2);
    expect(await jobs.scheduled()).toEqual(scheduled);
  });
});
