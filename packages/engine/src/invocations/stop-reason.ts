/** Why a source's run in flight is stopped before it ends (InvocationRunner.stopRuns). */
export type StopReason = 'deleted' | 'updated';

/** The end of the runner's log line about a stopped run, which says what becomes of its invocations. */
export function stopWhy(because: StopReason): string {
  switch (because) {
    case 'deleted':
      return 'the source is being deleted';
    case 'updated':
      return 'the source is being updated; its invocation runs again with the update applied';
    default: {
      const never: never = because;
      return never;
    }
  }
}

/** The reason a stopped run's signal aborts with: says why, for what the runner does afterwards. */
export class RunStopped extends Error {
  constructor(
    sourceId: string,
    readonly because: StopReason,
  ) {
    super(`the run of ${sourceId} was stopped: ${stopWhy(because)}`);
  }
}
