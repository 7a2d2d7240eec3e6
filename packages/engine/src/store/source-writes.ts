import type { DedupeState, Json } from '@tributary/runtime';
import type { Kysely } from 'kysely';
import type { SourceCommit, SourceState, StoredSource } from '../ports/store.js';
import type { Database } from './schema.js';
import { sourceGone } from './source-gone.js';

/**
 * The store's reads and writes of sources and their results as Kysely queries any dialect runs,
 * each inside the caller's transaction where it is part of one. PostgreSQL uses them as they are;
 * SQLite runs the same statements prepared and synchronous on its hot path (sqlite-writes.ts).
 */

export async function getSource(db: Kysely<Database>, id: string): Promise<StoredSource | undefined> {
  return db.selectFrom('sources').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The active source behind an HTTP endpoint id. */
export async function findEndpoint(
  db: Kysely<Database>,
  endpointId: string,
): Promise<{ id: string; customResponse: boolean } | null> {
  const row = await db
    .selectFrom('sources')
    .select(['id', 'custom_response'])
    .where('endpoint_id', '=', endpointId)
    .where('active', '=', 1)
    .executeTakeFirst();
  return row ? { id: row.id, customResponse: row.custom_response === 1 } : null;
}

/** A source's db and dedupe state (empty when it has none yet). */
export async function readState(db: Kysely<Database>, sourceId: string): Promise<SourceState> {
  const row = await db
    .selectFrom('source_state')
    .select(['db', 'dedupe'])
    .where('source_id', '=', sourceId)
    .executeTakeFirst();
  return row
    ? {
        db: JSON.parse(row.db) as Record<string, Json>,
        dedupe: row.dedupe ? (JSON.parse(row.dedupe) as DedupeState) : null,
      }
    : { db: {}, dedupe: null };
}

/**
 * Removes the listed queue entries; throws (rolling the caller's transaction back) when one is no
 * longer queued: another worker committed it, and its results must not be stored twice.
 */
export async function dequeue(trx: Kysely<Database>, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const result = await trx.deleteFrom('invocations').where('id', 'in', ids).executeTakeFirst();
  if (Number(result.numDeletedRows) !== new Set(ids).size)
    throw new Error(`invocations ${ids.join(', ')} are no longer all queued`);
}

/** Appends events and logs, trims both to their size, replaces the state; returns the log ids in order. */
export async function writeCommit(
  trx: Kysely<Database>,
  commit: SourceCommit,
  sizes: { readonly eventBinSize: number; readonly logSize: number },
): Promise<number[]> {
  const sourceId = commit.sourceId;
  if (commit.events.length > 0) {
    await trx
      .insertInto('events')
      .values(
        // Only the bin's worth can survive the trim below: a run of 100,000 emits writes 100 rows
        // (and stays under PostgreSQL's 65,535 parameters per statement).
        commit.events.slice(-sizes.eventBinSize).map((event) => ({
          source_id: sourceId,
          id: event.id,
          indexed_at_ms: event.indexedAtMs,
          event: event.event,
          metadata: event.metadata,
        })),
      )
      .execute();
    await trim(trx, 'events', sourceId, sizes.eventBinSize);
  }
  let logIds: number[] = [];
  if (commit.logs.length > 0) {
    const rows = await trx
      .insertInto('logs')
      .values(
        commit.logs.map((log) => ({
          source_id: sourceId,
          invocation_id: log.invocationId,
          ts: log.ts,
          level: log.level,
          message: log.message,
        })),
      )
      .returning('seq')
      .execute();
    // One statement's keys are taken in the order of its rows; sorted, in case a dialect returns
    // them otherwise.
    logIds = rows.map((row) => row.seq).sort((a, b) => a - b);
    await trim(trx, 'logs', sourceId, sizes.logSize);
  }
  await trx
    .insertInto('source_state')
    .values({ source_id: sourceId, db: commit.db, dedupe: commit.dedupe })
    .onConflict((conflict) =>
      conflict
        .column('source_id')
        .doUpdateSet((eb) => ({ db: eb.ref('excluded.db'), dedupe: eb.ref('excluded.dedupe') })),
    )
    .execute();
  return logIds;
}

/** Keeps a source's newest `size` rows of the event bin or the log. */
async function trim(trx: Kysely<Database>, table: 'events' | 'logs', sourceId: string, size: number): Promise<void> {
  await trx
    .deleteFrom(table)
    .where('source_id', '=', sourceId)
    .where('seq', '<=', (eb) =>
      eb.selectFrom(table).select('seq').where('source_id', '=', sourceId).orderBy('seq', 'desc').limit(1).offset(size),
    )
    .execute();
}

export async function insertSourceRow(trx: Kysely<Database>, row: StoredSource): Promise<void> {
  await trx.insertInto('sources').values(row).execute();
}

/** Refused (`NOT_FOUND`) when the source is gone: an update must not write for a deleted source. */
export async function updateSourceRow(trx: Kysely<Database>, row: StoredSource): Promise<void> {
  const { id, ...rest } = row;
  const result = await trx.updateTable('sources').set(rest).where('id', '=', id).executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) throw sourceGone(id);
}

/**
 * Removes a source with its events, logs, queued invocations, state and dead letters. The source's
 * row goes first: on PostgreSQL that waits for a commit of the source in progress (which holds the
 * row), so the rows below are read after it and nothing it wrote stays behind.
 */
export async function deleteSourceRows(trx: Kysely<Database>, sourceId: string): Promise<void> {
  await trx.deleteFrom('sources').where('id', '=', sourceId).execute();
  for (const table of ['events', 'logs', 'invocations', 'source_state', 'dead_letters'] as const)
    await trx.deleteFrom(table).where('source_id', '=', sourceId).execute();
}
