import { createHash } from 'node:crypto';

/**
 * A workflow run's entry in the invocation queue goes under a key the queue serialises on (it is
 * the queue's `sourceId`). Unlimited runs each get a key of their own, so they run in parallel; a
 * concurrency limit of N spreads runs over N lanes of the workflow, each first in, first out.
 */
const RUN = 'wfrun:';
const LANE = 'wflane:';

export function queueKeyFor(workflowId: string, runId: string, concurrency: number | undefined): string {
  if (concurrency === undefined) return `${RUN}${runId}`;
  if (concurrency === 1) return `${LANE}${workflowId}:0`;
  const lane = createHash('sha256').update(runId).digest().readUInt32BE(0) % concurrency;
  return `${LANE}${workflowId}:${lane}`;
}

/** Whether a queue key belongs to a workflow run (sources' keys are `dc_` ids). */
export function isWorkflowKey(key: string): boolean {
  return key.startsWith(RUN) || key.startsWith(LANE);
}

/**
 * Whether a key holds one run's entry only (a workflow without a concurrency limit): once that run
 * has stepped, the key has no more work unless the run is woken again (a delay, a retry).
 */
export function isSingleRunKey(key: string): boolean {
  return key.startsWith(RUN);
}
