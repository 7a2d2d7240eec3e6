import { errorMessage } from '@tributary/contracts';
import type { Scheduler } from '../ports/scheduler.js';
import { type BullmqTimerJobs, type FiredTimer, type TimerOwner } from '../redis/bullmq-timer-jobs.js';
import { TickMerges } from './tick-merges.js';
import type { TimerTargets } from './timer-targets.js';

export interface BullmqSchedulerOptions {
  readonly jobs: BullmqTimerJobs;
  /** Each kind of timer's store side: timer sources and timer workflows. */
  readonly targets: Readonly<Record<TimerOwner, TimerTargets>>;
  readonly now: () => number;
  /** The store's scheduler on the same backend: `tick()` is its check, for ticks due in the store. */
  readonly sweep: Scheduler;
  readonly log: (message: string) => void;
  /** How late each queued tick was (now minus its due time): the timer drift metric. */
  readonly onTickLate?: (lateMs: number) => void;
}

/**
 * Timers on BullMQ job schedulers (docs/decisions/0010-bullmq.md), for timer sources and timer
 * workflows alike: BullMQ decides when a slot is due and gives its job to one scheduler process;
 * that process queues the tick in the store's transaction that moves the timer's next fire time,
 * so a job retried after a crash, or a slot some other path queued, never queues twice. No process
 * polls the store for due timers.
 *
 * Any role keeps the job schedulers in step with the store (`wake` after a deploy, update,
 * activation, workflow save or delete, from an `api` process too); only a started one fires jobs.
 */
export class BullmqScheduler implements Scheduler {
  private syncing: Promise<void> | null = null;
  private syncAgain = false;
  private readonly merges: TickMerges;

  constructor(private readonly options: BullmqSchedulerOptions) {
    this.merges = new TickMerges(options.log);
  }

  /** Brings the job schedulers in line with the active timers, then takes fired jobs. */
  start(): void {
    this.wake();
    this.options.jobs
      .listen(async (fired) => void (await this.fire(fired)))
      .catch((error: unknown) => this.options.log(`the timer worker did not start: ${errorMessage(error)}`));
  }

  async stop(): Promise<void> {
    await this.options.jobs.stopListening();
    await this.syncing;
  }

  /** Schedules changed: upserts and removes job schedulers to match the store (coalesced). */
  wake(): void {
    if (this.syncing) {
      this.syncAgain = true;
      return;
    }
    this.syncing = this.sync()
      .catch((error: unknown) =>
        this.options.log(
          `updating the timers' job schedulers failed (again at the next change): ${errorMessage(error)}`,
        ),
      )
      .finally(() => {
        this.syncing = null;
        if (this.syncAgain) {
          this.syncAgain = false;
          this.wake();
        }
      });
  }

  /** Resolves when the job schedulers follow every change made before the call. */
  async settled(): Promise<void> {
    while (this.syncing) await this.syncing;
  }

  tick(): Promise<string[]> {
    return this.options.sweep.tick();
  }

  private async sync(): Promise<void> {
    const { source, workflow } = this.options.targets;
    // One store read per kind of timer and one listing of the job schedulers, however many timers.
    const [sources, workflows] = await Promise.all([source.wanted(), workflow.wanted()]);
    await this.options.jobs.sync({ source: sources, workflow: workflows });
  }

  /** One fired job: resolves with its timer's id when its tick was queued, else with none. */
  async fire(fired: FiredTimer): Promise<string[]> {
    const outcome = await this.options.targets[fired.owner].fire(fired.id, fired.scheduledAt);
    switch (outcome.kind) {
      case 'queued':
        this.options.onTickLate?.(this.options.now() - outcome.dueAt);
        return [fired.id];
      case 'merged':
        this.merges.record([fired.id]);
        return [];
      case 'skipped':
        return [];
      default:
        return outcome satisfies never;
    }
  }
}
