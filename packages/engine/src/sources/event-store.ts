import type { Kysely, Transaction } from 'kysely';
import type { EmittedEvent, LogEntry } from '@tributary/runtime';
import type { EventRecord, LogRecord } from '../pubsub/pubsub.js';
import type { Database } from '../store/schema.js';

/** The event bin and the log keep this many entries per source (contract §10). */
export const EVENT_BIN_SIZE = 100;
export const LOG_SIZE = 100;

/**
 * Time-ordered event ids `<indexed_at_ms>-<n>` (contract §4.2): n counts events indexed in the
 * same millisecond, so ids sort in commit order.
 */
export class EventIds {
  private lastMs = 0;
  private n = 0;

  next(now: number): { id: string; ms: number } {
    const ms = Math.max(now, this.lastMs);
    this.n = ms === this.lastMs ? this.n + 1 : 0;
    this.lastMs = ms;
    return { id: `${ms}-${this.n}`, ms };
  }
}

/** Appends committed events of one source inside a transaction, trimming the bin to its size. */
export async function appendEvents(
  trx: Transaction<Database> | Kysely<Database>,
  input: { sourceId: string; emits: readonly EmittedEvent[]; ids: EventIds; now: number },
): Promise<EventRecord[]> {
  const records: EventRecord[] = [];
  for (const emit of input.emits) {
    const { id, ms } = input.ids.next(input.now);
    const metadata = {
      emitter_id: input.sourceId,
      emit_id: id,
      name: emit.metadata.name,
      ...(emit.metadata.id !== undefined ? { id: emit.metadata.id } : {}),
      summary: emit.metadata.summary,
      ts: emit.metadata.ts,
    };
    records.push({ id, indexed_at_ms: ms, event: emit.event, metadata });
  }
  if (records.length === 0) return records;
  await trx
    .insertInto('events')
    .values(records.map((record) => ({ source_id: input.sourceId, id: record.id, indexed_at_ms: record.indexed_at_ms, event: JSON.stringify(record.event), metadata: JSON.stringify(record.metadata) })))
    .execute();
  await trim(trx, 'events', input.sourceId, EVENT_BIN_SIZE);
  return records;
}

export async function appendLogs(
  trx: Transaction<Database> | Kysely<Database>,
  input: { sourceId: string; invocationId: string | null; logs: readonly LogEntry[] },
): Promise<LogRecord[]> {
  if (input.logs.length === 0) return [];
  const kept = input.logs.slice(-LOG_SIZE);
  const inserted = await trx
    .insertInto('logs')
    .values(kept.map((entry) => ({ source_id: input.sourceId, invocation_id: input.invocationId, ts: entry.ts, level: entry.level, message: entry.message })))
    .returning(['seq'])
    .execute();
  await trim(trx, 'logs', input.sourceId, LOG_SIZE);
  return kept.map((entry, index) => ({
    id: String(inserted[index]?.seq ?? ''),
    ts: entry.ts,
    level: entry.level,
    message: entry.message,
    invocation_id: input.invocationId,
  }));
}

async function trim(trx: Transaction<Database> | Kysely<Database>, table: 'events' | 'logs', sourceId: string, keep: number): Promise<void> {
  const boundary = await trx
    .selectFrom(table)
    .select('seq')
    .where('source_id', '=', sourceId)
    .orderBy('seq', 'desc')
    .offset(keep)
    .limit(1)
    .executeTakeFirst();
  if (boundary) await trx.deleteFrom(table).where('source_id', '=', sourceId).where('seq', '<=', boundary.seq).execute();
}
