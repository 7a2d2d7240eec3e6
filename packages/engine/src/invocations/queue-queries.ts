import type { Insertable, Kysely } from 'kysely';
import type { NewInvocation, Trigger } from '../ports/invocation-queue.js';
import type { Database } from '../store/schema.js';

/** The queue's Kysely queries any dialect runs (SQLite keeps prepared statements on its hot path). */

/** A queue row as it is stored, attempts from zero. */
export function invocationRow(item: NewInvocation): Insertable<Database['invocations']> {
  return {
    id: item.id,
    source_id: item.sourceId,
    trigger: item.trigger,
    event: item.event,
    status: 'queued',
    attempts: 0,
    created_at: item.createdAt,
    started_at: null,
    not_before: 0,
    last_error: null,
  };
}

export async function insertInvocations(db: Kysely<Database>, items: readonly NewInvocation[]): Promise<void> {
  if (items.length === 0) return;
  await db.insertInto('invocations').values(items.map(invocationRow)).execute();
}

/** When the first entry backing off becomes due, or null. */
export async function nextRetryAt(db: Kysely<Database>, now: number): Promise<number | null> {
  const row = await db
    .selectFrom('invocations')
    .select((eb) => eb.fn.min('not_before').as('next'))
    .where('status', '=', 'queued')
    .where('not_before', '>', now)
    .executeTakeFirst();
  return row?.next === null || row?.next === undefined ? null : Number(row.next);
}

export async function retryLater(
  db: Kysely<Database>,
  id: string,
  change: { readonly attempts: number; readonly notBefore: number; readonly error: string },
): Promise<void> {
  await db
    .updateTable('invocations')
    .set({ attempts: change.attempts, not_before: change.notBefore, last_error: change.error })
    .where('id', '=', id)
    .execute();
}

/** Moves a queue row to the dead letters (inside the caller's transaction). */
export async function bury(
  trx: Kysely<Database>,
  row: {
    readonly id: string;
    readonly source_id: string;
    readonly trigger: Trigger;
    readonly event: string;
    readonly attempts: number;
    readonly last_error: string;
    readonly created_at: number;
  },
  failedAt: number,
): Promise<void> {
  await trx.deleteFrom('invocations').where('id', '=', row.id).execute();
  await trx
    .insertInto('dead_letters')
    .values({
      id: row.id,
      source_id: row.source_id,
      trigger: row.trigger,
      event: row.event,
      attempts: row.attempts,
      last_error: row.last_error,
      created_at: row.created_at,
      failed_at: failedAt,
    })
    .execute();
}

export async function dropInvocations(db: Kysely<Database>, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.deleteFrom('invocations').where('id', 'in', ids).execute();
}
