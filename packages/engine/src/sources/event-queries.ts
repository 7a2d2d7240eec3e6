import { AppError } from '@tributary/contracts';
import type { Kysely } from 'kysely';
import type { EventRecord, LogRecord } from '../pubsub/pubsub.js';
import type { Page, PageQuery } from '../ports/store.js';
import type { Database } from '../store/schema.js';

export type { Page, PageQuery } from '../ports/store.js';

/** Event summaries of one source, newest first (contract §9.2). */
export async function listEvents(db: Kysely<Database>, sourceId: string, page: PageQuery): Promise<Page<EventRecord>> {
  let query = db.selectFrom('events').selectAll().where('source_id', '=', sourceId);
  const before = page.before ? await knownSeqOf(db, sourceId, page.before, 'before') : null;
  const after = page.after ? await knownSeqOf(db, sourceId, page.after, 'after') : null;
  if (before !== null) query = query.where('seq', '<', before);
  if (after !== null) query = query.where('seq', '>', after);
  // With only `after`, the page is the one right after the cursor (not the newest), still newest first.
  const forward = after !== null && before === null;
  const rows = await query
    .orderBy('seq', forward ? 'asc' : 'desc')
    .limit(page.limit)
    .execute();
  if (forward) rows.reverse();
  const total = await countOf(db, 'events', sourceId);
  return {
    data: rows.map((row) => ({
      id: row.id,
      indexed_at_ms: row.indexed_at_ms,
      event: JSON.parse(row.event) as unknown,
      metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    })),
    total,
  };
}

/** Events committed after `lastEventId`, oldest first: what an SSE client that reconnects missed. */
export async function eventsAfter(
  db: Kysely<Database>,
  sourceId: string,
  lastEventId: string | null,
): Promise<EventRecord[]> {
  let query = db.selectFrom('events').selectAll().where('source_id', '=', sourceId);
  if (lastEventId) {
    const seq = await seqOf(db, 'events', sourceId, lastEventId);
    if (seq !== null) query = query.where('seq', '>', seq);
  }
  const rows = await query.orderBy('seq', 'asc').execute();
  return rows.map((row) => ({
    id: row.id,
    indexed_at_ms: row.indexed_at_ms,
    event: JSON.parse(row.event) as unknown,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
  }));
}

export async function deleteEvents(
  db: Kysely<Database>,
  sourceId: string,
  range: { readonly startId?: string; readonly endId?: string },
): Promise<number> {
  let query = db.deleteFrom('events').where('source_id', '=', sourceId);
  const start = range.startId ? await knownSeqOf(db, sourceId, range.startId, 'start_id') : null;
  const end = range.endId ? await knownSeqOf(db, sourceId, range.endId, 'end_id') : null;
  if (start !== null) query = query.where('seq', '>=', start);
  if (end !== null) query = query.where('seq', '<=', end);
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Log entries of one source, newest first. */
export async function listLogs(db: Kysely<Database>, sourceId: string, page: PageQuery): Promise<Page<LogRecord>> {
  for (const [field, cursor] of [
    ['before', page.before],
    ['after', page.after],
  ] as const) {
    if (cursor !== undefined && !/^\d{1,15}$/.test(cursor)) {
      throw new AppError(
        'VALIDATION_FAILED',
        `query.${field}: a log cursor is a log entry id (digits), got "${cursor}"`,
        { field: `query.${field}` },
      );
    }
  }
  let query = db.selectFrom('logs').selectAll().where('source_id', '=', sourceId);
  if (page.before) query = query.where('seq', '<', Number(page.before));
  if (page.after) query = query.where('seq', '>', Number(page.after));
  const forward = page.after !== undefined && page.before === undefined;
  const rows = await query
    .orderBy('seq', forward ? 'asc' : 'desc')
    .limit(page.limit)
    .execute();
  if (forward) rows.reverse();
  return {
    data: rows.map((row) => ({
      id: String(row.seq),
      ts: row.ts,
      level: row.level,
      message: row.message,
      invocation_id: row.invocation_id,
    })),
    total: await countOf(db, 'logs', sourceId),
  };
}

export async function logsAfter(db: Kysely<Database>, sourceId: string, lastId: string | null): Promise<LogRecord[]> {
  let query = db.selectFrom('logs').selectAll().where('source_id', '=', sourceId);
  if (lastId && /^\d+$/.test(lastId)) query = query.where('seq', '>', Number(lastId));
  const rows = await query.orderBy('seq', 'asc').execute();
  return rows.map((row) => ({
    id: String(row.seq),
    ts: row.ts,
    level: row.level,
    message: row.message,
    invocation_id: row.invocation_id,
  }));
}

/**
 * The position of an event named by a cursor or a range bound. An id that is not in the bin is an
 * error: ignoring it would silently widen the page or the deletion (a typo deleting every event).
 */
async function knownSeqOf(db: Kysely<Database>, sourceId: string, id: string, field: string): Promise<number> {
  const seq = await seqOf(db, 'events', sourceId, id);
  if (seq === null)
    throw new AppError('NOT_FOUND', `${field}: no event "${id}" in the event bin of ${sourceId}`, { field });
  return seq;
}

async function seqOf(db: Kysely<Database>, table: 'events', sourceId: string, id: string): Promise<number | null> {
  const row = await db
    .selectFrom(table)
    .select('seq')
    .where('source_id', '=', sourceId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? row.seq : null;
}

async function countOf(db: Kysely<Database>, table: 'events' | 'logs', sourceId: string): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('source_id', '=', sourceId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
