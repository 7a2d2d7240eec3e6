import { errorMessage } from '@tributary/contracts';
import { nextTimerFire, timerEvent, type TimerSchedule } from '@tributary/runtime';
import type { Kysely } from 'kysely';
import { newId } from '../ids.js';
import type { Scheduler } from '../ports/scheduler.js';
import type { Database } from '../store/schema.js';
import { TickMerges, type QueuedTicks } from './tick-merges.js';

export type { QueuedTicks } from './tick-merges.js';

/** One due tick: its invocation, and the move of its source's fire time that must go with it. */
export interface DueTick {
  readonly invocation: {
    readonly id: string;
    readonly sourceId: string;
    readonly event: string;
    readonly createdAt: number;
  };
  /** The fire time it was read at: the tick is queued only if the source still has it. */
  readonly firedAt: number;
  readonly nextFireAt: number;
}

export interface TimerSchedulerOptions {
  readonly db: Kysely<Database>;
  readonly now: () => number;
  /** Called after due ticks were queued. */
  readonly onQueued: (sourceIds: readonly string[]) => void;
  /**
   * Queues the ticks and moves each source's fire time from `firedAt` to `nextFireAt`, in one
   * transaction; a source whose fire time is no longer `firedAt` (another check queued it) is
   * skipped, and one whose previous timer tick is still queued or running is merged (its fire time
   * moves, nothing is queued). The backend's part of the scheduler.
   */
  readonly queueTicks: (ticks: readonly DueTick[]) => Promise<QueuedTicks>;
  /** Where a failed check is reported (it is retried at the next one). */
  readonly log: (message: string) => void;
  /** Longest sleep between checks (a safety net; the next due time normally wakes it). */
  readonly maxSleepMs?: number;
  /** How late each queued tick was (now minus its due time): the timer drift metric. */
  readonly onTickLate?: (lateMs: number) => void;
}

/** The longest wait before checking again after a failed check. */
const RETRY_AFTER_FAILURE_MS = 1000;

/**
 * The scheduler's loop over the `sources` table, for any backend that can queue ticks
 * (`queueTicks`). Each source's next fire time is stored with it (`sources.next_fire_at`), so
 * schedules survive restarts; a tick missed while the server was down fires once at start (the
 * next time is then computed from now), never once per missed tick.
 */
export class TimerScheduler implements Scheduler {
  private handle: NodeJS.Timeout | undefined;
  private stopped = true;
  private ticking: Promise<unknown> | null = null;
  private readonly merges: TickMerges;

  constructor(private readonly options: TimerSchedulerOptions) {
    this.merges = new TickMerges(options.log);
  }

  start(): void {
    this.stopped = false;
    this.arm(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.handle);
    await this.ticking;
  }

  /** Re-reads the schedules now (after a deploy, update or delete). */
  wake(): void {
    if (this.stopped) return;
    this.arm(0);
  }

  private arm(ms: number): void {
    clearTimeout(this.handle);
    this.handle = setTimeout(() => void this.loop(), ms);
  }

  /** One check of the running loop; a failure is logged and the next check comes soon after. */
  private async loop(): Promise<void> {
    if (this.stopped || this.ticking) return;
    const check = this.check();
    this.ticking = check.catch(() => undefined);
    try {
      const sleep = await check;
      if (!this.stopped) this.arm(sleep);
    } catch (error) {
      const message = errorMessage(error);
      this.options.log(`the scheduler's check failed (trying again in ${RETRY_AFTER_FAILURE_MS} ms): ${message}`);
      if (!this.stopped) this.arm(Math.min(RETRY_AFTER_FAILURE_MS, this.options.maxSleepMs ?? RETRY_AFTER_FAILURE_MS));
    } finally {
      this.ticking = null;
    }
  }

  async tick(): Promise<string[]> {
    const queued: string[] = [];
    await this.check(queued);
    return queued;
  }

  /** Queues the due ticks; resolves with how long to sleep until the next one. */
  private async check(queued: string[] = []): Promise<number> {
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
      const ticks = due.flatMap((source): DueTick[] => {
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
            firedAt: source.next_fire_at,
            nextFireAt: nextTimerFire(schedule, Math.max(now, source.next_fire_at)),
          },
        ];
      });
      const { queued: done, merged } = await this.options.queueTicks(ticks);
      this.merges.record(merged);
      queued.push(...done);
      if (done.length > 0) {
        const late = this.options.onTickLate;
        if (late) for (const tick of ticks) if (done.includes(tick.invocation.sourceId)) late(now - tick.firedAt);
        this.options.onQueued(done);
      }
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
    return sleep;
  }
}
