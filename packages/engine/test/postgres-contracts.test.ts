/**
 * The port contract suites on PostgreSQL (needs a server: tools/test-support/postgres.ts, set
 * TRIBUTARY_TEST_DATABASE_URL to use another than 127.0.0.1:5432). One database for the file,
 * emptied between tests; every `open` is a pool of its own, as another process would have.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../tools/test-support/postgres.js';
import { openPostgres } from '../src/store/open-postgres.js';
import {
  createSource,
  RETRY,
  TestClock,
  uniqueId,
  type Backend,
  type BackendFactory,
  type OpenOptions,
} from './contracts/backend.js';
import { PostgresInvocationQueue } from '../src/invocations/postgres-invocation-queue.js';
import { queueContract } from './contracts/queue.contract.js';
import { schedulerContract } from './contracts/scheduler.contract.js';
import { storeContract } from './contracts/store.contract.js';
import { emptyDatabase, openPostgresBackend } from './postgres-backend.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

function postgresBackend(): Promise<BackendFactory> {
  return Promise.resolve({
    open: (options: OpenOptions) => openPostgresBackend(database.url, options),
    async dispose() {
      const db = await openPostgres({ url: database.url, log: () => undefined, poolSize: 1 });
      try {
        await emptyDatabase(db);
      } finally {
        await db.destroy();
      }
    },
  });
}

storeContract('PostgreSQL', postgresBackend);
queueContract('PostgreSQL', postgresBackend);
schedulerContract('PostgreSQL', postgresBackend);

describe('PostgreSQL: several processes on one database', () => {
  const T0 = Date.UTC(2026, 0, 1);
  const LEASE_MS = 30_000;
  let clock: TestClock;
  let opened: Backend[];

  const open = async (): Promise<Backend & { db: Awaited<ReturnType<typeof openPostgresBackend>>['db'] }> => {
    const backend = await openPostgresBackend(database.url, { now: clock.now, retry: RETRY, claimLeaseMs: LEASE_MS });
    opened.push(backend);
    return backend;
  };

  beforeEach(() => {
    clock = new TestClock(T0);
    opened = [];
  });
  afterEach(async () => {
    for (const backend of opened) await backend.close().catch(() => undefined);
    await (await postgresBackend()).dispose();
  });

  it("gives a source to one claimer at a time across pools, and to another once a dead claimer's lease lapses", async () => {
    const [first, second] = [await open(), await open()];
    const source = uniqueId('dc');
    await first.queue.enqueue([{ id: uniqueId('inv'), sourceId: source, trigger: 'http', event: '{}', createdAt: T0 }]);
    const claims = await Promise.all(
      Array.from({ length: 12 }, (_, n) => (n % 2 === 0 ? first : second).queue.claim(source, 10)),
    );
    expect(claims.filter((rows) => rows.length > 0)).toHaveLength(1);
    const winner = claims.findIndex((rows) => rows.length > 0) % 2 === 0 ? first : second;
    const loser = winner === first ? second : first;
    await winner.queue.release(source);
    expect(await loser.queue.claim(source, 10)).toHaveLength(1);

    // The holder dies (its pool goes without giving the claim back): the entry waits out the lease,
    // then another process runs it again.
    await loser.db.destroy();
    const survivor = new PostgresInvocationQueue({ db: winner.db, now: clock.now, claimLeaseMs: LEASE_MS });
    expect(await survivor.claim(source, 10)).toEqual([]);
    clock.advance(LEASE_MS);
    expect(await survivor.claim(source, 10)).toHaveLength(1);
    await survivor.close();
  });

  it('keeps a claim its holder renews past the first lease', async () => {
    const db = (await open()).db;
    const lease = 300;
    const holder = new PostgresInvocationQueue({ db, now: clock.now, claimLeaseMs: lease });
    const other = new PostgresInvocationQueue({ db, now: clock.now, claimLeaseMs: lease });
    const source = uniqueId('dc');
    await holder.enqueue([{ id: uniqueId('inv'), sourceId: source, trigger: 'http', event: '{}', createdAt: T0 }]);
    try {
      expect(await holder.claim(source, 10)).toHaveLength(1);
      // Renewals run every third of the lease (on the process's timers), from the injected clock.
      clock.advance(lease - 100);
      await new Promise((resolve) => setTimeout(resolve, lease));
      clock.advance(200);
      expect(await other.claim(source, 10)).toEqual([]);
      await holder.release(source);
      expect(await other.claim(source, 10)).toHaveLength(1);
    } finally {
      await holder.close();
      await other.close();
    }
  });

  it('queues a due tick once however many schedulers check at the same time', async () => {
    const backends = [await open(), await open(), await open()];
    const timer = JSON.stringify({ kind: 'interval', intervalSeconds: 60 });
    const sources = [];
    for (let n = 0; n < 20; n += 1) sources.push(await createSource(backends[0]!, T0, { timer, next_fire_at: T0 }));
    const results = await Promise.all(
      backends.flatMap((backend) => [backend.scheduler.tick(), backend.scheduler.tick()]),
    );
    expect(results.flat().sort()).toEqual(sources.map((source) => source.id).sort());
    for (const source of sources) {
      const ticks = await backends[1]!.queue.claim(source.id, 10);
      expect(ticks.map((tick) => tick.trigger)).toEqual(['timer']);
      await backends[1]!.queue.release(source.id);
    }
  });
});
