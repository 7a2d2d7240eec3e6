import type { WantedTimer } from '../redis/bullmq-timer-jobs.js';

/** What queuing one job scheduler's slot did. */
export type SlotOutcome =
  /**
   * The tick was queued. `dueAt` is when it was due, for the drift metric: its slot, or the stored
   * fire time when that came first (a tick missed while no scheduler ran is late since then).
   */
  | { readonly kind: 'queued'; readonly dueAt: number }
  /** The previous tick is still queued or running: the fire time moved on, nothing was queued. */
  | { readonly kind: 'merged' }
  /** Not this slot's to queue (already queued, before the schedule, or no timer any more). */
  | { readonly kind: 'skipped' };

export const SKIPPED: SlotOutcome = { kind: 'skipped' };
export const MERGED: SlotOutcome = { kind: 'merged' };

/**
 * One kind of timer on BullMQ job schedulers (timer sources, timer workflows), as the store holds
 * it: which timers should have a job scheduler, and how a fired slot is queued. Queuing is
 * once-only by the store's next fire time, so a job that runs twice, or on two processes, queues
 * one tick.
 */
export interface TimerTargets {
  /** The active timers and their schedules. */
  wanted(): Promise<WantedTimer[]>;
  /** Queues the tick of `id`'s slot `scheduledAt` if it is still the timer's to queue. */
  fire(id: string, scheduledAt: number): Promise<SlotOutcome>;
}
