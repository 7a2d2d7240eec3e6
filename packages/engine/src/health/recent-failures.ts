/** One source invocation that did not succeed: the component's error, a sandbox limit, or the platform's failure. */
export interface SourceFailure {
  readonly kind: 'source';
  readonly sourceId: string;
  readonly invocationId: string;
  /** The error code (`TIMEOUT`, `CRASHED`, the component's own…), or `PLATFORM` for a platform failure. */
  readonly code: string;
  readonly message: string;
  readonly at: number;
}

/** One workflow run that failed: at a step (its error, or an expression of its props), or in the platform. */
export interface WorkflowFailure {
  readonly kind: 'workflow';
  readonly workflowId: string;
  readonly runId: string;
  /** The step it failed at; null when the platform gave up on the run (a dead letter). */
  readonly step: string | null;
  readonly code: string;
  readonly message: string;
  readonly at: number;
}

export type RecentFailure = SourceFailure | WorkflowFailure;

/**
 * The last few failed source invocations and workflow runs of this process, newest first, for the
 * status page. Kept in memory on purpose: it is a glance at what just went wrong, not a record (the
 * logs of each source, the stored runs and the dead letters are the record, and survive restarts).
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
