import type SqliteDatabase from 'better-sqlite3';
import type { Kysely } from 'kysely';
import {
  backoffMs,
  DEFAULT_RETRY_POLICY,
  type FailOutcome,
  type InvocationQueue,
  type NewInvocation,
  type QueuedInvocation,
  type RetryPolicy,
  type Trigger,
} from '../ports/invocation-queue.js';
import type { Database } from '../store/schema.js';
import { settle } from '../store/settle.js';
import type { SqliteWrites } from '../store/sqlite-writes.js';
import { nextRetryAt } from './queue-queries.js';
import { SqliteDeadLetters } from './sqlite-dead-letters.js';

export interface SqliteInvocationQueueOptions {
  readonly raw: SqliteDatabase.Database;
  /** The same file through Kysely, for the queries both dialects share (off the hot path). */
  readonly db: Kysely<Database>;
  readonly writes: SqliteWrites;
  readonly now: () => number;
  readonly retry?: Partial<RetryPolicy>;
}

interface Row {
  id: string;
  source_id: string;
  trigger: Trigger;
  event: string;
  attempts: number;
  created_at: number;
  not_before: number;
  last_error: string | null;
}

/**
 * The invocation queue in the `invocations` table of the embedded SQLite file. One process owns
 * the file, so per-source claims are kept in memory: a restart frees them all, and whatever was
 * claimed runs again (at least once). Enqueues in the same turn of the event loop are committed
 * together in one transaction (a group commit): under load one commit serves many requests.
 */
export class SqliteInvocationQueue implements InvocationQueue {
  readonly deadLetters: SqliteDeadLetters;
  private readonly policy: RetryPolicy;
  private readonly claimed = new Set<string>();
  private readonly toQueue: {
    readonly items: readonly NewInvocation[];
    readonly resolve: () => void;
    readonly reject: (error: unknown) => void;
  }[] = [];
  private readonly statements;

  constructor(private readonly options: SqliteInvocationQueueOptions) {
    this.policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    const raw = options.raw;
    // Databases written before claims moved to memory may still hold 'running' rows.
    raw.prepare("UPDATE invocations SET status = 'queued' WHERE status = 'running'").run();
    this.statements = {
      get: raw.prepare('SELECT * FROM invocations WHERE id = ?'),
      retryLater: raw.prepare('UPDATE invocations SET attempts = ?, not_before = ?, last_error = ? WHERE id = ?'),
    };
    this.deadLetters = new SqliteDeadLetters({ raw, db: options.db, writes: options.writes, now: options.now });
  }

  enqueue(items: readonly NewInvocation[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.toQueue.push({ items, resolve, reject });
      if (this.toQueue.length === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const group = this.toQueue.splice(0);
    try {
      this.options.writes.enqueueAll(group.flatMap((entry) => entry.items));
    } catch (error) {
      for (const entry of group) entry.reject(error);
      return;
    }
    for (const entry of group) entry.resolve();
  }

  sourcesWithWork(): Promise<string[]> {
    return settle(() => this.options.writes.sourcesWithWork());
  }

  claim(sourceId: string, limit: number): Promise<QueuedInvocation[]> {
    return settle(() => {
      if (this.claimed.has(sourceId)) return [];
      const now = this.options.now();
      const rows = this.options.writes.oldestOfSource(sourceId, limit) as Row[];
      // An entry backing off holds back the rest of its source: per-source order is kept.
      const due = rows.findIndex((row) => row.not_before > now);
      const picked = (due === -1 ? rows : rows.slice(0, due)).map(toQueued);
      if (picked.length > 0) this.claimed.add(sourceId);
      return picked;
    });
  }

  hold(sourceId: string): Promise<boolean> {
    if (this.claimed.has(sourceId)) return Promise.resolve(false);
    this.claimed.add(sourceId);
    return Promise.resolve(true);
  }

  release(sourceId: string): Promise<void> {
    this.claimed.delete(sourceId);
    return Promise.resolve();
  }

  fail(id: string, error: string): Promise<FailOutcome> {
    return settle(() =>
      this.options.raw.transaction((): FailOutcome => {
        const row = this.statements.get.get(id) as Row | undefined;
        if (!row) return { kind: 'gone' };
        const attempts = row.attempts + 1;
        const now = this.options.now();
        if (attempts >= this.policy.maxAttempts) {
          this.deadLetters.bury({ ...row, attempts, last_error: error }, now);
          return { kind: 'dead', attempts };
        }
        const notBefore = now + backoffMs(this.policy, attempts);
        this.statements.retryLater.run(attempts, notBefore, error, id);
        return { kind: 'retry', attempts, notBefore };
      })(),
    );
  }

  drop(ids: readonly string[]): Promise<void> {
    return settle(() => {
      for (const id of ids) this.options.writes.deleteInvocation(id);
    });
  }

  nextRetryAt(): Promise<number | null> {
    return nextRetryAt(this.options.db, this.options.now());
  }
}

function toQueued(row: Row): QueuedInvocation {
  return {
    id: row.id,
    sourceId: row.source_id,
    trigger: row.trigger,
    event: row.event,
    createdAt: row.created_at,
    attempts: row.attempts,
    notBefore: row.not_before,
    lastError: row.last_error,
  };
}
