/** What one transaction of due ticks did: the sources whose tick was queued, and those merged. */
export interface QueuedTicks {
  readonly queued: string[];
  /**
   * Sources whose tick came while their previous timer tick was still queued or running: the fire
   * time moved on and no entry was added (the queued one stands for both).
   */
  readonly merged: string[];
}

/**
 * Counts the timer ticks merged into one still queued or running, per source, and logs each with
 * the count so far in this process: a 15 s timer whose run takes 25 s skips every other tick, and
 * the log says so instead of the queue growing without bound.
 */
export class TickMerges {
  private readonly counts = new Map<string, number>();

  constructor(private readonly log: (message: string) => void) {}

  record(merged: readonly string[]): void {
    for (const sourceId of merged) {
      const count = (this.counts.get(sourceId) ?? 0) + 1;
      this.counts.set(sourceId, count);
      this.log(
        `timer tick of ${sourceId} merged into its previous tick, still queued or running (${count} skipped since this process started)`,
      );
    }
  }

  /** Ticks of `sourceId` merged so far in this process. */
  skipped(sourceId: string): number {
    return this.counts.get(sourceId) ?? 0;
  }
}
