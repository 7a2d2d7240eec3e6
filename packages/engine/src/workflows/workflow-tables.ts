import type { EventPacking } from '@tributary/sandbox';
import type { Generated } from 'kysely';
import type { RunRow, StepRow, WorkflowRow } from './workflow-store.js';

/**
 * The workflow tables of migration 0006 as Kysely sees them (`db.withTables<WorkflowTables>()`);
 * the SQLite store reads them with prepared statements, the PostgreSQL store through Kysely.
 */
// A type alias, not an interface: `withTables` needs an index-signature-compatible record.
export type WorkflowTables = {
  workflows: {
    id: string;
    name: string;
    active: number;
    version: number;
    trigger_type: WorkflowRow['triggerType'];
    endpoint_id: string | null;
    source_id: string | null;
    next_fire_at: number | null;
    runs_dropped: number;
    created_at: number;
    updated_at: number;
  };
  workflow_versions: {
    workflow_id: string;
    version: number;
    spec: string;
    plan: string;
    created_at: number;
  };
  workflow_runs: {
    seq: Generated<number>;
    id: string;
    workflow_id: string;
    version: number;
    trigger: RunRow['trigger'];
    status: RunRow['status'];
    event: string;
    /** How to rebuild the event from its packed text (event-packing.ts); null: stored whole. */
    event_packing: EventPacking | null;
    next_step: number;
    exit: string | null;
    error: string | null;
    resume_at: number | null;
    created_at: number;
    finished_at: number | null;
  };
  workflow_steps: {
    run_id: string;
    idx: number;
    name: string;
    status: StepRow['status'];
    result: string;
  };
};
