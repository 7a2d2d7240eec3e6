import { AppError } from '@tributary/contracts';
import { sql, type Kysely, type RawBuilder, type Selectable } from 'kysely';
import type { InsertionOrder } from '../invocations/dead-letter-queries.js';
import type { Database } from '../store/schema.js';
import type { AttemptResult, DeliveryJobs, NewDelivery } from './delivery-jobs.js';
import { sealedAt } from '../secrets/sealed-places.js';
import type { SealedAt } from '../secrets/secret-box.js';
import type { DeliveryAttempt, DeliveryJob, DeliveryKind, DeliveryRecord, DeliveryStatus } from './delivery-types.js';

/** The `deliveries` table (migration 0005); JSON columns hold text, times are epoch ms. */
export interface DeliveryTables {
  deliveries: {
    id: string;
    kind: DeliveryKind;
    owner: string;
    run_id: string;
    step_name: string | null;
    subscription_id: string | null;
    target: string;
    config_sealed: string;
    config_shown: string;
    status: DeliveryStatus;
    attempts: number;
    max_attempts: number;
    last_error: string | null;
    next_attempt_at: number;
    claimed_until: number;
    log: string;
    created_at: number;
    updated_at: number;
    delivered_at: number | null;
  };
}

type Row = Selectable<DeliveryTables['deliveries']>;

/** Encrypts configurations at rest: a destination's credentials (an http `auth`) are secrets. */
export interface Sealer {
  seal(plain: string, at: SealedAt): string;
  open(sealed: string, at: SealedAt): string;
}

/**
 * Delivery jobs in the store's database, SQLite or PostgreSQL: the same Kysely queries, which
 * differ only in the column that keeps insertion order (`rowid`, or PostgreSQL's `seq`).
 */
export class SqlDeliveryJobs implements DeliveryJobs {
  private readonly db: Kysely<DeliveryTables>;
  private readonly box: Sealer;
  private readonly position: RawBuilder<number>;

  constructor(options: { readonly db: Kysely<Database>; readonly box: Sealer; readonly order?: InsertionOrder }) {
    // The engine's Database type belongs to the store; these tables are this module's own.
    this.db = options.db as unknown as Kysely<DeliveryTables>;
    this.box = options.box;
    this.position = sql.ref<number>(options.order ?? 'rowid');
  }

  async insert(jobs: readonly NewDelivery[]): Promise<void> {
    if (jobs.length === 0) return;
    await this.db
      .insertInto('deliveries')
      .values(
        jobs.map((job) => ({
          id: job.id,
          kind: job.kind,
          owner: job.owner,
          run_id: job.runId,
          step_name: job.stepName,
          subscription_id: job.subscriptionId,
          target: job.target,
          config_sealed: this.box.seal(JSON.stringify(job.config), sealedAt.deliveryConfig(job.id)),
          config_shown: JSON.stringify(job.shown),
          status: 'pending' as const,
          attempts: 0,
          max_attempts: job.maxAttempts,
          last_error: null,
          next_attempt_at: job.createdAt,
          claimed_until: 0,
          log: '[]',
          created_at: job.createdAt,
          updated_at: job.createdAt,
          delivered_at: null,
        })),
      )
      // A job queued again under the same id (a hand-off replayed after a restart) is kept once.
      .onConflict((conflict) => conflict.column('id').doNothing())
      .execute();
  }

  async claimDue(now: number, limit: number, leaseMs: number): Promise<DeliveryJob[]> {
    const due = await this.db
      .selectFrom('deliveries')
      .selectAll()
      .where((eb) =>
        eb.or([
          eb.and([eb('status', '=', 'pending'), eb('next_attempt_at', '<=', now)]),
          eb.and([eb('status', '=', 'delivering'), eb('claimed_until', '<=', now)]),
        ]),
      )
      .orderBy('next_attempt_at')
      .limit(limit)
      .execute();
    const claimed: DeliveryJob[] = [];
    for (const row of due) {
      // Conditional on what was read: another process that claimed it first wins.
      const result = await this.db
        .updateTable('deliveries')
        .set({ status: 'delivering', claimed_until: now + leaseMs, updated_at: now })
        .where('id', '=', row.id)
        .where('status', '=', row.status)
        .where('claimed_until', '=', row.claimed_until)
        .executeTakeFirst();
      if (result.numUpdatedRows === 1n) claimed.push(this.toJob(row, now + leaseMs));
    }
    return claimed;
  }

  async finish(job: DeliveryJob, result: AttemptResult, now: number): Promise<void> {
    const row = await this.db.selectFrom('deliveries').select(['log']).where('id', '=', job.id).executeTakeFirst();
    if (!row) return; // deleted meanwhile (its run or subscription went)
    const log = [...(JSON.parse(row.log) as DeliveryAttempt[]), result.attempt];
    await this.db
      .updateTable('deliveries')
      .set({
        status: result.status,
        attempts: result.attempt.attempt,
        last_error: result.lastError,
        next_attempt_at: result.nextAttemptAt ?? 0,
        claimed_until: 0,
        log: JSON.stringify(log),
        updated_at: now,
        delivered_at: result.status === 'delivered' ? now : null,
      })
      .where('id', '=', job.id)
      .where('status', '=', 'delivering')
      .where('claimed_until', '=', job.leaseUntil)
      .execute();
  }

  async nextDueAt(): Promise<number | null> {
    const row = await this.db
      .selectFrom('deliveries')
      .select((eb) => [
        eb.fn.min(sql<number>`case when status = 'pending' then next_attempt_at else claimed_until end`).as('due'),
      ])
      .where('status', 'in', ['pending', 'delivering'])
      .executeTakeFirst();
    return row?.due ?? null;
  }

  async get(id: string): Promise<DeliveryRecord | undefined> {
    const row = await this.db.selectFrom('deliveries').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toRecord(row) : undefined;
  }

  async listByRun(runId: string): Promise<DeliveryRecord[]> {
    const rows = await this.db
      .selectFrom('deliveries')
      .selectAll()
      .where('run_id', '=', runId)
      .orderBy(this.position)
      .execute();
    return rows.map(toRecord);
  }

  async listBySubscription(
    subscriptionId: string,
    page: { readonly limit: number; readonly before?: string },
  ): Promise<{ data: DeliveryRecord[]; total: number }> {
    let query = this.db.selectFrom('deliveries').selectAll().where('subscription_id', '=', subscriptionId);
    if (page.before !== undefined) {
      const cursor = await this.db
        .selectFrom('deliveries')
        .select(this.position.as('position'))
        .where('id', '=', page.before)
        .where('subscription_id', '=', subscriptionId)
        .executeTakeFirst();
      if (!cursor) throw new AppError('NOT_FOUND', `query.before: no delivery "${page.before}" of this subscription`);
      query = query.where(this.position, '<', cursor.position);
    }
    const rows = await query.orderBy(this.position, 'desc').limit(page.limit).execute();
    const count = await this.db
      .selectFrom('deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('subscription_id', '=', subscriptionId)
      .executeTakeFirstOrThrow();
    return { data: rows.map(toRecord), total: Number(count.n) };
  }

  async recentByTarget(kind: DeliveryKind, target: string, limit: number): Promise<DeliveryRecord[]> {
    const rows = await this.db
      .selectFrom('deliveries')
      .selectAll()
      .where('kind', '=', kind)
      .where('target', '=', target)
      .orderBy(this.position, 'desc')
      .limit(limit)
      .execute();
    return rows.reverse().map(toRecord);
  }

  private toJob(row: Row, leaseUntil: number): DeliveryJob {
    return {
      id: row.id,
      kind: row.kind,
      owner: row.owner,
      runId: row.run_id,
      stepName: row.step_name,
      subscriptionId: row.subscription_id,
      target: row.target,
      config: JSON.parse(this.box.open(row.config_sealed, sealedAt.deliveryConfig(row.id))) as Record<string, unknown>,
      attempts: row.attempts,
      maxAttempts: row.max_attempts,
      leaseUntil,
    };
  }
}

function toRecord(row: Row): DeliveryRecord {
  return {
    id: row.id,
    kind: row.kind,
    run_id: row.run_id,
    step_name: row.step_name,
    subscription_id: row.subscription_id,
    target: row.target,
    config: JSON.parse(row.config_shown) as Record<string, unknown>,
    status: row.status,
    attempts: row.attempts,
    max_attempts: row.max_attempts,
    last_error: row.last_error,
    next_attempt_at: row.status === 'pending' ? row.next_attempt_at : null,
    created_at: row.created_at,
    delivered_at: row.delivered_at,
    log: JSON.parse(row.log) as DeliveryAttempt[],
  };
}
