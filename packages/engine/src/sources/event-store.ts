/** The event bin and the log keep this many entries per source (contract §10). */
export const EVENT_BIN_SIZE = 100;
export const LOG_SIZE = 100;

/**
 * Time-ordered event ids `<indexed_at_ms>-<n>` (contract §4.2): n counts events indexed in the
 * same millisecond, so ids sort in commit order.
 */
export class EventIds {
  private lastMs = 0;
  private n = 0;

  next(now: number): { id: string; ms: number } {
    const ms = Math.max(now, this.lastMs);
    this.n = ms === this.lastMs ? this.n + 1 : 0;
    this.lastMs = ms;
    return { id: `${ms}-${this.n}`, ms };
  }
}
