import type { RunRow, StepRow } from './workflow-store.js';

/**
 * The first step a run claimed from the queue runs: the one after its last checkpoint. The run's
 * `nextStep` may lag behind its steps (a checkpoint that only moves a run on to its next step may
 * leave the run's own row as it was: SqliteWorkflowStore.checkpoint), never the other way round.
 */
export function resumePoint(run: Pick<RunRow, 'nextStep'>, checkpointed: readonly StepRow[]): number {
  let done = 0;
  for (const row of checkpointed) {
    if (row.index !== done || row.status !== 'succeeded') break;
    done += 1;
  }
  return Math.max(run.nextStep, done);
}
