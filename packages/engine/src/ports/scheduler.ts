/**
 * Fires timer sources: queues one `timer` invocation per due tick.
 *
 * Guarantees every implementation keeps (test/contracts/scheduler.contract.ts checks them):
 * - A due tick is queued once, together with moving its source's next fire time (one transaction),
 *   whichever process checks it: two schedulers on one backend never queue the same tick twice.
 * - Schedules survive restarts; ticks missed while nothing ran fire once at the next check (the
 *   next time is computed from then), never once per missed tick.
 * - A failure while checking (the database is away) is logged and retried at the next check; it
 *   never ends the process and never queues a tick without moving the fire time.
 * - Time comes from the injected clock.
 */
export interface Scheduler {
  /** Starts checking: now, then whenever the next tick is due (a timer, or the backend's own). */
  start(): void;
  /** Stops checking; resolves when a check in progress is over. */
  stop(): Promise<void>;
  /** Schedules changed (a deploy, update or delete): check again now. */
  wake(): void;
  /** Checks once now; resolves with the sources whose ticks were queued, rejects on a failure. */
  tick(): Promise<string[]>;
}
