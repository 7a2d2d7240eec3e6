export interface RunSlotsOptions {
  /** Runs at once in the regular slots, across sources (one per source: its lane). */
  readonly concurrency: number;
  /** A run holding a regular slot this long moves to a long-run slot when one is free. */
  readonly longRunMs: number;
  /** Slots for runs past `longRunMs`, beside the regular ones (0: long runs keep their slot). */
  readonly longRunSlots: number;
  /** A regular slot came free because its run moved to a long-run slot: the runner may start more. */
  readonly onFreed: () => void;
  readonly now: () => number;
}

/** What the slots hold now: for readiness, which asks whether due work can start. */
export interface SlotsSnapshot {
  /** Queue keys (sources, workflow run keys) running now, in either kind of slot. */
  readonly running: readonly string[];
  /** Of those, the ones in long-run slots. */
  readonly long: readonly string[];
  /** No run can start now: every regular slot is taken. */
  readonly full: boolean;
}

interface Held {
  readonly startedAt: number;
  timer: NodeJS.Timeout | undefined;
}

/**
 * The runner's slots, so that slow or hanging code cannot stop other sources (issue 14,
 * docs/decisions/0013-runs-that-hang.md): a run that has held a regular slot for `longRunMs` moves
 * to one of `longRunSlots` extra slots and frees its regular one for the next source in turn. Most
 * runs take milliseconds and never move; a run that hangs until its deadline holds a long-run slot,
 * so four hanging sources cost four long-run slots, not the whole runner. When the long-run slots
 * are taken too, a run past `longRunMs` keeps its regular slot (the total stays bounded) and moves
 * when a long-run slot comes free.
 */
export class RunSlots {
  private readonly regular = new Map<string, Held>();
  private readonly long = new Map<string, number>();

  constructor(private readonly options: RunSlotsOptions) {}

  /** Regular slots free now (a new run needs one). */
  get free(): number {
    return Math.max(0, this.options.concurrency - this.regular.size);
  }

  has(key: string): boolean {
    return this.regular.has(key) || this.long.has(key);
  }

  /** Takes a regular slot for `key`; the caller checked `free` and that `key` holds none. */
  take(key: string): void {
    const held: Held = { startedAt: this.options.now(), timer: undefined };
    this.regular.set(key, held);
    this.armMove(key, held, this.options.longRunMs);
  }

  /** The run of `key` ended: its slot, regular or long, is free. */
  release(key: string): void {
    const held = this.regular.get(key);
    if (held) {
      clearTimeout(held.timer);
      this.regular.delete(key);
      return;
    }
    if (!this.long.delete(key)) return;
    // A long-run slot came free: the longest-running run past the threshold in a regular slot moves.
    const now = this.options.now();
    let oldest: [string, Held] | undefined;
    for (const entry of this.regular)
      if (now - entry[1].startedAt >= this.options.longRunMs && (!oldest || entry[1].startedAt < oldest[1].startedAt))
        oldest = entry;
    if (oldest) this.move(oldest[0], oldest[1]);
  }

  snapshot(): SlotsSnapshot {
    return {
      running: [...this.regular.keys(), ...this.long.keys()],
      long: [...this.long.keys()],
      full: this.free === 0,
    };
  }

  /** Forgets every timer (the runner stopped). */
  clear(): void {
    for (const held of this.regular.values()) clearTimeout(held.timer);
  }

  private armMove(key: string, held: Held, ms: number): void {
    if (this.options.longRunSlots <= 0) return;
    held.timer = setTimeout(() => {
      held.timer = undefined;
      if (this.regular.get(key) === held) this.move(key, held);
    }, ms);
    held.timer.unref();
  }

  private move(key: string, held: Held): void {
    if (this.long.size >= this.options.longRunSlots) return;
    clearTimeout(held.timer);
    this.regular.delete(key);
    this.long.set(key, held.startedAt);
    this.options.onFreed();
  }
}
