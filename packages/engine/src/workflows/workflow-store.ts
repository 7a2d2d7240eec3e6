import type { SendRecord } from '@tributary/runtime';
import type { EventPacking } from '@tributary/sandbox';
import type { RunStatusT, StepStatusT, WorkflowSpecT } from '@tributary/contracts';

export type WorkflowTriggerKind = 'http' | 'timer' | 'source' | 'manual' | 'emit' | 'replay';

export interface WorkflowRow {
  readonly id: string;
  readonly name: string;
  readonly active: boolean;
  readonly version: number;
  readonly triggerType: WorkflowSpecT['trigger']['type'];
  /** The `/e/<id>` endpoint of an `http` trigger. */
  readonly endpointId: string | null;
  /** The deployed source of a `source` trigger, or the workflow of an `emit` trigger. */
  readonly sourceId: string | null;
  readonly nextFireAt: number | null;
  readonly runsDropped: number;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** A step as a version runs it: the saved component it resolved to when the version was saved. */
export interface PlanStep {
  readonly name: string;
  readonly componentId: string;
  readonly props: Record<string, unknown>;
  /** Props whose values are secret (redacted in the run record). */
  readonly secretProps: readonly string[];
}

export interface WorkflowVersion {
  readonly workflowId: string;
  readonly version: number;
  readonly spec: WorkflowSpecT;
  readonly steps: readonly PlanStep[];
  readonly createdAt: number;
}

export interface RunError {
  readonly code: string;
  readonly message: string;
  readonly step: string | null;
}

export interface RunRow {
  readonly id: string;
  readonly workflowId: string;
  readonly version: number;
  readonly trigger: WorkflowTriggerKind;
  readonly status: RunStatusT;
  /** JSON text of the trigger event, packed when `eventPacking` says so (read it with `runEvent`). */
  readonly event: string;
  readonly eventPacking: EventPacking | null;
  /**
   * The trigger event as its trigger gave it, on a run its creator steps from memory (decision
   * 0020): `event` need not be parsed back. Steps see the event only through JSON (the worker
   * channel), so they see the same either way.
   */
  readonly eventValue?: unknown;
  /** Index of the first step not checkpointed yet. */
  readonly nextStep: number;
  readonly exit: { reason: string | null } | null;
  readonly error: RunError | null;
  readonly resumeAt: number | null;
  readonly createdAt: number;
  readonly finishedAt: number | null;
}

/** What a step left: stored as one JSON document per step. */
export interface StepResult {
  readonly props: Record<string, unknown> | null;
  readonly returnValue: unknown;
  readonly exports: Record<string, unknown>;
  readonly logs: readonly { level: string; message: string; ts: number }[];
  readonly sends: readonly SendRecord[];
  readonly error: { code: string; message: string; stack?: string } | null;
  readonly durationMs: number | null;
  readonly startedAt: number | null;
}

export interface StepRow {
  readonly index: number;
  readonly name: string;
  readonly status: StepStatusT;
  readonly result: StepResult;
}

/** One step's checkpoint and what it does to its run, written in one transaction. */
export interface Checkpoint {
  readonly runId: string;
  readonly step: StepRow;
  /** Later steps that will not run ($.flow.exit, a failure), recorded as skipped. */
  readonly skipped: readonly { index: number; name: string }[];
  readonly run: {
    readonly status: RunStatusT;
    readonly nextStep: number;
    readonly exit: { reason: string | null } | null;
    readonly error: RunError | null;
    readonly resumeAt: number | null;
    readonly finishedAt: number | null;
  };
  /** Runs of listening workflows started by this step's `$.send.emit`, stored with the checkpoint. */
  readonly startRuns?: readonly NewRun[];
  /** The run's queue entry: kept (more steps), held until a time (delay), or removed (the run ended). */
  readonly queue:
    { readonly kind: 'keep' } | { readonly kind: 'delay'; readonly until: number } | { readonly kind: 'remove' };
}

/** An active timer workflow and the spec of its current version (whose trigger holds the schedule). */
export interface TimerWorkflow {
  readonly id: string;
  readonly spec: WorkflowSpecT;
}

/** What `queueTimerRun` did with a timer's slot. */
export type TimerRunOutcome = 'queued' | 'merged' | 'skipped';

export interface NewRun {
  readonly id: string;
  readonly workflowId: string;
  readonly version: number;
  readonly trigger: WorkflowTriggerKind;
  readonly event: string;
  /** How `event` was packed (event-packing.ts); absent or null: stored whole. */
  readonly eventPacking?: EventPacking | null;
  readonly createdAt: number;
  /** The queue key the run's entry goes under (the workflow's lane, or the run alone). */
  readonly queueKey: string;
  /**
   * Stored as `running`, not `queued`: the process creating it steps it at once, from memory
   * (decision 0020), so the status a claim's start would write is written with the run.
   */
  readonly running?: boolean;
}

/**
 * Where workflows, their versions and their runs live.
 *
 * Guarantees:
 * - `createRun` stores the run and its queue entry in one transaction: a run is queued exactly
 *   when it exists, so an acknowledged trigger is never lost.
 * - `checkpoint` is one transaction: the step's result, the run's new state and its queue entry
 *   change together, so after a crash a run resumes at its first step without a checkpoint, and a
 *   checkpointed step never runs again.
 * - `saveWorkflow` stores the workflow row and its new version together, or nothing.
 */
export interface WorkflowStore {
  saveWorkflow(row: WorkflowRow, version: WorkflowVersion): Promise<void>;
  getWorkflow(id: string): Promise<WorkflowRow | null>;
  listWorkflows(): Promise<WorkflowRow[]>;
  getVersion(workflowId: string, version: number): Promise<WorkflowVersion | null>;
  /** Removes the workflow, its versions, runs and queued entries. */
  deleteWorkflow(id: string): Promise<boolean>;
  setActive(id: string, active: boolean, now: number): Promise<void>;
  findByEndpoint(endpointId: string): Promise<WorkflowRow | null>;
  findBySource(sourceId: string): Promise<WorkflowRow[]>;
  /** Active workflows whose trigger is `$.send.emit` of this workflow. */
  findByEmitter(workflowId: string): Promise<WorkflowRow[]>;
  /**
   * Every active timer workflow with its current version's spec, in one query (the job schedulers'
   * sync reads them all at each change), by id.
   */
  timerWorkflows(): Promise<TimerWorkflow[]>;
  /** Active timer workflows due at `now`. */
  dueTimers(now: number): Promise<WorkflowRow[]>;
  setNextFire(id: string, at: number | null): Promise<void>;
  /**
   * Stores a run with its queue entry; a timer's run also moves the workflow's next fire time (where
   * several processes share the store, only while that time is still due: a tick runs once).
   */
  createRun(run: NewRun, nextFireAt?: number): Promise<void>;
  /**
   * A timer's run from a job scheduler's slot, in one transaction with the move of the workflow's
   * fire time from `move.firedAt` to `move.nextFireAt`: `skipped` (nothing changes) when the
   * workflow no longer has `firedAt` (another process queued the slot), `merged` (only the fire
   * time moves) when a timer run of the workflow is still queued or running, else `queued`.
   */
  queueTimerRun(run: NewRun, move: { readonly firedAt: number; readonly nextFireAt: number }): Promise<TimerRunOutcome>;
  getRun(id: string): Promise<RunRow | null>;
  /** The newest run of a workflow (the one its list shows), or null before its first. */
  lastRun(workflowId: string): Promise<LastRun | null>;
  /** Creates the record of a run whose queue entry already exists (a source's commit queued it). */
  materializeRun(run: Omit<NewRun, 'queueKey'>): Promise<void>;
  /** Newest first; with `status`, only runs in it (and `total` counts only those). */
  listRuns(workflowId: string, page: RunsPage): Promise<{ data: RunRow[]; total: number }>;
  stepsOf(runId: string): Promise<StepRow[]>;
  markRunning(runId: string): Promise<void>;
  /** The platform gave up on a run (its entry is a dead letter): failed, with the error, until retried. */
  markDead(runId: string, error: RunError, now: number): Promise<void>;
  /** Removes a queue entry whose run has no work left (deleted, or ended meanwhile). */
  dropEntry(runId: string): Promise<void>;
  checkpoint(checkpoint: Checkpoint): Promise<void>;
  /** Cancels a run waiting on a delay: false when it is not delayed. */
  cancelDelayed(runId: string, now: number): Promise<boolean>;
  /** Drops the oldest finished runs past `keep`; resolves with how many went. */
  trimRuns(workflowId: string, keep: number): Promise<number>;
}

/** A page of a workflow's runs: up to `limit` older than the run `before`, in `status` when given. */
export interface RunsPage {
  readonly limit: number;
  readonly before?: string;
  readonly status?: RunRow['status'];
}

/** What a workflow's list shows of its newest run. */
export interface LastRun {
  readonly id: string;
  readonly status: RunRow['status'];
  readonly createdAt: number;
}
