/** One invocation that did not succeed: the component's error, a sandbox limit, or the platform's failure. */
export interface RecentFailure {
  readonly sourceId: string;
  readonly invocationId: string;
  /** The error code (`TIMEOUT`, `CRASHED`, the component's own…), or `PLATFORM` for a platform failure. */
  readonly code: string;
  readonly message: string;
  readonly at: number;
}

/**
 * The last few failed invocations of this process, newest first, for the status page. Kept in
 * memory on purpose: it is a glance at what just went wrong, not a record (the logs of each source
 * and the dead letters are the record, and survive restarts).
 */
export class RecentFailures {
  private readonly entries: RecentFailure[] = [];

  constructor(private readonly capacity = 20) {}

  record(failure: RecentFailure): void {
    this.entries.unshift(failure);
    if (this.entries.length > this.capacity) this.entries.length = this.capacity;
  }

  list(): readonly RecentFailure[] {
    return [...this.entries];
  }
}
