import { errorMessage } from '@tributary/contracts';
import type { DeliveryJobs } from './delivery-jobs.js';
import type { AttemptOutcome, DeliveryJob } from './delivery-types.js';
import { deliveryBackoffMs, type DeliveryRetryPolicy } from './retry-policy.js';

export interface DeliveryWorkerOptions {
  readonly jobs: DeliveryJobs;
  /** One attempt of one job; a throw is recorded as a retryable failure. */
  readonly attempt: (job: DeliveryJob) => Promise<AttemptOutcome>;
  readonly retry: DeliveryRetryPolicy;
  readonly now: () => number;
  readonly log: (message: string) => void;
  /** Attempts running at once (default 8). */
  readonly concurrency?: number;
  /** How long a claimed job is ours; longer than any attempt's timeout (default 120 s). */
  readonly leaseMs?: number;
  /** Longest sleep between looks at the table, for jobs another process queued (default 1 s). */
  readonly maxSleepMs?: number;
  /** Called once an attempt is recorded (whatever its outcome). */
  readonly onAttempted?: (jobId: string) => void;
}

/**
 * Attempts due delivery jobs off the path that queued them: claims them from the durable table,
 * runs one attempt each, records it and schedules the next with backoff. Everything it knows is
 * in the table, so a restart (or another process) carries on where this one stopped.
 */
export class DeliveryWorker {
  private readonly inFlight = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private passing = false;
  private again = false;

  constructor(private readonly options: DeliveryWorkerOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.wake();
  }

  /** Stops claiming; attempts in flight finish and are recorded. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** Something was queued: look now instead of at the next tick. */
  wake(): void {
    if (!this.running) return;
    if (this.passing) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.pass(), 0);
  }

  private async pass(): Promise<void> {
    this.timer = null;
    if (!this.running) return;
    this.passing = true;
    try {
      const free = (this.options.concurrency ?? 8) - this.inFlight.size;
      if (free > 0) {
        const now = this.options.now();
        const claimed = await this.options.jobs.claimDue(now, free, this.options.leaseMs ?? 120_000);
        for (const job of claimed) {
          const work: Promise<void> = this.run(job).finally(() => {
            this.inFlight.delete(work);
            this.wake();
          });
          this.inFlight.add(work);
        }
      }
      await this.sleepUntilDue();
    } catch (error) {
      this.options.log(`deliveries: ${errorMessage(error)}`);
      this.schedule(this.options.maxSleepMs ?? 1000);
    } finally {
      this.passing = false;
      if (this.again) {
        this.again = false;
        this.wake();
      }
    }
  }

  private async sleepUntilDue(): Promise<void> {
    const max = this.options.maxSleepMs ?? 1000;
    const due = await this.options.jobs.nextDueAt();
    this.schedule(due === null ? max : Math.max(0, Math.min(max, due - this.options.now())));
  }

  private schedule(ms: number): void {
    if (!this.running) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.pass(), ms);
    this.timer.unref();
  }

  private async run(job: DeliveryJob): Promise<void> {
    const { now, retry } = this.options;
    const started = now();
    let outcome: AttemptOutcome;
    try {
      outcome = await this.options.attempt(job);
    } catch (error) {
      outcome = { ok: false, detail: errorMessage(error), retry: true };
    }
    const attemptNo = job.attempts + 1;
    const attempt = {
      attempt: attemptNo,
      at: started,
      duration_ms: now() - started,
      ok: outcome.ok,
      detail: outcome.detail,
    };
    const finished = now();
    const result = outcome.ok
      ? { attempt, status: 'delivered' as const, nextAttemptAt: null, lastError: null }
      : outcome.retry && attemptNo < job.maxAttempts
        ? {
            attempt,
            status: 'pending' as const,
            nextAttemptAt: finished + deliveryBackoffMs(retry, attemptNo),
            lastError: outcome.detail,
          }
        : { attempt, status: 'failed' as const, nextAttemptAt: null, lastError: outcome.detail };
    try {
      await this.options.jobs.finish(job, result, finished);
    } catch (error) {
      // The lease runs out and the job is attempted again: at-least-once, never lost.
      this.options.log(`deliveries: recording ${job.id} failed: ${errorMessage(error)}`);
    }
    this.options.onAttempted?.(job.id);
  }
}
