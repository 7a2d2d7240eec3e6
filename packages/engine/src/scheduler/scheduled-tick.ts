import { nextTimerFire, timerEvent, type TimerSchedule } from '@tributary/runtime';
import { newId } from '../ids.js';
import type { DueTick } from './timer-scheduler.js';

/** What a fired job needs of its source's row. */
export interface TimerSourceRow {
  readonly id: string;
  readonly active: number;
  readonly timer: string | null;
  readonly next_fire_at: number | null;
}

/** The move of a timer's next fire time that queuing one slot's tick makes, in the same transaction. */
export interface SlotMove {
  /** The fire time it was read at: the tick is queued only if the timer still has it. */
  readonly firedAt: number;
  readonly nextFireAt: number;
}

/**
 * The move a job scheduler's slot `scheduledAt` (its time, not the time it ran) makes for a timer
 * whose first slot not queued yet is `nextFireAt`, or null when there is nothing to queue:
 * queuing moves it to the slot after this one. A slot well before it (more than half a period)
 * was queued already (a job retried after a crash) or precedes the schedule (the job a job
 * scheduler fires when it is created), so the same slot never queues twice; the half period
 * absorbs BullMQ's slots drifting by a few milliseconds when a job scheduler is replaced. Sources
 * and timer workflows share it.
 */
export function slotMove(schedule: TimerSchedule, nextFireAt: number, scheduledAt: number): SlotMove | null {
  const following = nextTimerFire(schedule, scheduledAt);
  if (nextFireAt > scheduledAt + (following - scheduledAt) / 2) return null;
  // BullMQ skips the slots missed while no worker ran, so they fire once, as on the store's scheduler.
  return { firedAt: nextFireAt, nextFireAt: following };
}

/** The tick a job scheduler fired for a source's slot `scheduledAt`, or null (see `slotMove`). */
export function scheduledTick(source: TimerSourceRow, scheduledAt: number, now: number): DueTick | null {
  if (source.active !== 1 || source.timer === null || source.next_fire_at === null) return null;
  const schedule = JSON.parse(source.timer) as TimerSchedule;
  const move = slotMove(schedule, source.next_fire_at, scheduledAt);
  if (!move) return null;
  return {
    invocation: {
      id: newId('inv'),
      sourceId: source.id,
      event: JSON.stringify(timerEvent(schedule, scheduledAt)),
      createdAt: now,
    },
    ...move,
  };
}
