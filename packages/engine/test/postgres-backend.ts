/**
 * The PostgreSQL backend as the contract suites and the multi-process tests open it: each `open`
 * is a pool of its own, as another process would have.
 */
import { sql, type Kysely } from 'kysely';
import { PostgresInvocationQueue } from '../src/invocations/postgres-invocation-queue.js';
import { PostgresScheduler } from '../src/scheduler/postgres-scheduler.js';
import { EVENT_BIN_SIZE, LOG_SIZE } from '../src/sources/event-store.js';
import { openPostgres } from '../src/store/open-postgres.js';
import { PostgresStore } from '../src/store/postgres-store.js';
import type { Database } from '../src/store/schema.js';
import type { Backend, OpenOptions } from './contracts/backend.js';
import { seedComponent } from './seed-component.js';

export async function openPostgresBackend(
  url: string,
  options: OpenOptions & { readonly claimLeaseMs?: number },
): Promise<Backend & { readonly db: Kysely<Database> }> {
  const db = await openPostgres({ url, log: options.log ?? (() => undefined), poolSize: 4 });
  const queue = new PostgresInvocationQueue({
    db,
    now: options.now,
    retry: options.retry,
    ...(options.claimLeaseMs !== undefined ? { claimLeaseMs: options.claimLeaseMs } : {}),
  });
  return {
    db,
    store: new PostgresStore({ db, eventBinSize: EVENT_BIN_SIZE, logSize: LOG_SIZE }),
    queue,
    scheduler: new PostgresScheduler({
      db,
      now: options.now,
      onQueued: options.onQueued ?? (() => undefined),
      log: options.log ?? (() => undefined),
      maxSleepMs: 20,
    }),
    seedComponent: (componentId) => seedComponent(db, componentId),
    async close() {
      await queue.close();
      await db.destroy();
    },
  };
}

/** Every table but the migrations' own: a test starts from an empty store. */
export async function emptyDatabase(db: Kysely<Database>): Promise<void> {
  await sql`truncate table events, logs, invocations, dead_letters, queue_claims, source_state, sources, registry, components, accounts, apps, api_keys, deliveries, subscriptions, emitter_cursors, workflows, workflow_versions, workflow_runs, workflow_steps restart identity`.execute(
    db,
  );
}
