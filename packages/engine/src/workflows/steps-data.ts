import { runEvent } from './run-event.js';
import type { RunRow, StepRow } from './workflow-store.js';

/**
 * The `steps` object a step sees: `steps.trigger.event`, `steps.trigger.context` (run id, time,
 * workflow id and version) and, per finished step, its exports with `$return_value`. Built from
 * the checkpoints, so a run resumed after a restart sees exactly what it saw before.
 */
export function stepsData(run: RunRow, done: readonly StepRow[]): Record<string, unknown> {
  const steps: Record<string, unknown> = {
    trigger: {
      event: runEvent(run),
      context: {
        id: run.id,
        ts: new Date(run.createdAt).toISOString(),
        workflow_id: run.workflowId,
        workflow_version: run.version,
        trigger: run.trigger,
      },
    },
  };
  for (const step of done) {
    if (step.status !== 'succeeded') continue;
    steps[step.name] = { ...step.result.exports, $return_value: step.result.returnValue };
  }
  return steps;
}
