import { errorMessage } from '@tributary/contracts';
import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { WorkDispatch } from '../ports/work-dispatch.js';

export interface BullmqDispatchOptions {
  /**
   * A connection with `maxRetriesPerRequest: null`, closed with the dispatch; the worker opens its
   * blocking twin from it.
   */
  readonly redis: Redis;
  /** BullMQ's key prefix (e.g. `tributary:bull`): processes sharing it share the wake-ups. */
  readonly prefix: string;
  readonly log: (message: string) => void;
}

const QUEUE = 'invocation-wakeups';

interface WakeJob {
  readonly sourceId: string;
}

/**
 * Wake-ups of worker processes as BullMQ jobs, one per source: BullMQ hands each job to exactly
 * one worker (competing consumers), keeps it while no worker runs, and holds a delayed one until
 * its time (a retry after its backoff). The invocations themselves stay in the store's queue,
 * whose entries leave in the commit that stores their results (docs/decisions/0010-bullmq.md).
 *
 * Announcements of one turn of the event loop go to Redis in one `addBulk`, a source once: under
 * load an HTTP request costs no Redis round trip of its own.
 */
export class BullmqDispatch implements WorkDispatch {
  private readonly queue: Queue<WakeJob>;
  private worker: Worker<WakeJob> | undefined;
  private buffered = new Set<string>();
  private flushing: Promise<void> = Promise.resolve();
  private flushScheduled = false;

  constructor(private readonly options: BullmqDispatchOptions) {
    this.queue = new Queue<WakeJob>(QUEUE, { connection: options.redis, prefix: options.prefix });
    this.queue.on('error', (error) => options.log(`BullMQ wake-up queue: ${error.message}`));
  }

  announce(sourceIds: readonly string[], delayMs = 0): void {
    if (sourceIds.length === 0) return;
    if (delayMs > 0) {
      const jobs = sourceIds.map((sourceId) => ({ name: 'wake', data: { sourceId }, opts: jobOptions(delayMs) }));
      this.flushing = this.flushing.then(() => this.add(jobs));
      return;
    }
    for (const sourceId of sourceIds) this.buffered.add(sourceId);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      const jobs = [...this.buffered].map((sourceId) => ({ name: 'wake', data: { sourceId }, opts: jobOptions(0) }));
      this.buffered = new Set();
      this.flushing = this.flushing.then(() => this.add(jobs));
    });
  }

  private async add(jobs: { name: string; data: WakeJob; opts: ReturnType<typeof jobOptions> }[]): Promise<void> {
    if (jobs.length === 0) return;
    try {
      await this.queue.addBulk(jobs);
    } catch (error) {
      // The work is queued durably all the same; the workers' rescan finds it.
      this.options.log(
        `announcing work to the workers failed (they find it at their next rescan): ${errorMessage(error)}`,
      );
    }
  }

  async listen(onWork: (sourceIds: readonly string[]) => void): Promise<void> {
    if (this.worker) return;
    this.worker = new Worker<WakeJob>(
      QUEUE,
      // The job only says where to look: the runner claims the source from the store's queue.
      (job) => {
        onWork([job.data.sourceId]);
        return Promise.resolve();
      },
      { connection: this.options.redis, prefix: this.options.prefix, concurrency: 64 },
    );
    this.worker.on('error', (error) => this.options.log(`BullMQ wake-up worker: ${error.message}`));
    await this.worker.waitUntilReady();
  }

  async close(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    await this.flushing;
    await this.worker?.close();
    await this.queue.close();
    await this.options.redis.quit().catch(() => this.options.redis.disconnect());
  }
}

function jobOptions(delayMs: number): { delay: number; removeOnComplete: true; removeOnFail: true } {
  return { delay: delayMs, removeOnComplete: true, removeOnFail: true };
}
