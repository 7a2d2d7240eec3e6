import type { TimerSchedule } from '@tributary/runtime';
import type { Kysely } from 'kysely';
import type { WantedTimer } from '../redis/bullmq-timer-jobs.js';
import type { Database } from '../store/schema.js';
import { scheduledTick } from './scheduled-tick.js';
import type { DueTick, QueuedTicks } from './timer-scheduler.js';
import { MERGED, SKIPPED, type SlotOutcome, type TimerTargets } from './timer-targets.js';

export interface SourceTimerTargetsOptions {
  readonly db: Kysely<Database>;
  readonly now: () => number;
  /** The backend's transaction that queues ticks and moves fire times (as the store's scheduler's). */
  readonly queueTicks: (ticks: readonly DueTick[]) => Promise<QueuedTicks>;
  readonly onQueued: (sourceIds: readonly string[]) => void;
}

/**
 * Timer sources on job schedulers: `sources.timer` of the active ones, and a fired slot queued in
 * the transaction that moves the source's `next_fire_at` (the conditional update the store's
 * scheduler uses), so the tick joins the source's queue like any other work.
 */
export class SourceTimerTargets implements TimerTargets {
  constructor(private readonly options: SourceTimerTargetsOptions) {}

  async wanted(): Promise<WantedTimer[]> {
    const rows = await this.options.db
      .selectFrom('sources')
      .select(['id', 'timer'])
      .where('active', '=', 1)
      .where('timer', 'is not', null)
      .execute();
    return rows.map((row) => ({ id: row.id, schedule: JSON.parse(row.timer ?? '{}') as TimerSchedule }));
  }

  async fire(id: string, scheduledAt: number): Promise<SlotOutcome> {
    const source = await this.options.db
      .selectFrom('sources')
      .select(['id', 'active', 'timer', 'next_fire_at'])
      .where('id', '=', id)
      .executeTakeFirst();
    const tick = source ? scheduledTick(source, scheduledAt, this.options.now()) : null;
    if (!tick) return SKIPPED;
    const { queued, merged } = await this.options.queueTicks([tick]);
    if (queued.length > 0) {
      this.options.onQueued(queued);
      return { kind: 'queued', dueAt: Math.min(tick.firedAt, scheduledAt) };
    }
    return merged.length > 0 ? MERGED : SKIPPED;
  }
}
