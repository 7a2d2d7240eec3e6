import { errorMessage } from '@tributary/contracts';
/** The conditions `/readyz` checks, in the order it reports them. */
export type ReadinessCheck = 'database' | 'runner' | 'scheduler';

export interface ReadinessFailure {
  readonly check: ReadinessCheck;
  readonly message: string;
}

export type ReadinessReport =
  { readonly ready: true } | { readonly ready: false; readonly failures: readonly ReadinessFailure[] };

export interface ReadinessThresholds {
  /** Due work may wait this long while the runner finishes nothing before it counts as stuck. */
  readonly runnerStallMs: number;
  /**
   * Due work of a source that is not running may wait this long while every run slot is taken
   * before the runner counts as starved (long runs hold the slots, other sources wait).
   */
  readonly runnerWaitMs: number;
  /** A timer tick may be this late before the scheduler counts as behind. */
  readonly schedulerLagMs: number;
  /** The database must answer a query within this. */
  readonly databaseTimeoutMs: number;
}

export interface ReadinessOptions {
  readonly thresholds: ReadinessThresholds;
  readonly now: () => number;
  readonly ping: (timeoutMs: number) => Promise<void>;
  /** When the oldest due entry became due, leaving out the queue keys in `except` (running ones). */
  readonly oldestDueSince: (now: number, except?: readonly string[]) => Promise<number | null>;
  readonly earliestFireAt: () => Promise<number | null>;
  readonly runner: () => {
    readonly lastProgressAt: number;
    readonly slots?: { readonly full: boolean; readonly running: readonly string[]; readonly long: readonly string[] };
  };
}

/**
 * Whether this process can do its work now (readiness), as opposed to being alive (`/healthz`):
 * the database answers, the runner gets through due work, and timer ticks are queued on time. Each
 * check reads the shared database, so on PostgreSQL any process answers for the queue and timers.
 */
export class Readiness {
  constructor(private readonly options: ReadinessOptions) {}

  async check(): Promise<ReadinessReport> {
    const { thresholds, now: clock } = this.options;
    try {
      await this.options.ping(thresholds.databaseTimeoutMs);
    } catch (error) {
      // The other checks read the database too: with it away, they say nothing more.
      return {
        ready: false,
        failures: [{ check: 'database', message: `the database did not answer: ${errorMessage(error)}` }],
      };
    }
    const failures: ReadinessFailure[] = [];
    const now = clock();
    try {
      const runner = this.options.runner();
      const slots = runner.slots;
      const [dueSince, nextFire, waitingSince] = await Promise.all([
        this.options.oldestDueSince(now),
        this.options.earliestFireAt(),
        slots?.full ? this.options.oldestDueSince(now, slots.running) : Promise.resolve(null),
      ]);
      const idleMs = now - runner.lastProgressAt;
      if (dueSince !== null && now - dueSince > thresholds.runnerStallMs && idleMs > thresholds.runnerStallMs)
        failures.push({
          check: 'runner',
          message: `queued work has waited ${now - dueSince} ms and the runner has finished nothing for ${idleMs} ms (limit ${thresholds.runnerStallMs} ms)`,
        });
      else if (slots && waitingSince !== null && now - waitingSince > thresholds.runnerWaitMs)
        failures.push({
          check: 'runner',
          message: `every run slot is taken (${slots.running.length} running, ${slots.long.length} of them long runs) and other sources' queued work has waited ${now - waitingSince} ms (limit ${thresholds.runnerWaitMs} ms)`,
        });
      if (nextFire !== null && now - nextFire > thresholds.schedulerLagMs)
        failures.push({
          check: 'scheduler',
          message: `a timer tick is ${now - nextFire} ms overdue (limit ${thresholds.schedulerLagMs} ms)`,
        });
    } catch (error) {
      failures.push({ check: 'database', message: `the database did not answer: ${errorMessage(error)}` });
    }
    return failures.length === 0 ? { ready: true } : { ready: false, failures };
  }
}
