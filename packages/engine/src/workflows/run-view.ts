import { runEvent } from './run-event.js';
import type { StepRunT, WorkflowRunT } from '@tributary/contracts';
import type { RunRow, StepRow } from './workflow-store.js';

/** A run as the API shows it (GET /v1/workflow-runs/{id}). */
export function describeRun(run: RunRow, steps: readonly StepRow[]): WorkflowRunT {
  return {
    id: run.id,
    workflow_id: run.workflowId,
    version: run.version,
    trigger: run.trigger,
    status: run.status,
    event: runEvent(run),
    steps: steps.map(toStepRun),
    exit: run.exit,
    error: run.error,
    resume_at: run.resumeAt,
    created_at: run.createdAt,
    finished_at: run.finishedAt,
  };
}

/** A step of a run as the API shows it. */
export function toStepRun(step: StepRow): StepRunT {
  return {
    name: step.name,
    status: step.status,
    props: step.result.props,
    return_value: step.result.returnValue,
    exports: step.result.exports,
    logs: [...step.result.logs],
    sends: [...step.result.sends],
    error: step.result.error,
    duration_ms: step.result.durationMs,
    started_at: step.result.startedAt,
  };
}
