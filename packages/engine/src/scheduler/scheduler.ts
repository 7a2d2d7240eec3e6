import { nextTimerFire, timerEvent, type TimerSchedule } from '@tributary/runtime';
import type { Kysely } from 'kysely';
import { newId } from '../ids.js';
import type { Database } from '../store/schema.js';
import type { SqliteWrites } from '../store/sqlite-writes.js';

export interface SchedulerOptions {
  readonly db: Kysely<Database>;
  readonly now: () => number;
  /** Called after due ticks were queued. */
  readonly onQueued: (sourceIds: readonly string[]) => void;
  readonly writes: SqliteWrites;
  /** Longest sleep between checks (a safety net; the next due time normally wakes it). */
  readonly maxSleepMs?: number;
}

/**
 * Fires timer sources. Each source's next fire time is stored with it, so schedules survive
 * restarts; a tick missed while the server was down fires once at start (the next time is then
 * computed from now), never once per missed tick. Queueing a tick and moving its next fire time
 * happen in one transaction.
 */
export class Scheduler {
  private handle: NodeJS.Timeout | undefined;
  private stopped = true;
  private ticking = false;

  constructor(private readonly options: SchedulerOptions) {}

  start(): void {
    this.stopped = false;
    void this.tick();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.handle);
  }

  /** Re-reads the schedules now (after a deploy, update or delete). */
  wake(): void {
    if (this.stopped) return;
    clearTimeout(this.handle);
    this.handle = setTimeout(() => void this.tick(), 0);
  }

  private async tick(): Promise<void> {
    if (this.stopped || this.ticking) return;
    this.ticking = true;
    try {
      const now = this.options.now();
      const due = await this.options.db
        .selectFrom('sources')
        .select(['id', 'timer', 'next_fire_at'])
        .where('active', '=', 1)
        .where('next_fire_at', 'is not', null)
        .where('next_fire_at', '<=', now)
        .limit(1000)
        .execute();
      if (due.length > 0) {
        const ticks = due.flatMap((source) => {
          if (!source.timer || source.next_fire_at === null) return [];
          const schedule = JSON.parse(source.timer) as TimerSchedule;
          return [
            {
              invocation: {
                id: newId('inv'),
                sourceId: source.id,
                event: JSON.stringify(timerEvent(schedule, source.next_fire_at)),
                createdAt: now,
              },
              nextFireAt: nextTimerFire(schedule, Math.max(now, source.next_fire_at)),
            },
          ];
        });
        this.options.writes.queueTicks(ticks);
        this.options.onQueued(ticks.map((tick) => tick.invocation.sourceId));
      }
      const upcoming = await this.options.db
        .selectFrom('sources')
        .select((eb) => eb.fn.min('next_fire_at').as('next'))
        .where('active', '=', 1)
        .where('next_fire_at', 'is not', null)
        .executeTakeFirst();
      const next = upcoming?.next === null || upcoming?.next === undefined ? null : Number(upcoming.next);
      const sleep = Math.min(
        this.options.maxSleepMs ?? 1000,
        next === null ? Number.POSITIVE_INFINITY : Math.max(0, next - this.options.now()),
      );
      if (!this.stopped) this.handle = setTimeout(() => void this.tick(), sleep);
    } finally {
      this.ticking = false;
    }
  }
}
