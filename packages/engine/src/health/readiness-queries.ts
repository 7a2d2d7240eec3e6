import { sql, type Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import type { WorkflowTables } from '../workflows/workflow-tables.js';

/** Answers once the database runs a query, or rejects (unreachable, refused, or slower than `timeoutMs`). */
export async function pingDatabase(db: Kysely<Database>, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([sql`SELECT 1`.execute(db), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * When the oldest invocation that may run now became due (its creation, or the end of its
 * backoff), or null when none may run. Entries still backing off are not waiting on the runner;
 * neither are those of the queue keys in `except` (running now: their own backlog waits on them).
 */
export async function oldestDueSince(
  db: Kysely<Database>,
  now: number,
  except: readonly string[] = [],
): Promise<number | null> {
  let query = db
    .selectFrom('invocations')
    .select((eb) =>
      eb.fn.min(sql<number>`CASE WHEN not_before > created_at THEN not_before ELSE created_at END`).as('since'),
    )
    .where('not_before', '<=', now);
  if (except.length > 0) query = query.where('source_id', 'not in', [...except]);
  const row = await query.executeTakeFirst();
  return row?.since === null || row?.since === undefined ? null : Number(row.since);
}

/**
 * The earliest fire time of an active timer source or timer workflow, or null when none has one.
 * Both schedulers (the store's and BullMQ's job schedulers) move these times as they queue ticks,
 * so one overdue means no scheduler is keeping up with it.
 */
export async function earliestFireAt(db: Kysely<Database>): Promise<number | null> {
  const tables = db.withTables<WorkflowTables>();
  const row = await tables
    .selectNoFrom((eb) => [
      eb
        .selectFrom('sources')
        .select((inner) => inner.fn.min('next_fire_at').as('next'))
        .where('active', '=', 1)
        .where('next_fire_at', 'is not', null)
        .as('source'),
      eb
        .selectFrom('workflows')
        .select((inner) => inner.fn.min('next_fire_at').as('next'))
        .where('active', '=', 1)
        .where('trigger_type', '=', 'timer')
        .where('next_fire_at', 'is not', null)
        .as('workflow'),
    ])
    .executeTakeFirst();
  const times = [row?.source, row?.workflow].filter((time) => time !== null && time !== undefined).map(Number);
  return times.length === 0 ? null : Math.min(...times);
}
