export interface KillStreamOptions {
  readonly runs: number;
  readonly kills: number;
  readonly drainMs?: number;
  readonly log?: (message: string) => void;
  /** Given the clean-up (stop the process, remove the scratch folder), for a signal handler. */
  readonly onCleanup?: (cleanup: () => Promise<void>) => void;
}

export interface KillStreamResult {
  /** Requests the workflow's endpoint answered 200: each is owed one succeeded run. */
  readonly acknowledged: number;
  /** Requests refused or cut off by a kill (not owed a run). */
  readonly refused: number;
  readonly kills: number;
  readonly runsStored: number;
  /** Acknowledged requests without a run. */
  readonly lost: number;
  /** Acknowledged requests whose run had not finished when the drain ended. */
  readonly notFinished: number;
  readonly failed: number;
  /** Acknowledged requests with more than one run. */
  readonly duplicates: number;
  readonly streamMs: number;
  readonly runsPerSecond: number;
  readonly drainAfterStreamMs: number;
}

export function runKillStream(options: KillStreamOptions): Promise<KillStreamResult>;
