import type { TimerSchedule } from '@tributary/runtime';
import type { Kysely } from 'kysely';
import type { Scheduler } from '../ports/scheduler.js';
import type { BullmqTimerJobs, FiredTimer } from '../redis/bullmq-timer-jobs.js';
import type { Database } from '../store/schema.js';
import { scheduledTick } from './scheduled-tick.js';
import type { DueTick } from './timer-scheduler.js';

export interface BullmqSchedulerOptions {
  readonly jobs: BullmqTimerJobs;
  readonly db: Kysely<Database>;
  readonly now: () => number;
  /** The backend's transaction that queues ticks and moves fire times (as the store's scheduler's). */
  readonly queueTicks: (ticks: readonly DueTick[]) => Promise<string[]>;
  /** The store's scheduler on the same backend: `tick()` is its check, for ticks due in the store. */
  readonly sweep: Scheduler;
  readonly onQueued: (sourceIds: readonly string[]) => void;
  readonly log: (message: string) => void;
}

/**
 * Timers on BullMQ job schedulers (docs/decisions/0010-bullmq.md): BullMQ decides when a slot is
 * due and gives its job to one scheduler process; that process queues the tick in the store's
 * transaction that moves the source's next fire time, so a job retried after a crash, or a slot
 * some other path queued, never queues twice. No process polls the `sources` table.
 *
 * Any role keeps the job schedulers in step with the store (`wake` after a deploy, update,
 * activation or delete, from an `api` process too); only a started one fires jobs.
 */
export class BullmqScheduler implements Scheduler {
  private syncing: Promise<void> | null = null;
  private syncAgain = false;

  constructor(private readonly options: BullmqSchedulerOptions) {}

  /** Brings the job schedulers in line with the active timer sources, then takes fired jobs. */
  start(): void {
    this.wake();
    this.options.jobs
      .listen(async (fired) => void (await this.fire(fired)))
      .catch((error: unknown) => this.options.log(`the timer worker did not start: ${messageOf(error)}`));
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
        this.options.log(`updating the timers' job schedulers failed (again at the next change): ${messageOf(error)}`),
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
    const rows = await this.options.db
      .selectFrom('sources')
      .select(['id', 'timer'])
      .where('active', '=', 1)
      .where('timer', 'is not', null)
      .execute();
    await this.options.jobs.sync(
      rows.map((row) => ({ sourceId: row.id, schedule: JSON.parse(row.timer ?? '{}') as TimerSchedule })),
    );
  }

  /** One fired job: its tick queued durably, or nothing when the slot is not the source's to queue. */
  async fire(fired: FiredTimer): Promise<string[]> {
    const source = await this.options.db
      .selectFrom('sources')
      .select(['id', 'active', 'timer', 'next_fire_at'])
      .where('id', '=', fired.sourceId)
      .executeTakeFirst();
    const tick = source ? scheduledTick(source, fired.scheduledAt, this.options.now()) : null;
    if (!tick) return [];
    const queued = await this.options.queueTicks([tick]);
    if (queued.length > 0) this.options.onQueued(queued);
    return queued;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
