import { errorMessage } from '@tributary/contracts';
import type { HttpResponse } from '@tributary/runtime';
import { MAX_BATCH_ITEMS, type ComponentHandle } from '@tributary/sandbox';
import type { ComponentService } from '../components/component-service.js';
import { newId } from '../ids.js';
import type { InvocationQueue, NewInvocation, QueuedInvocation, Trigger } from '../ports/invocation-queue.js';
import type { Store } from '../ports/store.js';
import type { KeyedMutex } from '../sources/keyed-mutex.js';
import { OWNER_ID } from '../sources/owner.js';
import type { SourceExecutor, SourceRow } from '../sources/source-executor.js';
import type { PubSub, Unsubscribe } from '../pubsub/pubsub.js';
import type { WorkDispatch } from '../ports/work-dispatch.js';
import { outcomeOf } from '../metrics/invocation-outcome.js';
import { NO_METRICS, type InvocationOutcome, type Metrics } from '../ports/metrics.js';
import type { SourceFailure } from '../health/recent-failures.js';
import type { LogFields, Logger } from '../ports/logger.js';
import { Stopper } from './stopper.js';
import { RunSlots, type SlotsSnapshot } from './run-slots.js';
import { RunStopped, stopWhy, type StopReason } from './stop-reason.js';

export type { Trigger } from '../ports/invocation-queue.js';

export interface RunnerOptions<Held = never> {
  readonly store: Store;
  readonly queue: InvocationQueue;
  readonly executor: SourceExecutor;
  readonly components: ComponentService;
  readonly locks: KeyedMutex;
  /** Invocations running at once, across sources (one at a time per source). */
  readonly concurrency: number;
  /**
   * A run past this long gives its slot to the next source and holds one of `longRunSlots`
   * instead (default 500 ms; see RunSlots), so hanging code cannot take every slot.
   */
  readonly longRunMs?: number;
  /** Slots for runs past `longRunMs`, beside `concurrency` (default: as many as `concurrency`). */
  readonly longRunSlots?: number;
  readonly now: () => number;
  /** Lines about invocations carry `source_id` and `invocation_id` (workflow runs: `run_id`). */
  readonly logger: Logger;
  /**
   * Carries customResponse replies to the process holding the request, and the stop requests of
   * sources being deleted by whichever process answers the delete (`stopRuns`).
   */
  readonly pubsub: PubSub;
  /**
   * Wakes worker processes (this one included) when work is queued, so a process that did not
   * queue it claims it at once (`tributary start --role worker`). Without it, other processes find
   * work at their next rescan.
   */
  readonly dispatch?: WorkDispatch;
  /** Where finished invocations are counted (default: nowhere). */
  readonly metrics?: Metrics;
  /** Told of every source invocation that did not succeed (the status page's recent failures). */
  readonly onFailed?: (failure: SourceFailure) => void;
  /** Most queued invocations of one source run in one worker request and commit (default 64; 1 = one by one). */
  readonly batchSize?: number;
  /**
   * How often the runner re-reads which sources have queued work, a safety net for work it was not
   * told of (default 5 s, DEFAULT_RESCAN_MS).
   */
  readonly rescanMs?: number;
  /**
   * Workflow runs share this queue and runner: entries under a key it owns are stepped by it, one
   * run per claim (a run's entry stays queued until the run ends, so its lane stays in order).
   */
  readonly workflows?: {
    readonly owns: (key: string) => boolean;
    /**
     * Keys that hold one run's entry only: after that run stepped, the key gets no further turn
     * until it is notified again (a delay that comes due, a retry), which saves an empty claim per run.
     */
    readonly single?: (key: string) => boolean;
    /**
     * Workflow runs stepping at once, apart from `concurrency` (which then counts sources only). A
     * run spends most of its time waiting for the sandbox and for its checkpoints, one event-loop
     * turn each: with few runs in flight, HTTP requests take almost every turn and queued runs
     * barely move. Default: `concurrency`, shared with sources.
     */
    readonly concurrency?: number;
    /** `held`: what the process that created the run handed on with it (`reserve`), when it did. */
    readonly execute: (entry: QueuedInvocation, held?: Held) => Promise<void>;
    /** A run's entry became a dead letter: the run shows it (a retry of the dead letter resumes it). */
    readonly dead: (runId: string, error: string) => Promise<void>;
    /**
     * The queue entries of the workflow runs a source's events (after dedupe) start: committed in
     * the same transaction as the events, so an emitted event never misses its runs.
     */
    readonly runsForEvents: (sourceId: string, events: readonly string[]) => Promise<NewInvocation[]>;
  };
}

/** A run past this long moves to a long-run slot (RunnerOptions.longRunMs). */
export const DEFAULT_LONG_RUN_MS = 500;

/**
 * How long a source whose run was stopped for a delete or update waits for its word to go on
 * (InvocationRunner.notify) before the runner's re-reads of the queue give it turns again: longer
 * than an update waits for a run elsewhere to stop (STOPPED_ELSEWHERE_MS).
 */
const HELD_OFF_MS = 30_000;

/** The runner's safety-net re-read of the queue (RunnerOptions.rescanMs). */
export const DEFAULT_RESCAN_MS = 5000;

/** Event-loop utilisation above which the process counts as saturated (sampled every 100 ms). */
const SATURATED = 0.95;
/** While saturated, a source with a backlog waits this long between batches, so acknowledging requests goes first. */
const SATURATED_PAUSE_MS = 40;

/**
 * Runs the invocation queue. `enqueue` returns once the entry is durable, which is when the
 * ingress may answer 2xx. Entries leave the queue in the same `Store.commit` that stores their
 * results, and an entry stays queued while it runs, so a crash at any point leaves the invocation
 * queued: delivery is at least once, never zero. A platform failure (not the component's: the
 * commit failed, the worker could not start) is retried with backoff, then kept as a dead letter;
 * a component that throws or kills its worker has a result like any other.
 *
 * A source's backlog runs in batches: its oldest queued rows (up to `batchSize`) go to the worker
 * in one request, run in order, and commit in one transaction. Per-source order and every
 * invocation's own emits, logs, error and deadline stay as they were one by one, while the fixed
 * cost of a worker round trip and a commit is paid once per batch (docs/server.md, "How work flows").
 */
export class InvocationRunner<Held = never> {
  private readonly slots: RunSlots;
  /** Workflow runs running now, when `workflows.concurrency` counts them apart from the slots. */
  private readonly runsApart = new Set<string>();
  /** Sources that may have queued work, in the order they get a turn (round robin). */
  private readonly pending = new Set<string>();
  private readonly inFlight = new Set<Promise<void>>();
  /** Sources whose next N invocations run one by one: the rest of a batch that failed part way. */
  private readonly solo = new Map<string, number>();
  /**
   * Sources whose run was stopped for a delete or update under way, until when they get no turn
   * unless notified (HELD_OFF_MS, a safety net should that word be lost).
   */
  private readonly heldOff = new Map<string, number>();
  /** How to stop each source's run in flight (stopRuns): one at most per source. */
  private readonly stoppers = new Map<string, Stopper>();
  /** Ends listening for stop requests from other processes (set while started). */
  private stopListening: Unsubscribe | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private timer: NodeJS.Timeout | undefined;
  private loadTimer: NodeJS.Timeout | undefined;
  private saturated = false;
  /** Creators waiting for a workflow run slot (`reserve` with a wait), first come, first served. */
  private readonly slotWaiters: SlotWaiter[] = [];
  /** The last slot freed while queued work was pending went to a waiter: the next goes to the queue. */
  private lastToWaiter = false;
  /** Sources pausing between batches while the process is saturated, until the given time. */
  private readonly pausedUntil = new Map<string, number>();
  private pauseTimer: NodeJS.Timeout | undefined;
  private scheduled = false;
  private stopped = true;
  /**
   * The shutdown grace ran out: runs still in flight are being stopped with their workers, and
   * nothing of them is committed or counted as a failure, so their entries stay queued as they are.
   */
  private abandoned = false;
  /** When an invocation last finished (a result committed, or a platform failure recorded). */
  private lastProgressAt: number;
  private readonly metrics: Metrics;

  constructor(private readonly options: RunnerOptions<Held>) {
    this.lastProgressAt = options.now();
    this.metrics = options.metrics ?? NO_METRICS;
    this.slots = new RunSlots({
      concurrency: options.concurrency,
      longRunMs: options.longRunMs ?? DEFAULT_LONG_RUN_MS,
      longRunSlots: options.longRunSlots ?? options.concurrency,
      onFreed: () => {
        if (this.slotWaiters.length > 0) this.handOff();
        this.wake();
      },
      now: options.now,
    });
  }

  /**
   * Whether the runner gets through its work: when it last finished an invocation (or started, if
   * none yet), and how many sources it is running now. Readiness compares it with the queue.
   */
  progress(): {
    readonly lastProgressAt: number;
    readonly running: number;
    readonly stopped: boolean;
    readonly slots: SlotsSnapshot;
  } {
    const slots = this.slots.snapshot();
    return {
      lastProgressAt: this.lastProgressAt,
      running: slots.running.length + this.runsApart.size,
      stopped: this.stopped,
      slots,
    };
  }

  async start(): Promise<void> {
    for (const sourceId of await this.options.queue.sourcesWithWork()) this.pending.add(sourceId);
    this.stopped = false;
    await this.options.dispatch?.listen((sourceIds) => this.add(sourceIds, { resume: true }));
    // A delete answered by another process (an api one) stops this process's run of the source too.
    this.stopListening = await this.options.pubsub.subscribeStopRuns(
      (request) => void this.stopRuns(request.sourceId, request.because),
    );
    this.lastProgressAt = this.options.now();
    // A safety net: re-read which sources have queued rows now and then, whatever queued them.
    this.timer = setInterval(() => void this.rescan(), this.options.rescanMs ?? DEFAULT_RESCAN_MS);
    this.timer.unref();
    await this.armRetryTimer();
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

  /**
   * Stops taking work at once and waits for invocations in flight, up to `graceMs`; queued ones
   * stay for the next start. Resolves with how many runs were still in flight when the grace ran
   * out: from then on none of them commits anything (their entries stay queued, attempts
   * unchanged), and the caller stops their workers, then awaits `settled()`.
   */
  async stop(graceMs = Number.POSITIVE_INFINITY): Promise<number> {
    this.stopped = true;
    // Their creators queue their runs instead; the next start claims them.
    for (const waiter of this.slotWaiters.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.resolve(false);
    }
    clearInterval(this.timer);
    clearInterval(this.loadTimer);
    clearTimeout(this.pauseTimer);
    clearTimeout(this.retryTimer);
    const all = Promise.allSettled([...this.inFlight]);
    if (Number.isFinite(graceMs)) {
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<true>((resolve) => (timer = setTimeout(() => resolve(true), graceMs)));
      const over = await Promise.race([all.then(() => false), graceOver]);
      clearTimeout(timer);
      if (over && this.inFlight.size > 0) {
        this.abandoned = true;
        return this.inFlight.size;
      }
    } else await all;
    this.unlistenStops();
    this.slots.clear();
    return 0;
  }

  /** Kept through the shutdown grace: a delete meanwhile still stops the run it would wait for. */
  private unlistenStops(): void {
    this.stopListening?.();
    this.stopListening = undefined;
  }

  /**
   * Stops the source's run in flight in this process, if any, as its source is deleted or updated:
   * its worker call ends at once (a worker it shares with other sources restarts; their calls
   * queued on it go to another worker), and nothing of it is committed or counted (no attempt, no
   * dead letter). Its entries stay queued for whoever holds the source's lock next: a delete removes
   * them, an update (or a refused delete) gives them their turn back (`notify`). Called by the
   * delete or update in its own process, and for each stop request on `pubsub` from any process.
   * Returns whether a run was stopped.
   */
  stopRuns(sourceId: string, because: StopReason = 'deleted'): boolean {
    const stopper = this.stoppers.get(sourceId);
    if (!stopper || stopper.aborted) return false;
    this.options.logger.info(
      { source_id: sourceId },
      `the run of ${sourceId} in flight was stopped: ${stopWhy(because)}`,
    );
    stopper.abort(new RunStopped(sourceId, because));
    // Its entries wait for the delete or update (maybe another process's, which the lock does not
    // hold back) until it says so (`notify`), not for this runner's next turn, which would start
    // them again on the old code before the update could take the source's claim.
    const now = Date.now();
    // Sources deleted meanwhile never come back to lift theirs: expired ones go here.
    for (const [held, until] of this.heldOff) if (until <= now) this.heldOff.delete(held);
    this.heldOff.set(sourceId, now + HELD_OFF_MS);
    this.pending.delete(sourceId);
    return true;
  }

  /** Whether a run of this source (or workflow queue key) is in flight in this process. */
  runsHere(sourceId: string): boolean {
    return this.stoppers.has(sourceId);
  }

  /** Resolves once no run is in flight (after `stop` left some and their workers were stopped). */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    this.unlistenStops();
    this.slots.clear();
  }

  /** Re-reads which sources have queued work (a safety net, and after a backoff ran out). */
  async rescan(): Promise<void> {
    try {
      this.add(await this.options.queue.sourcesWithWork());
    } catch (error) {
      this.options.logger.warn(
        {},
        `reading the invocation queue failed (trying again shortly): ${errorMessage(error)}`,
      );
    }
  }

  /** Wakes the runner when the first invocation backing off becomes due. */
  private async armRetryTimer(): Promise<void> {
    const next = await this.options.queue.nextRetryAt();
    if (next === null || this.stopped) return;
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => void this.rescan(), Math.max(1, next - this.options.now()));
    this.retryTimer.unref();
  }

  /**
   * Queues an invocation; resolves once it is durable (so the ingress may answer 2xx), and rejects
   * if that fails.
   */
  async enqueue(input: {
    readonly sourceId: string;
    readonly trigger: Trigger;
    readonly event: unknown;
  }): Promise<string> {
    const id = newId('inv');
    await this.options.queue.enqueue([
      {
        id,
        sourceId: input.sourceId,
        trigger: input.trigger,
        event: JSON.stringify(input.event ?? null),
        createdAt: this.options.now(),
      },
    ]);
    this.notify([input.sourceId]);
    return id;
  }

  /** Work was queued durably for these sources (by the scheduler, a commit, a retry of a dead letter). */
  notify(sourceIds: readonly string[]): void {
    if (sourceIds.length === 0) return;
    this.add(sourceIds, { resume: true });
    this.options.dispatch?.announce(sourceIds);
  }

  /**
   * A slot for a workflow run this process is about to create under a key of its own
   * (`workflows.single`), so the run steps here at once from what its creator holds in memory: no
   * claim reads its entry back, no run record is read, and other processes are not woken for it
   * (decision 0020). Null when the key is not such a key or no slot is free now: the creator
   * stores the run as queued and calls `notify`, as before. The creator calls `start` once the run
   * and its entry are durable, or `cancel` if storing them failed.
   */
  reserve(key: string): HeldSlot<Held> | null {
    const workflows = this.options.workflows;
    if (this.stopped || workflows?.single?.(key) !== true || this.full(true)) return null;
    if (this.slots.has(key) || this.runsApart.has(key)) return null;
    this.takeSlot(key, true);
    return this.heldSlot(key);
  }

  /**
   * `reserve`, waiting up to `waitMs` for a slot when none is free (decision 0021): a trigger that
   * comes faster than runs finish is acknowledged as its run starts, instead of piling up a
   * backlog that its own acknowledgements keep from draining. Null when the key is not such a key,
   * the wait ran out, the runner stopped, or `maxWaiting` creators wait already: the creator then
   * queues the run and answers at once, as before.
   */
  async reserveWaiting(key: string, waitMs: number, maxWaiting: number): Promise<HeldSlot<Held> | null> {
    const now = this.reserve(key);
    if (now || this.stopped || waitMs <= 0 || this.slotWaiters.length >= maxWaiting) return now;
    if (this.options.workflows?.single?.(key) !== true || this.slots.has(key) || this.runsApart.has(key)) return null;
    const given = await new Promise<boolean>((resolve) => {
      const waiter: SlotWaiter = {
        key,
        resolve,
        timer: setTimeout(() => {
          const at = this.slotWaiters.indexOf(waiter);
          if (at >= 0) this.slotWaiters.splice(at, 1);
          resolve(false);
        }, waitMs),
      };
      this.slotWaiters.push(waiter);
    });
    return given ? this.heldSlot(key) : null;
  }

  /**
   * Gives freed workflow run slots to the creators waiting for one. While queued work is pending,
   * every other slot is left to the pump, so waiting triggers cannot starve the queue.
   */
  private handOff(): void {
    while (this.slotWaiters.length > 0 && !this.stopped && !this.full(true)) {
      if (this.pending.size > 0 && this.lastToWaiter) {
        this.lastToWaiter = false;
        return;
      }
      const waiter = this.slotWaiters.shift() as SlotWaiter;
      clearTimeout(waiter.timer);
      this.takeSlot(waiter.key, true);
      this.lastToWaiter = true;
      waiter.resolve(true);
    }
  }

  private heldSlot(key: string): HeldSlot<Held> {
    let settled = false;
    return {
      start: (entry, held) => {
        if (settled) return;
        settled = true;
        void this.startHeld(key, entry, held);
      },
      cancel: () => {
        if (settled) return;
        settled = true;
        this.doneRunning(key);
        this.wake();
      },
    };
  }

  private async startHeld(key: string, entry: QueuedInvocation, held: Held): Promise<void> {
    let holding = false;
    try {
      holding = await this.options.queue.hold(key);
    } catch (error) {
      this.options.logger.warn(
        this.idsOf(key, entry.id),
        `claiming run ${entry.id} failed (it waits for the next claim): ${errorMessage(error)}`,
      );
    }
    if (!holding || this.stopped) {
      // Stopped meanwhile: the entry stays queued for the next start. Not held: another claimer
      // (a process that rescanned the queue) has it, or the claim failed and a rescan finds it.
      if (holding) await this.options.queue.release(key).catch(() => undefined);
      this.doneRunning(key);
      if (!holding && !this.stopped) this.add([key]);
      else this.wake();
      return;
    }
    this.run(key, [entry], 1, held);
  }

  /**
   * Gives these sources a turn in this process. `resume`: work was queued or given back (not a
   * re-read of the queue), which ends a hold-off.
   */
  private add(sourceIds: readonly string[], options: { readonly resume?: boolean } = {}): void {
    for (const sourceId of sourceIds) {
      if (options.resume) this.heldOff.delete(sourceId);
      this.pending.add(sourceId);
    }
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
    // Each source with work gets a turn in order, its oldest entry first: one source's backlog
    // cannot hide another's work, and entries of one source stay first in, first out.
    const now = Date.now();
    let firstResume = Number.POSITIVE_INFINITY;
    for (const sourceId of [...this.pending]) {
      const workflow = this.options.workflows?.owns(sourceId) === true;
      if (this.full(workflow)) {
        if (this.full(!workflow)) break;
        continue;
      }
      if (this.slots.has(sourceId) || this.runsApart.has(sourceId)) continue;
      const heldOff = this.heldOff.get(sourceId);
      if (heldOff !== undefined) {
        if (heldOff > now) {
          this.pending.delete(sourceId);
          continue;
        }
        this.heldOff.delete(sourceId);
      }
      const until = this.pausedUntil.get(sourceId);
      if (until !== undefined) {
        if (until > now) {
          firstResume = Math.min(firstResume, until);
          continue;
        }
        this.pausedUntil.delete(sourceId);
      }
      this.pending.delete(sourceId);
      // Reserved before the claim resolves, so a pump running meanwhile neither takes this source
      // nor more slots than `concurrency`.
      this.takeSlot(sourceId, workflow);
      const one = (this.solo.get(sourceId) ?? 0) > 0 || workflow;
      const limit = one ? 1 : Math.max(1, this.options.batchSize ?? MAX_BATCH_ITEMS);
      let rows: QueuedInvocation[] = [];
      try {
        rows = await this.options.queue.claim(sourceId, limit);
      } catch (error) {
        this.options.logger.warn(
          this.idsOf(sourceId),
          `claiming invocations of ${sourceId} failed (trying again shortly): ${errorMessage(error)}`,
        );
      }
      if (rows.length === 0 || this.stopped) {
        // Stopped while claiming: the claimed entries stay queued for the next start.
        if (rows.length > 0) await this.options.queue.release(sourceId).catch(() => undefined);
        this.doneRunning(sourceId);
        continue;
      }
      this.run(sourceId, rows, limit);
    }
    if (firstResume !== Number.POSITIVE_INFINITY) this.wakeAfterPause(firstResume - now);
  }

  private run(sourceId: string, rows: readonly QueuedInvocation[], limit: number, held?: Held): void {
    // Registered before the lock is awaited: a delete that comes meanwhile stops this run before it starts.
    const stopper = new Stopper();
    this.stoppers.set(sourceId, stopper);
    const work = this.execute(sourceId, rows, stopper, held).finally(async () => {
      if (this.stoppers.get(sourceId) === stopper) this.stoppers.delete(sourceId);
      // A customResponse caller of a run stopped by a delete gets its answer now, not at its own
      // timeout; one stopped by an update waits on for the answer of the invocation's run again.
      if (stopper.aborted && !stoppedByUpdate(stopper.reason)) for (const row of rows) this.respond(row.id, null);
      await this.options.queue.release(sourceId).catch(() => undefined);
      this.doneRunning(sourceId);
      // Only a source with a backlog (its claim came back full) waits: one that keeps up with its
      // arrivals would gain no fuller batches from a pause, only latency.
      if (this.saturated && rows.length >= limit) this.pausedUntil.set(sourceId, Date.now() + SATURATED_PAUSE_MS);
      // Back of the line: it may have more queued (checked on its next turn). Not a source whose
      // run was stopped: its delete or update is under way, a delete maybe in another process
      // whose lock does not hold this one back, and a turn now would run the entries it is about
      // to remove or to run with the new code; the update, or a refused delete, gives the source
      // its turn back (`notify`, SourceService's `resumeRuns`).
      if (this.options.workflows?.single?.(sourceId) !== true && !stopper.aborted) this.pending.add(sourceId);
      this.inFlight.delete(work);
      this.wake();
    });
    this.inFlight.add(work);
  }

  /**
   * Whether no more sources (or, with `workflow`, workflow runs) may start now. With
   * `workflows.concurrency` set, workflow runs are counted apart and take no regular slot.
   */
  private full(workflow: boolean): boolean {
    const runsApart = this.options.workflows?.concurrency;
    if (workflow && runsApart !== undefined) return this.runsApart.size >= runsApart;
    return this.slots.free === 0;
  }

  private takeSlot(key: string, workflow: boolean): void {
    if (workflow && this.options.workflows?.concurrency !== undefined) this.runsApart.add(key);
    else this.slots.take(key);
  }

  private doneRunning(key: string): void {
    if (!this.runsApart.delete(key)) this.slots.release(key);
    if (this.slotWaiters.length > 0) this.handOff();
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

  private async execute(
    sourceId: string,
    queued: readonly QueuedInvocation[],
    stopper: Stopper,
    held?: Held,
  ): Promise<void> {
    const { executor, components, locks, store, queue } = this.options;
    const rows = queued;
    try {
      const workflows = this.options.workflows;
      if (workflows?.owns(sourceId)) {
        for (const row of rows) {
          const started = performance.now();
          await workflows.execute(row, held);
          const seconds = (performance.now() - started) / 1000;
          this.finished('workflow', 'success', seconds);
          this.options.logger.debug({ run_id: row.id, ms: Math.round(seconds * 1000) }, 'workflow run stepped');
        }
        return;
      }
      const signal = stopper.signal;
      await locks.run(sourceId, async () => {
        if (signal.aborted) return;
        const source = await store.getSource(sourceId);
        if (!source) {
          await queue.drop(rows.map((row) => row.id));
          return;
        }
        const component = await components.get(source.component_id);
        const handle = await executor.handle(component, OWNER_ID);
        const first = rows[0];
        if (rows.length === 1 && first) {
          await this.runOne(source, handle, first, signal);
          return;
        }
        const results = await executor.invokeBatch({
          handle,
          source,
          events: rows.map((row) => JSON.parse(row.event) as unknown),
          state: await store.readState(source.id),
          // A customResponse caller gets its own item's http.respond() as the item runs, not after the batch.
          onRespond: (item, response) => {
            const row = rows[item];
            if (row) this.respond(row.id, response);
          },
          signal,
        });
        if (this.abandoned || signal.aborted) return;
        const done = rows.slice(0, results.length);
        const last = results.at(-1);
        if (!last) throw new Error('the worker returned no result for a batch');
        const built = await executor.buildCommit({
          sourceId,
          invocationId: null,
          invocationIds: done.map((row) => row.id),
          results,
          state: last.state,
        });
        // The entries that ran leave in the transaction that stores their results; the rest stay queued.
        const enqueue = await this.workflowRuns(sourceId, built.commit.events);
        const logIds = await store.commit(built.commit, { dequeue: done.map((row) => row.id), enqueue });
        this.notify(enqueue.map((entry) => entry.sourceId));
        await executor.publish(sourceId, executor.committed(built, logIds));
        for (const [index, row] of done.entries()) this.respond(row.id, results[index]?.response ?? null);
        for (const [index, result] of results.entries()) this.sourceFinished(sourceId, done[index]?.id ?? '', result);
        // The worker failed part way: the invocations it did not reach run one by one next, so a
        // failure that builds up over a batch cannot take a neighbour down with it.
        if (done.length < rows.length) this.solo.set(sourceId, rows.length - done.length);
      });
    } catch (error) {
      // Stopped by the shutdown or a delete, not failed: the entries stay queued as they were.
      if (this.abandoned || stopper.aborted) return;
      if (await this.deletedMeanwhile(sourceId)) {
        // Deleted by another process whose stop request this one missed: its results were refused
        // (the source is gone), as they would have been discarded had the stop arrived; nothing
        // failed, and there is no one to retry for.
        this.options.logger.info(
          this.idsOf(sourceId),
          `the run of ${sourceId} ended after its source was deleted: nothing of it was kept`,
        );
        for (const row of rows) this.respond(row.id, null);
        await this.options.queue.drop(rows.map((row) => row.id)).catch(() => undefined);
        return;
      }
      const message = errorMessage(error);
      if (rows.length > 1) {
        // A platform failure of a batch: nothing of it committed; its invocations are retried one
        // by one (no attempt counted yet: the one to blame is not known).
        this.options.logger.warn(
          this.idsOf(sourceId),
          `a batch of ${rows.length} invocations of ${sourceId} failed in the platform (retrying them one by one): ${message}`,
        );
        this.solo.set(sourceId, rows.length);
        return;
      }
      for (const row of rows) await this.failed(row, message);
    }
  }

  /** Whether `sourceId` is a source that no longer exists (a workflow's queue key never is). */
  private async deletedMeanwhile(sourceId: string): Promise<boolean> {
    if (this.options.workflows?.owns(sourceId)) return false;
    try {
      return (await this.options.store.getSource(sourceId)) === undefined;
    } catch {
      // The store cannot tell: a platform failure, handled as such.
      return false;
    }
  }

  /** A platform failure (not the component's) of one invocation: retried after a backoff, then a dead letter. */
  private async failed(row: QueuedInvocation, message: string): Promise<void> {
    const ids = this.idsOf(row.sourceId, row.id);
    this.options.logger.warn(ids, `invocation ${row.id} of ${row.sourceId} failed in the platform: ${message}`);
    this.respond(row.id, null);
    const workflow = this.options.workflows?.owns(row.sourceId) === true;
    this.finished(workflow ? 'workflow' : 'source', 'platform_failure', null);
    if (!workflow)
      this.options.onFailed?.({
        kind: 'source',
        sourceId: row.sourceId,
        invocationId: row.id,
        code: 'PLATFORM',
        message,
        at: this.options.now(),
      });
    let outcome;
    try {
      outcome = await this.options.queue.fail(row.id, message);
    } catch (error) {
      // Not even the failure could be recorded: the entry stays queued and runs again.
      this.options.logger.error(ids, `recording the failure of invocation ${row.id} failed: ${errorMessage(error)}`);
      return;
    }
    switch (outcome.kind) {
      case 'retry':
        this.options.logger.info(
          ids,
          `invocation ${row.id} retries (attempt ${outcome.attempts + 1}) after ${outcome.notBefore - this.options.now()} ms`,
        );
        this.options.dispatch?.announce([row.sourceId], Math.max(1, outcome.notBefore - this.options.now()));
        await this.armRetryTimer().catch(() => undefined);
        return;
      case 'dead':
        this.options.logger.error(
          ids,
          `invocation ${row.id} of ${row.sourceId} failed ${outcome.attempts} times and is now a dead letter (GET /v1/dead-letters/${row.id})`,
        );
        if (this.options.workflows?.owns(row.sourceId))
          await this.options.workflows.dead(row.id, message).catch(() => undefined);
        return;
      case 'gone':
        return;
      default:
        outcome satisfies never;
    }
  }

  /** One invocation on its own: a customResponse source, a batch of one, or a retry after a failed batch. */
  private async runOne(
    source: SourceRow,
    handle: ComponentHandle,
    row: QueuedInvocation,
    signal: AbortSignal,
  ): Promise<void> {
    const { executor, store } = this.options;
    const soloLeft = this.solo.get(source.id) ?? 0;
    if (soloLeft > 1) this.solo.set(source.id, soloLeft - 1);
    else this.solo.delete(source.id);
    const result = await executor.invoke({
      handle,
      source,
      kind: 'run',
      state: await store.readState(source.id),
      event: JSON.parse(row.event) as unknown,
      onRespond: (response) => this.respond(row.id, response),
      signal,
    });
    if (this.abandoned || signal.aborted) return;
    const built = await executor.buildCommit({
      sourceId: source.id,
      invocationId: row.id,
      results: [result],
      state: result.state,
    });
    // The queue entry leaves in the same transaction that stores the results: at least once, never lost.
    const enqueue = await this.workflowRuns(source.id, built.commit.events);
    const logIds = await store.commit(built.commit, { dequeue: [row.id], enqueue });
    this.notify(enqueue.map((entry) => entry.sourceId));
    await executor.publish(source.id, executor.committed(built, logIds));
    this.respond(row.id, result.response);
    this.sourceFinished(source.id, row.id, result);
  }

  private sourceFinished(
    sourceId: string,
    invocationId: string,
    result: {
      readonly ok: boolean;
      readonly error: { readonly code?: string; readonly message: string } | null;
      readonly durationMs: number;
    },
  ): void {
    const outcome = outcomeOf(result);
    this.finished('source', outcome, result.durationMs / 1000);
    this.options.logger.debug(
      { source_id: sourceId, invocation_id: invocationId, outcome, ms: result.durationMs },
      'invocation finished',
    );
    if (!result.ok)
      this.options.onFailed?.({
        kind: 'source',
        sourceId,
        invocationId,
        code: result.error?.code ?? 'ERROR',
        message: result.error?.message ?? 'the invocation failed',
        at: this.options.now(),
      });
  }

  /** The ids a line about a queue key is about: a source's invocation, or a workflow run's entry. */
  private idsOf(key: string, entryId?: string): LogFields {
    if (this.options.workflows?.owns(key)) return { queue_key: key, ...(entryId ? { run_id: entryId } : {}) };
    return { source_id: key, ...(entryId ? { invocation_id: entryId } : {}) };
  }

  private finished(kind: 'source' | 'workflow', outcome: InvocationOutcome, seconds: number | null): void {
    this.lastProgressAt = this.options.now();
    this.metrics.invocationFinished({ kind, outcome, seconds });
  }

  /** Queue entries of the workflow runs these committed events start (none without workflows). */
  private async workflowRuns(
    sourceId: string,
    events: readonly { readonly event: string }[],
  ): Promise<NewInvocation[]> {
    if (events.length === 0 || !this.options.workflows) return [];
    return this.options.workflows.runsForEvents(
      sourceId,
      events.map((event) => event.event),
    );
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

/** A creator waiting for a workflow run slot (InvocationRunner.reserveWaiting). */
interface SlotWaiter {
  readonly key: string;
  /** True: the slot is taken for `key`. False: the wait ran out or the runner stopped. */
  readonly resolve: (given: boolean) => void;
  readonly timer: NodeJS.Timeout;
}

/** A runner slot reserved for a workflow run its creator is storing (InvocationRunner.reserve). */
export interface HeldSlot<Held> {
  /** The run and its entry are durable: step it now, from `held`. */
  start(entry: QueuedInvocation, held: Held): void;
  /** Storing the run failed: the slot is free again. */
  cancel(): void;
}

function stoppedByUpdate(reason: unknown): boolean {
  return reason instanceof RunStopped && reason.because === 'updated';
}
