import type { HttpResponse } from '@tributary/runtime';
import { MAX_BATCH_ITEMS, type ComponentHandle } from '@tributary/sandbox';
import type { Kysely, Selectable } from 'kysely';
import type { ComponentService } from '../components/component-service.js';
import { newId } from '../ids.js';
import type { KeyedMutex } from '../sources/keyed-mutex.js';
import type { SourceExecutor, SourceRow } from '../sources/source-executor.js';
import type { PubSub } from '../pubsub/pubsub.js';
import type { Database } from '../store/schema.js';
import type { SqliteWrites } from '../store/sqlite-writes.js';

export type Trigger = 'http' | 'timer' | 'manual';
type InvocationRow = Selectable<Database['invocations']>;
type QueueRow = Parameters<SqliteWrites['enqueue']>[0];

export interface RunnerOptions {
  readonly db: Kysely<Database>;
  readonly executor: SourceExecutor;
  readonly components: ComponentService;
  readonly locks: KeyedMutex;
  /** Invocations running at once, across sources (one at a time per source). */
  readonly concurrency: number;
  readonly now: () => number;
  readonly log: (message: string) => void;
  readonly writes: SqliteWrites;
  /** Carries customResponse replies to the process holding the request. */
  readonly pubsub: PubSub;
  /** Most queued invocations of one source run in one worker request and commit (default 64; 1 = one by one). */
  readonly batchSize?: number;
}

const MAX_ATTEMPTS = 3;
/** Event-loop utilisation above which the process counts as saturated (sampled every 100 ms). */
const SATURATED = 0.95;
/** While saturated, a source waits this long between batches, so acknowledging requests goes first. */
const SATURATED_PAUSE_MS = 40;

/**
 * The durable invocation queue, kept in SQLite. `enqueue` returns once the row is committed, which
 * is when the ingress may answer 2xx. Rows leave the table in the same transaction that commits
 * their results, and a row stays queued while it runs (claims are kept in memory), so a crash at
 * any point leaves the invocation queued: delivery is at least once, never zero.
 *
 * A source's backlog runs in batches: its oldest queued rows (up to `batchSize`) go to the worker
 * in one request, run in order, and commit in one transaction. Per-source order and every
 * invocation's own emits, logs, error and deadline stay as they were one by one, while the fixed
 * cost of a worker round trip and a commit is paid once per batch (docs/server.md, "How work flows").
 */
export class InvocationRunner {
  private running = new Set<string>();
  /** Sources that may have queued work, in the order they get a turn (round robin). */
  private readonly pending = new Set<string>();
  private readonly inFlight = new Set<Promise<void>>();
  /** Platform failures per invocation (kept in memory: a restart starts the count again). */
  private readonly attempts = new Map<string, number>();
  /** Sources whose next N invocations run one by one: the rest of a batch that failed part way. */
  private readonly solo = new Map<string, number>();
  /** Rows waiting for the next group commit, with the callers waiting on them. */
  private readonly toQueue: { row: QueueRow; resolve: () => void; reject: (error: unknown) => void }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private loadTimer: NodeJS.Timeout | undefined;
  private saturated = false;
  /** Sources pausing between batches while the process is saturated, until the given time. */
  private readonly pausedUntil = new Map<string, number>();
  private pauseTimer: NodeJS.Timeout | undefined;
  private scheduled = false;
  private stopped = true;

  constructor(private readonly options: RunnerOptions) {}

  async start(): Promise<void> {
    // Rows are only ever queued (claims live in memory), so whatever was in flight when the
    // process died runs again. Databases written before that change may still hold 'running'.
    await this.options.db
      .updateTable('invocations')
      .set({ status: 'queued' })
      .where('status', '=', 'running')
      .execute();
    for (const sourceId of this.options.writes.sourcesWithWork()) this.pending.add(sourceId);
    this.stopped = false;
    // A safety net: re-read which sources have queued rows now and then, whatever queued them.
    this.timer = setInterval(() => this.notify(this.options.writes.sourcesWithWork()), 5000);
    this.timer.unref();
    // When requests arrive faster than one thread can acknowledge and run them, acknowledging (the
    // durable queue absorbs the rest) comes first: runs then go in fewer, fuller batches.
    // Two busy samples in a row: a short spike (a burst, a slow commit) does not slow the runs.
    let mark = performance.eventLoopUtilization();
    let busySamples = 0;
    this.loadTimer = setInterval(() => {
      const now = performance.eventLoopUtilization();
      busySamples = performance.eventLoopUtilization(now, mark).utilization > SATURATED ? busySamples + 1 : 0;
      this.saturated = busySamples >= 2;
      mark = now;
    }, 100);
    this.loadTimer.unref();
    this.wake();
  }

  /** Stops taking work and waits for invocations in flight; queued ones stay for the next start. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    clearInterval(this.loadTimer);
    clearTimeout(this.pauseTimer);
    await Promise.allSettled([...this.inFlight]);
  }

  /**
   * Queues an invocation; resolves once its row is committed (so the ingress may answer 2xx), and
   * rejects if the commit fails. Rows queued in the same turn of the event loop commit together in
   * one transaction (a group commit): under load one commit serves many requests.
   */
  enqueue(input: { readonly sourceId: string; readonly trigger: Trigger; readonly event: unknown }): Promise<string> {
    const id = newId('inv');
    const row = {
      id,
      sourceId: input.sourceId,
      trigger: input.trigger,
      event: JSON.stringify(input.event ?? null),
      createdAt: this.options.now(),
    };
    return new Promise((resolve, reject) => {
      this.toQueue.push({ row, resolve: () => resolve(id), reject });
      if (this.toQueue.length === 1) setImmediate(() => this.flushQueued());
    });
  }

  private flushQueued(): void {
    const group = this.toQueue.splice(0);
    try {
      this.options.writes.enqueueAll(group.map((entry) => entry.row));
    } catch (error) {
      for (const entry of group) entry.reject(error);
      return;
    }
    for (const entry of group) {
      this.pending.add(entry.row.sourceId);
      entry.resolve();
    }
    this.wake();
  }

  /** Work was queued for these sources by someone else (the scheduler). */
  notify(sourceIds: readonly string[]): void {
    for (const sourceId of sourceIds) this.pending.add(sourceId);
    this.wake();
  }

  wake(): void {
    if (this.scheduled || this.stopped) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.pump();
    });
  }

  private async pump(): Promise<void> {
    if (this.stopped) return;
    const free = this.options.concurrency - this.running.size;
    if (free <= 0) return;
    // Each source with work gets a turn in order, its oldest row first: one source's backlog cannot
    // hide another's work, and rows of one source stay first in, first out.
    const picked: InvocationRow[][] = [];
    const now = Date.now();
    let firstResume = Number.POSITIVE_INFINITY;
    for (const sourceId of [...this.pending]) {
      if (picked.length >= free) break;
      if (this.running.has(sourceId)) continue;
      const until = this.pausedUntil.get(sourceId);
      if (until !== undefined) {
        if (until > now) {
          firstResume = Math.min(firstResume, until);
          continue;
        }
        this.pausedUntil.delete(sourceId);
      }
      this.pending.delete(sourceId);
      const limit = (this.solo.get(sourceId) ?? 0) > 0 ? 1 : Math.max(1, this.options.batchSize ?? MAX_BATCH_ITEMS);
      const rows = this.options.writes.oldestOfSource(sourceId, limit);
      if (rows.length > 0) picked.push(rows);
    }
    if (firstResume !== Number.POSITIVE_INFINITY) this.wakeAfterPause(firstResume - now);
    for (const rows of picked) {
      const sourceId = rows[0]?.source_id ?? '';
      this.running.add(sourceId);
      const work = this.execute(sourceId, rows).finally(() => {
        this.running.delete(sourceId);
        if (this.saturated) this.pausedUntil.set(sourceId, Date.now() + SATURATED_PAUSE_MS);
        // Back of the line: it may have more queued (checked on its next turn).
        this.pending.add(sourceId);
        this.inFlight.delete(work);
        this.wake();
      });
      this.inFlight.add(work);
    }
  }

  /** Wakes the pump when the first paused source may run again. */
  private wakeAfterPause(ms: number): void {
    if (this.pauseTimer) return;
    this.pauseTimer = setTimeout(
      () => {
        this.pauseTimer = undefined;
        this.wake();
      },
      Math.max(1, ms),
    );
  }

  private async execute(sourceId: string, queued: readonly InvocationRow[]): Promise<void> {
    const { executor, components, locks, writes } = this.options;
    let rows = queued;
    try {
      await locks.run(sourceId, async () => {
        const source = writes.getSource(sourceId);
        if (!source) {
          for (const row of rows) writes.deleteInvocation(row.id);
          return;
        }
        // A customResponse caller waits for its own invocation's http.respond(): those run one by one.
        if (source.custom_response === 1) rows = rows.slice(0, 1);
        const component = await components.get(source.component_id);
        const handle = await executor.handle(component);
        const first = rows[0];
        if (rows.length === 1 && first) {
          await this.runOne(source, handle, first);
          return;
        }
        const results = await executor.invokeBatch({
          handle,
          source,
          events: rows.map((row) => JSON.parse(row.event) as unknown),
          state: writes.readState(source.id),
        });
        const done = rows.slice(0, results.length);
        const last = results.at(-1);
        if (!last) throw new Error('the worker returned no result for a batch');
        const built = executor.buildCommit({
          sourceId,
          invocationId: null,
          invocationIds: done.map((row) => row.id),
          results,
          state: last.state,
        });
        // The rows that ran leave in the transaction that stores their results; the rest stay queued.
        const logIds = writes.commit(built.commit, () => {
          for (const row of done) writes.deleteInvocation(row.id);
        });
        executor.publish(sourceId, executor.committed(built, logIds));
        for (const [index, row] of done.entries()) this.respond(row.id, results[index]?.response ?? null);
        // The worker failed part way: the invocations it did not reach run one by one next, so a
        // failure that builds up over a batch cannot take a neighbour down with it.
        if (done.length < rows.length) this.solo.set(sourceId, rows.length - done.length);
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (rows.length > 1) {
        // A platform failure of a batch: nothing of it committed; its invocations are retried one by one.
        this.options.log(
          `a batch of ${rows.length} invocations of ${sourceId} failed in the platform (retrying them one by one): ${message}`,
        );
        this.solo.set(sourceId, rows.length);
        return;
      }
      // A platform failure (not the component's): retry a few times, then drop it with a log line.
      for (const row of rows) {
        this.options.log(`invocation ${row.id} of ${row.source_id} failed in the platform: ${message}`);
        const attempts = (this.attempts.get(row.id) ?? 0) + 1;
        this.attempts.set(row.id, attempts);
        if (attempts >= MAX_ATTEMPTS) {
          writes.deleteInvocation(row.id);
          this.attempts.delete(row.id);
        }
        this.respond(row.id, null);
      }
    }
  }

  /** One invocation on its own: a customResponse source, a batch of one, or a retry after a failed batch. */
  private async runOne(source: SourceRow, handle: ComponentHandle, row: InvocationRow): Promise<void> {
    const { executor, writes } = this.options;
    const soloLeft = this.solo.get(source.id) ?? 0;
    if (soloLeft > 1) this.solo.set(source.id, soloLeft - 1);
    else this.solo.delete(source.id);
    const result = await executor.invoke({
      handle,
      source,
      kind: 'run',
      state: writes.readState(source.id),
      event: JSON.parse(row.event) as unknown,
      onRespond: (response) => this.respond(row.id, response),
    });
    const built = executor.buildCommit({
      sourceId: source.id,
      invocationId: row.id,
      results: [result],
      state: result.state,
    });
    // The queue row leaves in the same transaction that stores the results: at least once, never lost.
    const logIds = writes.commit(built.commit, () => writes.deleteInvocation(row.id));
    executor.publish(source.id, executor.committed(built, logIds));
    this.respond(row.id, result.response);
  }

  /**
   * The invocation's reply (its first http.respond(), or null when it ended without one), for
   * whoever awaits it with `pubsub.awaitReply`, in this process or another. Published for every
   * invocation: only the port knows whether anybody waits, and it keeps only the first.
   */
  private respond(invocationId: string, response: HttpResponse | null): void {
    this.options.pubsub.publishReply(invocationId, response);
  }
}
