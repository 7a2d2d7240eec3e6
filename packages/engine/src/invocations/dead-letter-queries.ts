import { AppError } from '@tributary/contracts';
import { sql, type Kysely, type Selectable } from 'kysely';
import type { DeadLetter, DeadLetterQuery } from '../ports/dead-letter-list.js';
import type { Database } from '../store/schema.js';

/**
 * The dead-letter list's reads and deletes as Kysely queries both dialects run. They differ only
 * in the column that keeps insertion order: SQLite's `rowid`, PostgreSQL's `seq` (migrations.ts).
 */
export type InsertionOrder = 'rowid' | 'seq';

/** Newest failure first; `before` is a dead letter's id (unknown: `NOT_FOUND`). */
export async function listDeadLetters(
  db: Kysely<Database>,
  order: InsertionOrder,
  query: DeadLetterQuery,
): Promise<{ data: DeadLetter[]; total: number }> {
  const position = sql.ref<number>(order);
  let count = db.selectFrom('dead_letters').select((eb) => eb.fn.countAll<number>().as('n'));
  let page = db.selectFrom('dead_letters').selectAll();
  if (query.sourceId !== undefined) {
    count = count.where('source_id', '=', query.sourceId);
    page = page.where('source_id', '=', query.sourceId);
  }
  if (query.before !== undefined) {
    const cursor = await db
      .selectFrom('dead_letters')
      .select(position.as('position'))
      .where('id', '=', query.before)
      .executeTakeFirst();
    if (!cursor)
      throw new AppError('NOT_FOUND', `query.before: no dead letter "${query.before}"`, { field: 'query.before' });
    page = page.where(position, '<', cursor.position);
  }
  const total = await count.executeTakeFirst();
  const rows = await page.orderBy(position, 'desc').limit(query.limit).execute();
  return { data: rows.map(toDeadLetter), total: Number(total?.n ?? 0) };
}

export async function getDeadLetter(db: Kysely<Database>, id: string): Promise<DeadLetter | null> {
  const row = await db.selectFrom('dead_letters').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toDeadLetter(row) : null;
}

export async function deleteDeadLetter(db: Kysely<Database>, id: string): Promise<boolean> {
  const result = await db.deleteFrom('dead_letters').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

function toDeadLetter(row: Selectable<Database['dead_letters']>): DeadLetter {
  return {
    id: row.id,
    sourceId: row.source_id,
    trigger: row.trigger,
    event: JSON.parse(row.event) as unknown,
    attempts: row.attempts,
    lastError: row.last_error,
    createdAt: row.created_at,
    failedAt: row.failed_at,
  };
}
