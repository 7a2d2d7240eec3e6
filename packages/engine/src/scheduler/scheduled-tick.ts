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

/**
 * The tick a job scheduler fired for the slot `scheduledAt` (its time, not the time it ran), or
 * null when there is none to queue. The source's `next_fire_at` is the first slot not queued yet,
 * and queuing moves it to the slot after this one. A slot well before it (more than half a period)
 * was queued already (a job retried after a crash) or precedes the schedule (the job a job
 * scheduler fires when it is created), so the same slot never queues twice; the half period
 * absorbs BullMQ's slots drifting by a few milliseconds when a job scheduler is replaced.
 */
export function scheduledTick(source: TimerSourceRow, scheduledAt: number, now: number): DueTick | null {
  if (source.active !== 1 || source.timer === null || source.next_fire_at === null) return null;
  const schedule = JSON.parse(source.timer) as TimerSchedule;
  const following = nextTimerFire(schedule, scheduledAt);
  if (source.next_fire_at > scheduledAt + (following - scheduledAt) / 2) return null;
  return {
    invocation: {
      id: newId('inv'),
      sourceId: source.id,
      event: JSON.stringify(timerEvent(schedule, scheduledAt)),
      createdAt: now,
    },
    firedAt: source.next_fire_at,
    // BullMQ skips the slots missed while no worker ran, so they fire once, as on the store's scheduler.
    nextFireAt: following,
  };
}
