import type { Selectable } from 'kysely';
import type { NewInvocation, Trigger } from '../ports/invocation-queue.js';
import type { NewRun, RunRow, StepResult, WorkflowRow } from './workflow-store.js';
import type { WorkflowTables } from './workflow-tables.js';

/** Row mapping both workflow stores share: the tables' columns to the store's records. */

export type RawWorkflow = Selectable<WorkflowTables['workflows']>;
export type RawRun = Selectable<WorkflowTables['workflow_runs']>;

/** Run statuses after which a run has no work left (the ones retention may drop). */
export const FINISHED_STATUSES = ['succeeded', 'exited', 'failed', 'cancelled'] as const;

/** What a skipped step records. */
export const EMPTY_RESULT: StepResult = {
  props: null,
  returnValue: null,
  exports: {},
  logs: [],
  sends: [],
  error: null,
  durationMs: null,
  startedAt: null,
};

/** The queue's own trigger kinds (dead letters show them); the run keeps the precise one. */
export function queueTrigger(trigger: NewRun['trigger']): Trigger {
  switch (trigger) {
    case 'http':
    case 'timer':
      return trigger;
    case 'source':
    case 'manual':
    case 'emit':
    case 'replay':
      return 'manual';
    default:
      return trigger satisfies never;
  }
}

/**
 * A new run's entry in the invocation queue: the run's id under its queue key. Its event is the
 * run's record, not the entry (`'null'`).
 */
export function runEntry(run: NewRun): NewInvocation {
  return {
    id: run.id,
    sourceId: run.queueKey,
    trigger: queueTrigger(run.trigger),
    event: 'null',
    createdAt: run.createdAt,
  };
}

/** The status a run is stored with (decision 0020: `running` when its creator steps it at once). */
export function createdStatus(run: Pick<NewRun, 'running'>): 'running' | 'queued' {
  return run.running === true ? 'running' : 'queued';
}

export function toWorkflow(row: RawWorkflow | undefined): WorkflowRow | null {
  if (!row) return null;
  return {
    id: row.id,
    name: row.name,
    active: row.active === 1,
    version: row.version,
    triggerType: row.trigger_type,
    endpointId: row.endpoint_id,
    sourceId: row.source_id,
    nextFireAt: row.next_fire_at,
    runsDropped: row.runs_dropped,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toRun(row: RawRun | undefined): RunRow | null {
  if (!row) return null;
  return {
    id: row.id,
    workflowId: row.workflow_id,
    version: row.version,
    trigger: row.trigger,
    status: row.status,
    event: row.event,
    eventPacking: row.event_packing,
    nextStep: row.next_step,
    exit: row.exit ? (JSON.parse(row.exit) as RunRow['exit']) : null,
    error: row.error ? (JSON.parse(row.error) as RunRow['error']) : null,
    resumeAt: row.resume_at,
    createdAt: row.created_at,
    finishedAt: row.finished_at,
  };
}
