import { SqliteWorkflowStore } from '../workflows/sqlite-workflow-store.js';
import { PostgresWorkflowStore } from '../workflows/postgres-workflow-store.js';
import type { WorkflowStore } from '../workflows/workflow-store.js';
import type { InsertionOrder } from '../invocations/dead-letter-queries.js';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { PostgresInvocationQueue } from '../invocations/postgres-invocation-queue.js';
import { SqliteInvocationQueue } from '../invocations/sqlite-invocation-queue.js';
import type { InvocationQueue, RetryPolicy } from '../ports/invocation-queue.js';
import type { Scheduler } from '../ports/scheduler.js';
import type { Store } from '../ports/store.js';
import { PostgresScheduler, queueTicks as queuePostgresTicks } from '../scheduler/postgres-scheduler.js';
import type { DueTick, QueuedTicks } from '../scheduler/timer-scheduler.js';
import { settle } from './settle.js';
import { SqliteScheduler } from '../scheduler/sqlite-scheduler.js';
import { EVENT_BIN_SIZE, LOG_SIZE } from '../sources/event-store.js';
import { describeDatabaseUrl } from './database-url.js';
import { openDatabase } from './open-database.js';
import { WalCheckpointer } from './wal-checkpointer.js';
import { openPostgres } from './open-postgres.js';
import { PostgresStore } from './postgres-store.js';
import type { Database } from './schema.js';
import { SqliteStore } from './sqlite-store.js';
import { SqliteWrites } from './sqlite-writes.js';

export interface OpenBackendOptions {
  /** A `postgres://` URL puts the store on PostgreSQL; without one it is the SQLite file in `dataDir`. */
  readonly databaseUrl?: string;
  readonly dataDir: string;
  readonly now: () => number;
  readonly retry?: Partial<RetryPolicy>;
  readonly log: (message: string) => void;
}

export interface SchedulerWiring {
  readonly onQueued: (sourceIds: readonly string[]) => void;
  readonly log: (message: string) => void;
  readonly maxSleepMs?: number;
  readonly onTickLate?: (lateMs: number) => void;
}

/** The engine's storage: the Kysely handle its services share, and the three ports on one backend. */
export interface StorageBackend {
  readonly kind: 'sqlite' | 'postgres';
  /** Where the data is, for messages: the SQLite file, or PostgreSQL's host:port/database (no password). */
  readonly location: string;
  readonly db: Kysely<Database>;
  /** The column that keeps tables' insertion order where their rows have no time that does. */
  readonly insertionOrder: InsertionOrder;
  readonly store: Store;
  readonly queue: InvocationQueue;
  /** Workflows, their versions and runs. */
  readonly workflows: WorkflowStore;
  scheduler(wiring: SchedulerWiring): Scheduler;
  /**
   * Queues timer ticks, each with the move of its source's fire time, in one transaction (what the
   * scheduler's check does; BullMQ's job schedulers use it for the ticks they fire).
   */
  queueTicks(ticks: readonly DueTick[]): Promise<QueuedTicks>;
  close(): Promise<void>;
}

/** Opens the store the options name, with its schema up to date. */
export async function openBackend(options: OpenBackendOptions): Promise<StorageBackend> {
  const kind = options.databaseUrl ? 'postgres' : 'sqlite';
  switch (kind) {
    case 'sqlite':
      return openSqliteBackend(options);
    case 'postgres':
      return openPostgresBackend(options, options.databaseUrl ?? '');
  }
}

async function openSqliteBackend(options: OpenBackendOptions): Promise<StorageBackend> {
  const file = path.join(options.dataDir, 'tributary.db');
  const { db, raw } = await openDatabase({ file, log: options.log });
  const checkpointer = new WalCheckpointer({ file, raw, log: options.log });
  const writes = new SqliteWrites(raw, EVENT_BIN_SIZE, LOG_SIZE);
  return {
    kind: 'sqlite',
    location: file,
    db,
    insertionOrder: 'rowid',
    store: new SqliteStore({ db, writes }),
    workflows: new SqliteWorkflowStore(raw),
    queue: new SqliteInvocationQueue({
      raw,
      db,
      writes,
      now: options.now,
      ...(options.retry ? { retry: options.retry } : {}),
    }),
    scheduler: (wiring) => new SqliteScheduler({ db, writes, now: options.now, ...wiring }),
    queueTicks: (ticks) => settle(() => writes.queueTicks(ticks)),
    async close() {
      await checkpointer.stop();
      await db.destroy();
      if (raw.open) raw.close();
    },
  };
}

async function openPostgresBackend(options: OpenBackendOptions, url: string): Promise<StorageBackend> {
  const db = await openPostgres({ url, log: options.log });
  const queue = new PostgresInvocationQueue({
    db,
    now: options.now,
    log: options.log,
    ...(options.retry ? { retry: options.retry } : {}),
  });
  return {
    kind: 'postgres',
    location: `postgres ${describeDatabaseUrl(url)}`,
    db,
    insertionOrder: 'seq',
    store: new PostgresStore({ db, eventBinSize: EVENT_BIN_SIZE, logSize: LOG_SIZE }),
    workflows: new PostgresWorkflowStore(db),
    queue,
    scheduler: (wiring) => new PostgresScheduler({ db, now: options.now, ...wiring }),
    queueTicks: (ticks) => queuePostgresTicks(db, ticks),
    async close() {
      await queue.close();
      await db.destroy();
    },
  };
}
