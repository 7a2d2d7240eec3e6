import { AppError } from '@tributary/contracts';
import type { WorkerProcess } from './worker-process.js';

export interface WorkerPoolOptions {
  /** Workers kept at most across all groups; past it the least recently used idle one is stopped. */
  readonly maxWorkers: number;
  /** Workers one group may use at once: a group starts another only while all of its are busy. */
  readonly maxWorkersPerGroup: number;
  /** A worker unused this long is stopped. */
  readonly idleMs: number;
  /**
   * A group's workers other than its most recently used one are stopped after this much idleness:
   * they were started for a burst (deploys, overlapping invocations) and hold a process each.
   */
  readonly spareIdleMs: number;
  /** A worker that has loaded this many components takes no new work and stops once idle. */
  readonly maxComponentsPerWorker: number;
  /** Likewise past this resident memory, well before the memory cap would kill it mid-invocation. */
  readonly retireRssBytes: number;
  /**
   * How long a request waits for a busy worker of its group to come free before another worker
   * (a spare, or a new one) takes it: most invocations take a few milliseconds, so short overlaps
   * stay on one warm worker and spares are started and kept only for real parallel work.
   */
  readonly overflowWaitMs: number;
}

/** A worker reserved for one request, with the component loaded in it. */
export interface Lease<T> {
  readonly worker: WorkerProcess;
  readonly loaded: T;
  /** Ends the reservation; the worker may then serve another request or be stopped. */
  release(): void;
}

/** How to get a component into a worker, and how to start a worker for its group. */
export interface SlotRequest<T> {
  readonly group: string;
  /** Names the loaded component inside a worker (its code and validation purpose). */
  readonly slot: string;
  readonly load: (worker: WorkerProcess) => Promise<T>;
  readonly start: () => Promise<WorkerProcess>;
}

/** One worker of a group and what the host knows it holds. */
class Member<T> {
  worker: WorkerProcess | null = null;
  readonly ready: Promise<WorkerProcess>;
  readonly slots = new Map<string, Promise<T>>();
  /** What each slot's load reported, once settled: shared with the group's other workers. */
  readonly values = new Map<string, T>();
  leases = 0;
  lastUsedAt = Date.now();
  retiring = false;

  constructor(start: () => Promise<WorkerProcess>) {
    this.ready = start().then((worker) => (this.worker = worker));
  }

  /** A worker still starting counts as alive: requests wait for it. */
  get alive(): boolean {
    return this.worker === null || this.worker.isAlive;
  }
}

/**
 * Warm workers by group (an owner, or one component in dedicated placement), each holding any
 * number of that group's components. A request goes to an idle worker of its group that already
 * holds its component, else to any idle one (which loads it: milliseconds, against ~80 ms for a
 * new process); when all are busy it waits up to `overflowWaitMs` for one, then goes to a new
 * worker while the group is under its cap, else it queues on the least loaded. A dead worker is forgotten; requests that were queued on it and never sent run
 * elsewhere (the caller retries them), so a crash costs only the invocation that was running.
 */
export class WorkerPool<T> {
  private readonly groups = new Map<string, Set<Member<T>>>();
  /** Requests waiting for a worker of their group to come free, first come first served. */
  private readonly waiting = new Map<string, Set<() => void>>();
  private readonly sweeper: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly options: WorkerPoolOptions) {
    const every = Math.min(options.idleMs, options.spareIdleMs) / 4;
    this.sweeper = setInterval(() => this.sweep(), Math.max(1000, Math.floor(every)));
    this.sweeper.unref();
  }

  /** Live workers across all groups (starting ones included). */
  get size(): number {
    let total = 0;
    for (const members of this.groups.values()) total += members.size;
    return total;
  }

  /** Live workers, those holding a lease, and their resident memory together (at the last poll). */
  stats(): { readonly workers: number; readonly busy: number; readonly rssBytes: number } {
    let workers = 0;
    let busy = 0;
    let rssBytes = 0;
    for (const members of this.groups.values()) {
      for (const member of members) {
        workers += 1;
        if (member.leases > 0) busy += 1;
        rssBytes += member.worker?.rssBytes ?? 0;
      }
    }
    return { workers, busy, rssBytes };
  }

  async acquire(request: SlotRequest<T>): Promise<Lease<T>> {
    let member = this.pickIdle(request);
    if (!member && this.usable(request.group).some((candidate) => candidate.worker !== null)) {
      await this.nextRelease(request.group);
      member = this.pickIdle(request);
    }
    // Closed while this request waited: starting a worker now would outlive the sandbox.
    if (this.closed) throw new AppError('INTERNAL', 'the sandbox was closed');
    member ??= this.pickOverflow(request);
    member.leases += 1;
    try {
      const worker = await member.ready;
      let loading = member.slots.get(request.slot);
      if (!loading) {
        const into = member;
        loading = request.load(worker).then((value) => {
          // Every worker reports the same for the same slot: the host keeps one copy per group.
          const known = this.knownValue(request.group, request.slot) ?? value;
          into.values.set(request.slot, known);
          return known;
        });
        member.slots.set(request.slot, loading);
        // A load that failed is tried again by the next request, as a fresh start would.
        loading.catch(() => into.slots.delete(request.slot));
      }
      const loaded = await loading;
      let released = false;
      return {
        worker,
        loaded,
        release: () => {
          if (released) return;
          released = true;
          this.release(request.group, member);
        },
      };
    } catch (error) {
      this.release(request.group, member);
      throw error;
    }
  }

  /** Stops every worker of `group`, so the next request starts a fresh one. */
  dropGroup(group: string): void {
    for (const member of this.groups.get(group) ?? []) this.stop(group, member);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    const starting: Promise<unknown>[] = [];
    for (const [group, members] of this.groups) {
      for (const member of members) {
        starting.push(member.ready);
        this.stop(group, member);
      }
    }
    await Promise.allSettled(starting);
  }

  /** An idle, started worker of the group: one that holds the slot, else the most recently used. */
  private pickIdle(request: SlotRequest<T>): Member<T> | undefined {
    const idle = this.usable(request.group).filter((member) => member.leases === 0 && member.worker !== null);
    // The most recently used idle worker: one hot worker serves a quiet group, the others idle out.
    return idle.find((member) => member.slots.has(request.slot)) ?? idle.sort((a, b) => b.lastUsedAt - a.lastUsedAt)[0];
  }

  /** Every started worker is busy: one still starting, else a new one under the cap, else a queue. */
  private pickOverflow(request: SlotRequest<T>): Member<T> {
    const members = this.usable(request.group);
    const starting = members.find((member) => member.leases === 0 && member.worker === null);
    if (starting) return starting;
    if (members.length < this.options.maxWorkersPerGroup) return this.spawn(request);
    const score = (member: Member<T>) => member.leases - (member.slots.has(request.slot) ? 0.5 : 0);
    return members.reduce((best, member) => (score(member) < score(best) ? member : best));
  }

  /** Resolves when a worker of the group comes free, or after `overflowWaitMs`. */
  private nextRelease(group: string): Promise<void> {
    return new Promise((resolve) => {
      let queue = this.waiting.get(group);
      if (!queue) this.waiting.set(group, (queue = new Set()));
      const waiters = queue;
      const wake = (): void => {
        clearTimeout(timer);
        waiters.delete(wake);
        if (waiters.size === 0 && this.waiting.get(group) === waiters) this.waiting.delete(group);
        resolve();
      };
      const timer = setTimeout(wake, this.options.overflowWaitMs);
      waiters.add(wake);
    });
  }

  private knownValue(group: string, slot: string): T | undefined {
    for (const member of this.groups.get(group) ?? []) {
      const value = member.values.get(slot);
      if (value !== undefined) return value;
    }
    return undefined;
  }

  /** The group's workers that may take a request: alive and not retiring. Forgets dead ones. */
  private usable(group: string): Member<T>[] {
    const members = this.groups.get(group);
    if (!members) return [];
    for (const member of members) if (!member.alive) members.delete(member);
    return [...members].filter((member) => !member.retiring);
  }

  private spawn(request: SlotRequest<T>): Member<T> {
    this.makeRoom();
    const member = new Member<T>(request.start);
    let members = this.groups.get(request.group);
    if (!members) this.groups.set(request.group, (members = new Set()));
    members.add(member);
    member.ready.catch(() => this.forget(request.group, member));
    return member;
  }

  private release(group: string, member: Member<T>): void {
    member.leases -= 1;
    member.lastUsedAt = Date.now();
    const worker = member.worker;
    if (
      worker &&
      (member.slots.size >= this.options.maxComponentsPerWorker || worker.rssBytes > this.options.retireRssBytes)
    )
      member.retiring = true;
    if (member.retiring && member.leases === 0) this.stop(group, member);
    else if (member.leases === 0) this.waiting.get(group)?.values().next().value?.();
  }

  private stop(group: string, member: Member<T>): void {
    this.forget(group, member);
    if (member.worker) member.worker.kill('evicted');
    else void member.ready.then((worker) => worker.kill('evicted')).catch(() => undefined);
  }

  private forget(group: string, member: Member<T>): void {
    const members = this.groups.get(group);
    members?.delete(member);
    if (members?.size === 0) this.groups.delete(group);
  }

  /** Past the global cap, stops the least recently used idle worker of any group. */
  private makeRoom(): void {
    if (this.size < this.options.maxWorkers) return;
    let oldest: { group: string; member: Member<T> } | null = null;
    for (const [group, members] of this.groups) {
      for (const member of members) {
        if (member.leases > 0 || !member.worker) continue;
        if (!oldest || member.lastUsedAt < oldest.member.lastUsedAt) oldest = { group, member };
      }
    }
    if (oldest) this.stop(oldest.group, oldest.member);
  }

  private sweep(): void {
    const now = Date.now();
    for (const [group, members] of this.groups) {
      const byRecency = [...members].sort((a, b) => b.lastUsedAt - a.lastUsedAt);
      for (const [rank, member] of byRecency.entries()) {
        const limit = rank === 0 ? this.options.idleMs : this.options.spareIdleMs;
        if (!member.alive || (member.leases === 0 && member.worker && now - member.lastUsedAt > limit))
          this.stop(group, member);
      }
    }
  }
}
