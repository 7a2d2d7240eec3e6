import { errorMessage } from '@tributary/contracts';
import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import {
  backoffMs,
  DEFAULT_RETRY_POLICY,
  type FailOutcome,
  type InvocationQueue,
  type NewInvocation,
  type QueuedInvocation,
  type RetryPolicy,
} from '../ports/invocation-queue.js';
import type { PostgresTables } from '../store/postgres-schema.js';
import type { Database } from '../store/schema.js';
import { PostgresDeadLetters } from './postgres-dead-letters.js';
import { bury, dropInvocations, insertInvocations, nextRetryAt, retryLater } from './queue-queries.js';

export interface PostgresInvocationQueueOptions {
  readonly db: Kysely<Database>;
  readonly now: () => number;
  readonly retry?: Partial<RetryPolicy>;
  /**
   * How long a source's claim outlives its claimer's last renewal (default 15 s). Renewed every
   * third of it while held, so only a claimer that died (or lost the database that long) loses it.
   */
  readonly claimLeaseMs?: number;
  /** Where a failed renewal is reported. */
  readonly log?: (message: string) => void;
}

/**
 * Short, so the work of a killed process runs elsewhere within seconds, yet three renewals long:
 * a live claimer loses its claim only when it cannot reach the database for that long
 * (docs/decisions/0016-short-claim-lease.md).
 */
const DEFAULT_LEASE_MS = 15_000;

/**
 * The invocation queue in PostgreSQL's `invocations` table, shared by every process on the
 * database. A source's claim is a row of `queue_claims` with an owner and a lease, taken by one
 * conditional upsert (`insert ... on conflict do update ... where expires_at <= now`): of two
 * claimers, in one process or two, exactly one gets the row, and a claimer that dies stops
 * renewing, so its claim lapses and its entries run again (at least once). A row with a lease was
 * chosen over advisory locks, which belong to one connection (a pool hands out others) and over
 * row locks held for the length of an invocation (a transaction open for seconds).
 *
 * Enqueues in the same turn of the event loop go in one insert, in call order; the next group
 * waits for the one before, so a source's entries keep the order their enqueue calls came in.
 */
export class PostgresInvocationQueue implements InvocationQueue {
  readonly deadLetters: PostgresDeadLetters;
  private readonly pg;
  private readonly policy: RetryPolicy;
  private readonly leaseMs: number;
  /** This instance's name in `queue_claims`. */
  private readonly owner = randomUUID();
  private readonly held = new Set<string>();
  private renewTimer: NodeJS.Timeout | undefined;
  private toQueue: {
    readonly items: readonly NewInvocation[];
    readonly resolve: () => void;
    readonly reject: (error: unknown) => void;
  }[] = [];
  private flushed: Promise<void> = Promise.resolve();

  constructor(private readonly options: PostgresInvocationQueueOptions) {
    this.pg = options.db.withTables<PostgresTables>();
    this.policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.leaseMs = options.claimLeaseMs ?? DEFAULT_LEASE_MS;
    this.deadLetters = new PostgresDeadLetters({ db: options.db, now: options.now });
  }

  enqueue(items: readonly NewInvocation[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.toQueue.push({ items, resolve, reject });
      if (this.toQueue.length === 1) setImmediate(() => (this.flushed = this.flushed.then(() => this.flush())));
    });
  }

  private async flush(): Promise<void> {
    const group = this.toQueue;
    this.toQueue = [];
    try {
      await insertInvocations(
        this.options.db,
        group.flatMap((entry) => entry.items),
      );
    } catch (error) {
      for (const entry of group) entry.reject(error);
      return;
    }
    for (const entry of group) entry.resolve();
  }

  async sourcesWithWork(): Promise<string[]> {
    const rows = await this.pg
      .selectFrom('invocations')
      .select('source_id')
      .where('status', '=', 'queued')
      .groupBy('source_id')
      .orderBy((eb) => eb.fn.min('seq'))
      .execute();
    return rows.map((row) => row.source_id);
  }

  async claim(sourceId: string, limit: number): Promise<QueuedInvocation[]> {
    if (!(await this.takeClaim(sourceId))) return [];
    let picked: QueuedInvocation[];
    try {
      const now = this.options.now();
      const rows = await this.pg
        .selectFrom('invocations')
        .selectAll()
        .where('source_id', '=', sourceId)
        .where('status', '=', 'queued')
        .orderBy('created_at')
        .orderBy('seq')
        .limit(limit)
        .execute();
      // An entry backing off holds back the rest of its source: per-source order is kept.
      const due = rows.findIndex((row) => row.not_before > now);
      picked = (due === -1 ? rows : rows.slice(0, due)).map(toQueued);
    } catch (error) {
      await this.release(sourceId).catch(() => undefined);
      throw error;
    }
    if (picked.length === 0) await this.release(sourceId);
    return picked;
  }

  hold(sourceId: string): Promise<boolean> {
    return this.takeClaim(sourceId);
  }

  /** Takes the source's claim if nobody holds it or the holder's lease ran out. */
  private async takeClaim(sourceId: string): Promise<boolean> {
    if (this.held.has(sourceId)) return false;
    const now = this.options.now();
    const won = await this.pg
      .insertInto('queue_claims')
      .values({ source_id: sourceId, owner: this.owner, expires_at: now + this.leaseMs })
      .onConflict((conflict) =>
        conflict
          .column('source_id')
          .doUpdateSet((eb) => ({ owner: eb.ref('excluded.owner'), expires_at: eb.ref('excluded.expires_at') }))
          .where('queue_claims.expires_at', '<=', now),
      )
      .returning('owner')
      .executeTakeFirst();
    if (!won) return false;
    this.held.add(sourceId);
    this.armRenewal();
    return true;
  }

  async release(sourceId: string): Promise<void> {
    if (!this.held.delete(sourceId)) return;
    if (this.held.size === 0) this.disarmRenewal();
    await this.pg
      .deleteFrom('queue_claims')
      .where('source_id', '=', sourceId)
      .where('owner', '=', this.owner)
      .execute();
  }

  private armRenewal(): void {
    if (this.renewTimer) return;
    this.renewTimer = setInterval(() => void this.renew(), Math.max(10, Math.floor(this.leaseMs / 3)));
    this.renewTimer.unref();
  }

  private disarmRenewal(): void {
    clearInterval(this.renewTimer);
    this.renewTimer = undefined;
  }

  /** Extends the leases this instance holds; a claim that lapsed meanwhile is forgotten. */
  private async renew(): Promise<void> {
    const sourceIds = [...this.held];
    if (sourceIds.length === 0) return;
    try {
      const renewed = await this.pg
        .updateTable('queue_claims')
        .set({ expires_at: this.options.now() + this.leaseMs })
        .where('owner', '=', this.owner)
        .where('source_id', 'in', sourceIds)
        .returning('source_id')
        .execute();
      const still = new Set(renewed.map((row) => row.source_id));
      for (const sourceId of sourceIds) {
        if (still.has(sourceId)) continue;
        this.held.delete(sourceId);
        this.options.log?.(`the claim on ${sourceId} lapsed before it was renewed; another process may run it`);
      }
    } catch (error) {
      this.options.log?.(`renewing queue claims failed: ${errorMessage(error)}`);
    }
  }

  fail(id: string, error: string): Promise<FailOutcome> {
    return this.options.db.transaction().execute(async (trx): Promise<FailOutcome> => {
      const row = await trx.selectFrom('invocations').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
      if (!row) return { kind: 'gone' };
      const attempts = row.attempts + 1;
      const now = this.options.now();
      if (attempts >= this.policy.maxAttempts) {
        await bury(trx, { ...row, attempts, last_error: error }, now);
        return { kind: 'dead', attempts };
      }
      const notBefore = now + backoffMs(this.policy, attempts);
      await retryLater(trx, id, { attempts, notBefore, error });
      return { kind: 'retry', attempts, notBefore };
    });
  }

  drop(ids: readonly string[]): Promise<void> {
    return dropInvocations(this.options.db, ids);
  }

  nextRetryAt(): Promise<number | null> {
    return nextRetryAt(this.options.db, this.options.now());
  }

  /** Stops renewing and gives back every claim this instance holds (before its pool closes). */
  async close(): Promise<void> {
    this.disarmRenewal();
    await this.flushed;
    const sourceIds = [...this.held];
    this.held.clear();
    if (sourceIds.length === 0) return;
    await this.pg
      .deleteFrom('queue_claims')
      .where('owner', '=', this.owner)
      .where('source_id', 'in', sourceIds)
      .execute();
  }
}

function toQueued(row: Selectable<Database['invocations']>): QueuedInvocation {
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
