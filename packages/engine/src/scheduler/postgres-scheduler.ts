import type { Kysely } from 'kysely';
import { insertInvocations } from '../invocations/queue-queries.js';
import type { Database } from '../store/schema.js';
import { TimerScheduler, type DueTick, type QueuedTicks, type TimerSchedulerOptions } from './timer-scheduler.js';

export type PostgresSchedulerOptions = Omit<TimerSchedulerOptions, 'queueTicks'>;

/**
 * The scheduler on PostgreSQL, where several processes may each run one. A tick is queued in the
 * transaction that moves its source's fire time with a conditional update (`... where
 * next_fire_at = <the time it was read at>`): the update takes the row lock, and a second
 * scheduler's update of the same row waits for the first to commit, then re-checks its condition
 * against the new row (READ COMMITTED does so) and changes nothing, so it queues nothing. No lock
 * is held between checks and none outlives a transaction (advisory locks and `SKIP LOCKED` would
 * serialise the checks, not make the tick itself once-only). Sources are updated in id order, so
 * two checks of overlapping due sets cannot deadlock.
 */
export class PostgresScheduler extends TimerScheduler {
  constructor(options: PostgresSchedulerOptions) {
    super({ ...options, queueTicks: (ticks) => queueTicks(options.db, ticks) });
  }
}

/**
 * Queues ticks on PostgreSQL, each with the conditional move of its source's fire time; a tick
 * whose source still has a timer tick queued or running is merged into it (the row lock the
 * update took keeps a second scheduler from deciding otherwise at the same time).
 */
export function queueTicks(db: Kysely<Database>, ticks: readonly DueTick[]): Promise<QueuedTicks> {
  const ordered = [...ticks].sort((a, b) => (a.invocation.sourceId < b.invocation.sourceId ? -1 : 1));
  return db.transaction().execute(async (trx) => {
    const queued: string[] = [];
    const merged: string[] = [];
    for (const tick of ordered) {
      const moved = await trx
        .updateTable('sources')
        .set({ next_fire_at: tick.nextFireAt })
        .where('id', '=', tick.invocation.sourceId)
        .where('next_fire_at', '=', tick.firedAt)
        .executeTakeFirst();
      if (Number(moved.numUpdatedRows) === 0) continue;
      const previous = await trx
        .selectFrom('invocations')
        .select('id')
        .where('source_id', '=', tick.invocation.sourceId)
        .where('trigger', '=', 'timer')
        .limit(1)
        .executeTakeFirst();
      if (previous) {
        merged.push(tick.invocation.sourceId);
        continue;
      }
      await insertInvocations(trx, [{ ...tick.invocation, trigger: 'timer' }]);
      queued.push(tick.invocation.sourceId);
    }
    return { queued, merged };
  });
}
