import type { TimerSchedule } from '@tributary/runtime';
import { Queue, Worker, type Job, type JobSchedulerJson } from 'bullmq';
import type { Redis } from 'ioredis';

export interface BullmqTimerJobsOptions {
  /**
   * A connection with `maxRetriesPerRequest: null`, closed with the jobs; the worker opens its
   * blocking twin from it.
   */
  readonly redis: Redis;
  /** BullMQ's key prefix (e.g. `tributary:bull`): processes sharing it share the timers. */
  readonly prefix: string;
  readonly log: (message: string) => void;
}

/**
 * What a job scheduler fires for: a timer source (`timer:<source id>`) or a workflow whose trigger
 * is a timer (`wftimer:<workflow id>`).
 */
export const TIMER_OWNERS = ['source', 'workflow'] as const;
export type TimerOwner = (typeof TIMER_OWNERS)[number];

/** One timer's wanted job scheduler: its source's or workflow's id and its schedule. */
export interface WantedTimer {
  readonly id: string;
  readonly schedule: TimerSchedule;
}

/** A fired job: whose timer it is and the slot it was scheduled for. */
export interface FiredTimer {
  readonly owner: TimerOwner;
  readonly id: string;
  readonly scheduledAt: number;
}

/** One job scheduler: whose it is, its schedule and its next slot. */
export interface ScheduledTimer {
  readonly owner: TimerOwner;
  readonly id: string;
  readonly every?: number;
  readonly pattern?: string;
  readonly tz?: string;
  readonly next?: number;
}

// Sources' jobs kept their `{ sourceId }` data from before workflows had job schedulers, so jobs
// already in Redis at an upgrade still fire.
type TimerJob = { readonly sourceId: string } | { readonly workflowId: string };

const QUEUE = 'timer-ticks';

function schedulerPrefix(owner: TimerOwner): string {
  switch (owner) {
    case 'source':
      return 'timer:';
    case 'workflow':
      return 'wftimer:';
  }
}

function jobData(owner: TimerOwner, id: string): TimerJob {
  switch (owner) {
    case 'source':
      return { sourceId: id };
    case 'workflow':
      return { workflowId: id };
  }
}

function ownerOf(key: string): TimerOwner | null {
  return TIMER_OWNERS.find((owner) => key.startsWith(schedulerPrefix(owner))) ?? null;
}

/**
 * Timers' schedules as BullMQ job schedulers on the queue `timer-ticks`, one per timer source
 * (`timer:<source id>`) and one per timer workflow (`wftimer:<workflow id>`), each `every` or
 * `pattern` + `tz`. BullMQ adds each slot's job once however many processes share the prefix and
 * hands it to one worker. The schedule itself stays in the store (`sources.timer`, a workflow's
 * trigger); `sync` makes the job schedulers follow it.
 */
export class BullmqTimerJobs {
  private readonly queue: Queue<TimerJob>;
  private worker: Worker<TimerJob> | undefined;

  constructor(private readonly options: BullmqTimerJobsOptions) {
    this.queue = new Queue<TimerJob>(QUEUE, { connection: options.redis, prefix: options.prefix });
    this.queue.on('error', (error) => options.log(`BullMQ timer queue: ${error.message}`));
  }

  /**
   * Makes the job schedulers those of `wanted`, every owner's at once: missing or changed ones are
   * upserted, others removed. An unchanged one is left alone, so its slots keep their times across
   * restarts. The job schedulers are listed once, whatever the number of owners or timers.
   */
  async sync(wanted: Readonly<Record<TimerOwner, readonly WantedTimer[]>>): Promise<void> {
    const pending = new Map(
      TIMER_OWNERS.flatMap((owner) =>
        wanted[owner].map((timer) => [schedulerPrefix(owner) + timer.id, { owner, timer }] as const),
      ),
    );
    for (const existing of await this.queue.getJobSchedulers(0, -1)) {
      const id = existing.key;
      // Keys of neither prefix are not ours to remove.
      if (ownerOf(id) === null) continue;
      const want = pending.get(id);
      if (want && sameSchedule(existing, want.timer.schedule)) pending.delete(id);
      else if (!want) await this.queue.removeJobScheduler(id);
    }
    for (const [id, { owner, timer }] of pending) {
      await this.queue.upsertJobScheduler(id, repeatOf(timer.schedule), {
        name: 'tick',
        data: jobData(owner, timer.id),
        // A failed fire (the database is away) is tried again; the store keeps it once-only.
        opts: { attempts: 5, backoff: { type: 'exponential', delay: 1000 }, removeOnComplete: true, removeOnFail: 100 },
      });
    }
  }

  /** The job schedulers as BullMQ holds them, by owner then id. */
  async scheduled(): Promise<ScheduledTimer[]> {
    const all = await this.queue.getJobSchedulers(0, -1);
    return all
      .flatMap((scheduler) => {
        const owner = ownerOf(scheduler.key);
        return owner ? [{ scheduler, owner, id: scheduler.key.slice(schedulerPrefix(owner).length) }] : [];
      })
      .map(({ scheduler, owner, id }) => ({
        owner,
        id,
        ...(scheduler.every !== undefined ? { every: Number(scheduler.every) } : {}),
        ...(scheduler.pattern ? { pattern: scheduler.pattern } : {}),
        ...(scheduler.tz ? { tz: scheduler.tz } : {}),
        ...(scheduler.next !== undefined ? { next: Number(scheduler.next) } : {}),
      }))
      .sort((a, b) => (`${a.owner} ${a.id}` < `${b.owner} ${b.id}` ? -1 : 1));
  }

  /** Runs `onFired` for each fired job, on this process's share of them. */
  async listen(onFired: (fired: FiredTimer) => Promise<void>): Promise<void> {
    if (this.worker) return;
    this.worker = new Worker<TimerJob>(QUEUE, (job) => onFired(firedOf(job)), {
      connection: this.options.redis,
      prefix: this.options.prefix,
      concurrency: 16,
    });
    this.worker.on('error', (error) => this.options.log(`BullMQ timer worker: ${error.message}`));
    this.worker.on('failed', (job, error) =>
      this.options.log(`a timer tick of ${job ? firedOf(job).id : '?'} failed (tried again): ${error.message}`),
    );
    await this.worker.waitUntilReady();
  }

  /** Stops taking jobs; a job in progress finishes first. */
  async stopListening(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.close();
  }

  async close(): Promise<void> {
    await this.stopListening();
    await this.queue.close();
    await this.options.redis.quit().catch(() => this.options.redis.disconnect());
  }
}

function firedOf(job: Job<TimerJob>): FiredTimer {
  const scheduledAt = slotOf(job);
  return 'workflowId' in job.data
    ? { owner: 'workflow', id: job.data.workflowId, scheduledAt }
    : { owner: 'source', id: job.data.sourceId, scheduledAt };
}

/**
 * The slot the job scheduler made the job for, whenever a worker got to it. BullMQ names each job
 * of a job scheduler `repeat:<scheduler id>:<slot ms>`, the one record of its slot that every way
 * of making the job keeps: BullMQ 6 makes the next job in a script that sets no `prevMillis`, and
 * `timestamp + delay` is not the slot either (`delay` reads 0 once the job has waited its turn, so
 * that sum is when the job was made: when the job before it ran). Read from it, a slot came one
 * period late, so a timer's first slot was taken for one already queued and it fired first a period
 * late, with each tick's `timestamp` the slot before its own.
 */
function slotOf(job: Job<TimerJob>): number {
  const id = job.id ?? '';
  const slot = Number(id.slice(id.lastIndexOf(':') + 1));
  if (id.startsWith('repeat:') && Number.isSafeInteger(slot) && slot > 0) return slot;
  return job.opts.prevMillis ?? job.timestamp + (job.delay ?? 0);
}

function repeatOf(schedule: TimerSchedule): { every: number } | { pattern: string; tz: string } {
  switch (schedule.kind) {
    case 'interval':
      return { every: schedule.intervalSeconds * 1000 };
    case 'cron':
      return { pattern: schedule.cron, tz: schedule.timezone };
  }
}

function sameSchedule(existing: JobSchedulerJson, schedule: TimerSchedule): boolean {
  switch (schedule.kind) {
    case 'interval':
      return Number(existing.every) === schedule.intervalSeconds * 1000 && !existing.pattern;
    case 'cron':
      return existing.pattern === schedule.cron && existing.tz === schedule.timezone;
  }
}
