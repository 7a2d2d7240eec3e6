import { runEvent } from './run-event.js';
import {
  AppError,
  isAppError,
  type StepRunT,
  type WorkflowRunT,
  type WorkflowSpecT,
  type WorkflowStepT,
  type WorkflowT,
  workflowNameConflict,
} from '@tributary/contracts';
import { nextTimerFire, timerEvent, type SendRecord, type TimerSchedule } from '@tributary/runtime';
import type { AccountService } from '../accounts/account-service.js';
import type { ComponentService } from '../components/component-service.js';
import { newId, newSecretToken } from '../ids.js';
import type { HeldSlot } from '../invocations/invocation-runner.js';
import type { NewInvocation, QueuedInvocation } from '../ports/invocation-queue.js';
import type { Store } from '../ports/store.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { checkWorkflow } from './check-workflow.js';
import { newRun } from './new-run.js';
import { planSteps } from './plan-steps.js';
import { VersionCache } from './version-cache.js';
import { describeRun, toStepRun } from './run-view.js';
import { redactSpec, sealSteps } from './secret-steps.js';
import { literalSends } from './static-sends.js';
import { scheduleOf } from './timer-schedule.js';
import { runEntry } from './workflow-rows.js';
import type {
  NewRun,
  PlanStep,
  RunRow,
  StepResult,
  WorkflowRow,
  WorkflowStore,
  WorkflowTriggerKind,
  RunsPage,
} from './workflow-store.js';

export interface WorkflowServiceOptions {
  readonly store: WorkflowStore;
  /** Seals secret step props at rest. */
  readonly box: SecretBox;
  readonly components: ComponentService;
  /** Checks app props' connected accounts at save time. */
  readonly accounts: Pick<AccountService, 'check'>;
  /** Deployed sources, for `source` triggers. */
  readonly sources: Pick<Store, 'getSource'>;
  readonly publicUrl: string;
  readonly now: () => number;
  /** A run was queued under this key: the runner should look. */
  readonly notify: (queueKey: string) => void;
  /**
   * A runner slot to step a run from memory as soon as it is stored (decision 0020), or null (then
   * the run is queued and `notify` told). Without it every run goes through the queue.
   */
  readonly reserve?: (queueKey: string, waitMs: number) => Promise<HeldSlot<RunRow> | null>;
  /** A run of this version is being stored to step at once from memory (RunExecutor.expect; never rejects). */
  readonly expectRun?: (workflowId: string, version: number) => Promise<void>;
  /**
   * How long an HTTP trigger waits for a slot when every one is taken (decision 0021; default 0:
   * its run is queued at once). Other triggers never wait: they come from this platform.
   */
  readonly httpSlotWaitMs?: number;
  /** Runs one step on its own (the run executor's `testStep`). */
  readonly testStep: (
    workflowId: string,
    step: PlanStep,
    steps: Record<string, unknown>,
  ) => Promise<{ status: 'succeeded' | 'failed'; record: StepResult }>;
  /** A workflow was deleted: its subscriptions go with it. */
  readonly onDeleted?: (id: string) => Promise<void>;
  /** Throws `DESTINATION_INVALID` for a send that can never be delivered here (the delivery service's check). */
  readonly checkSends?: (sends: readonly SendRecord[]) => void;
  /**
   * A timer workflow was saved, activated, deactivated or deleted (the timers' job schedulers on
   * BullMQ follow it; the store's polling needs no word).
   */
  readonly onSchedulesChanged?: () => void;
}

/**
 * Workflows: saving (every save is a new version, checked whole before anything is stored),
 * activation, and starting runs from any trigger. Runs go into the invocation queue and are stepped
 * by the same runner as sources (see RunExecutor).
 */
export class WorkflowService {
  /** Versions the hot paths read (every HTTP trigger, every new run), kept parsed. */
  private readonly versions: VersionCache;

  constructor(private readonly options: WorkflowServiceOptions) {
    this.versions = new VersionCache((workflowId, version) => options.store.getVersion(workflowId, version));
  }

  async create(input: unknown): Promise<WorkflowT> {
    return this.save(null, input);
  }

  async update(id: string, input: unknown): Promise<WorkflowT> {
    return this.save(await this.row(id), input);
  }

  async get(id: string): Promise<WorkflowT> {
    return this.describe(await this.row(id));
  }

  async list(): Promise<WorkflowT[]> {
    const rows = await this.options.store.listWorkflows();
    return Promise.all(rows.map((row) => this.describe(row)));
  }

  async delete(ref: string): Promise<void> {
    const { id } = await this.row(ref);
    if (!(await this.options.store.deleteWorkflow(id))) throw notFound(ref);
    this.options.onSchedulesChanged?.();
    await this.options.onDeleted?.(id);
  }

  /** Whether a workflow of this id exists (subscriptions check their emitters and listeners). */
  async exists(id: string): Promise<boolean> {
    return (await this.options.store.getWorkflow(id)) !== null;
  }

  /**
   * An event of an emitter this workflow subscribed to (`POST /v1/subscriptions`): an `emit` run,
   * queued durably; an inactive workflow starts none, as for its own trigger.
   */
  async listen(id: string, event: unknown): Promise<void> {
    const row = await this.options.store.getWorkflow(id);
    if (row?.active) await this.startRun(row, row.version, 'emit', event);
  }

  async setActive(ref: string, active: boolean): Promise<WorkflowT> {
    const row = await this.row(ref);
    await this.options.store.setActive(row.id, active, this.options.now());
    if (row.triggerType === 'timer') this.options.onSchedulesChanged?.();
    return this.describe({ ...row, active });
  }

  /** The active workflow behind an HTTP endpoint id, or null. */
  async findEndpoint(endpointId: string): Promise<{ readonly id: string; readonly customResponse: boolean } | null> {
    const row = await this.options.store.findByEndpoint(endpointId);
    if (!row) return null;
    const version = await this.versions.get(row.id, row.version);
    const trigger = version?.spec.trigger;
    return { id: row.id, customResponse: trigger?.type === 'http' && trigger.custom_response === true };
  }

  /** Starts a run of the workflow's current version; resolves with its id once it is durable. */
  async trigger(id: string, trigger: WorkflowTriggerKind, event: unknown): Promise<string> {
    const row = await this.row(id);
    return this.startRun(row, row.version, trigger, event);
  }

  /** Runs again with the same event, on the workflow's current version. */
  async replay(runId: string): Promise<string> {
    const run = await this.runRow(runId);
    const row = await this.row(run.workflowId);
    return this.startRun(row, row.version, 'replay', runEvent(run));
  }

  async cancel(runId: string): Promise<WorkflowRunT> {
    const run = await this.runRow(runId);
    if (!(await this.options.store.cancelDelayed(runId, this.options.now()))) {
      throw new AppError('WORKFLOW_RUN_NOT_DELAYED', `run ${runId} is ${run.status}, not waiting on $.flow.delay`);
    }
    return this.getRun(runId);
  }

  /**
   * Runs one step of the current version with a chosen trigger event and the results of earlier
   * steps (`{ name: { $return_value, ...exports } }`); nothing is stored.
   */
  async testStep(
    id: string,
    name: string,
    input: { readonly event?: unknown; readonly steps?: Record<string, Record<string, unknown>> },
  ): Promise<StepRunT> {
    const row = await this.row(id);
    const version = await this.options.store.getVersion(row.id, row.version);
    const step = version?.steps.find((candidate) => candidate.name === name);
    if (!step) throw new AppError('NOT_FOUND', `workflow ${id} has no step "${name}"`, { field: 'name' });
    const steps: Record<string, unknown> = {
      ...(input.steps ?? {}),
      trigger: {
        event: input.event ?? null,
        context: {
          id: 'test',
          ts: new Date(this.options.now()).toISOString(),
          workflow_id: row.id,
          workflow_version: row.version,
          trigger: 'manual',
        },
      },
    };
    const { status, record } = await this.options.testStep(row.id, step, steps);
    return toStepRun({ index: 0, name, status, result: record });
  }

  async getRun(runId: string): Promise<WorkflowRunT> {
    const run = await this.runRow(runId);
    return describeRun(run, await this.options.store.stepsOf(runId));
  }

  async listRuns(
    workflowId: string,
    page: RunsPage,
  ): Promise<{ data: WorkflowRunT[]; total: number; dropped: number }> {
    const row = await this.row(workflowId);
    if (page.before && !(await this.options.store.getRun(page.before)))
      throw new AppError('NOT_FOUND', `no run "${page.before}" to page from`, { field: 'before' });
    const { data, total } = await this.options.store.listRuns(row.id, page);
    const runs = await Promise.all(data.map(async (run) => describeRun(run, await this.options.store.stepsOf(run.id))));
    return { data: runs, total, dropped: row.runsDropped };
  }

  /** Queues a run of every active timer workflow that is due, and moves its next fire time. */
  async fireTimers(): Promise<number> {
    const now = this.options.now();
    let fired = 0;
    for (const row of await this.options.store.dueTimers(now)) {
      const version = await this.options.store.getVersion(row.id, row.version);
      if (!version) continue;
      const schedule = scheduleOf(version.spec);
      if (!schedule) continue;
      await this.startRun(row, row.version, 'timer', timerEvent(schedule, now), nextTimerFire(schedule, now));
      fired += 1;
    }
    return fired;
  }

  /**
   * Queue entries for the runs a source's committed events start (one per event and workflow
   * triggered by the source). They are committed with the events; each entry carries what its
   * run needs (`pendingRun`), and the run's record is created when the entry is first claimed.
   */
  async runsForEvents(sourceId: string, events: readonly string[]): Promise<NewInvocation[]> {
    const entries: NewInvocation[] = [];
    for (const row of await this.options.store.findBySource(sourceId)) {
      for (const event of events) {
        const run = await this.newRun(row, row.version, 'source', null);
        entries.push({
          id: run.id,
          sourceId: run.queueKey,
          trigger: 'manual',
          event: JSON.stringify({
            pendingRun: { workflowId: row.id, version: row.version, trigger: 'source' },
            event: JSON.parse(event) as unknown,
          }),
          createdAt: run.createdAt,
        });
      }
    }
    return entries;
  }

  /**
   * The runs a step's `$.send.emit` calls start: one per emitted event and listening workflow. They
   * are stored with the step's checkpoint (so an emit is never lost nor doubled); call `notify`
   * with their queue keys once it committed.
   */
  async emitRuns(workflowId: string, events: readonly unknown[]): Promise<NewRun[]> {
    if (events.length === 0) return [];
    const runs: NewRun[] = [];
    for (const row of await this.options.store.findByEmitter(workflowId)) {
      for (const event of events) runs.push(await this.newRun(row, row.version, 'emit', event));
    }
    return runs;
  }

  private async startRun(
    row: WorkflowRow,
    version: number,
    trigger: WorkflowTriggerKind,
    event: unknown,
    nextFireAt?: number,
  ): Promise<string> {
    const queued = await this.newRun(row, version, trigger, event);
    // A timer's run may not be stored at all (another process took its tick): it goes the queue's way.
    const waitMs = trigger === 'http' ? (this.options.httpSlotWaitMs ?? 0) : 0;
    const slot = nextFireAt === undefined ? ((await this.options.reserve?.(queued.queueKey, waitMs)) ?? null) : null;
    const run = slot ? { ...queued, running: true } : queued;
    try {
      const created = this.options.store.createRun(run, nextFireAt);
      // Stepped at once: its first step's call is made as the commit resolves, in the same turn.
      if (slot) await Promise.all([created, this.options.expectRun?.(row.id, version)]);
      else await created;
    } catch (error) {
      slot?.cancel();
      throw error;
    }
    if (slot) slot.start(heldEntry(run), heldRun(run, event));
    else this.options.notify(run.queueKey);
    return run.id;
  }

  private async newRun(
    row: WorkflowRow,
    version: number,
    trigger: WorkflowTriggerKind,
    event: unknown,
  ): Promise<NewRun> {
    const spec = await this.versions.get(row.id, version);
    return newRun({
      workflowId: row.id,
      version,
      trigger,
      event,
      concurrency: spec?.spec.settings?.concurrency,
      now: this.options.now(),
    });
  }

  private async save(existing: WorkflowRow | null, input: unknown): Promise<WorkflowT> {
    // Everything that can refuse the workflow runs before anything is stored.
    const spec = checkWorkflow(input);
    const planned = await planSteps(spec.steps, this.options.components, this.options.accounts);
    this.checkLiteralSends(spec.steps);
    const trigger = spec.trigger;
    let sourceId: string | null = null;
    if (trigger.type === 'source') {
      if (!(await this.options.sources.getSource(trigger.source_id))) {
        throw new AppError('NOT_FOUND', `trigger.source_id: no deployed source "${trigger.source_id}"`, {
          field: 'trigger.source_id',
        });
      }
      sourceId = trigger.source_id;
    }
    if (trigger.type === 'emit') {
      if (!(await this.options.store.getWorkflow(trigger.workflow_id))) {
        throw new AppError('NOT_FOUND', `trigger.workflow_id: no workflow "${trigger.workflow_id}"`, {
          field: 'trigger.workflow_id',
        });
      }
      if (existing) await this.refuseEmitLoop(existing.id, trigger.workflow_id);
      sourceId = trigger.workflow_id;
    }
    const schedule = scheduleOf(spec);
    const now = this.options.now();
    const previous = existing ? await this.options.store.getVersion(existing.id, existing.version) : null;
    const row: WorkflowRow = {
      id: existing?.id ?? newId('wf'),
      name: spec.name,
      active: spec.active ?? existing?.active ?? true,
      version: (existing?.version ?? 0) + 1,
      triggerType: trigger.type,
      // An endpoint keeps its URL across versions: callers already know it.
      endpointId: trigger.type === 'http' ? (existing?.endpointId ?? newSecretToken()) : null,
      sourceId,
      nextFireAt: schedule ? (keptFireAt(existing, previous?.spec, schedule) ?? nextTimerFire(schedule, now)) : null,
      runsDropped: existing?.runsDropped ?? 0,
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
    };
    // Every check passed: the code steps' components are stored, then the version.
    const steps = sealSteps(row.id, await planned.store(), previous?.steps ?? [], this.options.box);
    // The stored spec is what the API shows: secret values are redacted there, sealed in the plan.
    const shown = redactSpec(spec, steps);
    await this.options.store.saveWorkflow(row, {
      workflowId: row.id,
      version: row.version,
      spec: shown,
      steps,
      createdAt: now,
    });
    if (schedule || existing?.triggerType === 'timer') this.options.onSchedulesChanged?.();
    return this.describe(row, shown);
  }

  /** Destinations written as literals in code steps are checked now, not at their first run. */
  private checkLiteralSends(steps: readonly WorkflowStepT[]): void {
    const check = this.options.checkSends;
    if (!check) return;
    steps.forEach((step, index) => {
      if (step.code === undefined) return;
      try {
        check(literalSends(step.code));
      } catch (error) {
        if (!isAppError(error)) throw error;
        const field = typeof error.details['field'] === 'string' ? `.${error.details['field']}` : '';
        throw new AppError(error.code, `steps[${index}] "${step.name}": ${error.message}`, {
          ...error.details,
          step: step.name,
          field: `steps.${index}${field}`,
        });
      }
    });
  }

  /**
   * An `emit` trigger must not close a loop (A listens to B, which listens to A): each emit would
   * start runs for ever. The chain of emit triggers from the emitter is followed back.
   */
  private async refuseEmitLoop(listenerId: string, emitterId: string): Promise<void> {
    const chain = [listenerId];
    let current: string | null = emitterId;
    while (current !== null && !chain.includes(current) && chain.length <= 100) {
      chain.push(current);
      const row: WorkflowRow | null = await this.options.store.getWorkflow(current);
      current = row?.triggerType === 'emit' ? row.sourceId : null;
    }
    if (current === listenerId) {
      throw new AppError(
        'VALIDATION_FAILED',
        `trigger.workflow_id: listening to ${emitterId} closes a loop of emit triggers (${[...chain, listenerId].join(' -> ')}); each emit would start runs for ever`,
        { field: 'trigger.workflow_id' },
      );
    }
  }

  private async describe(row: WorkflowRow, known?: WorkflowSpecT): Promise<WorkflowT> {
    const [version, last] = await Promise.all([
      known ? null : this.options.store.getVersion(row.id, row.version),
      this.options.store.lastRun(row.id),
    ]);
    const spec = known ?? version?.spec;
    if (!spec) throw new AppError('INTERNAL', `workflow ${row.id} has no version ${row.version}`);
    return {
      id: row.id,
      name: row.name,
      active: row.active,
      version: row.version,
      spec,
      endpoint_url: row.endpointId ? `${this.options.publicUrl}/e/${row.endpointId}` : null,
      runs_dropped: row.runsDropped,
      last_run: last ? { id: last.id, status: last.status, created_at: last.createdAt } : null,
      created_at: row.createdAt,
      updated_at: row.updatedAt,
    };
  }

  /**
   * A workflow by its `wf_` id or, failing that, its name (as `/v1/sources/{id}` takes a source's
   * name): the REST paths and the CLI take either. A name several workflows share is NAME_CONFLICT.
   */
  private async row(ref: string): Promise<WorkflowRow> {
    const row = await this.options.store.getWorkflow(ref);
    if (row) return row;
    const named = (await this.options.store.listWorkflows()).filter((candidate) => candidate.name === ref);
    const [only] = named;
    if (named.length === 1 && only) return only;
    if (named.length > 1)
      throw workflowNameConflict(
        ref,
        named.map((candidate) => candidate.id),
        'use the id',
      );
    throw notFound(ref);
  }

  private async runRow(id: string): Promise<RunRow> {
    const run = await this.options.store.getRun(id);
    if (!run) {
      // A workflow's name or id given where a run's is expected is the likely slip: say where runs are listed.
      const hint = id.startsWith('wfr_')
        ? ''
        : `: a run's id starts with wfr_ (a workflow's runs: GET /v1/workflows/{id}/runs, \`tributary workflow runs <workflow>\`)`;
      throw new AppError('NOT_FOUND', `no workflow run "${id}"${hint}`);
    }
    return run;
  }
}

/** The queue entry `createRun` stored for a run, as a claim would have read it. */
function heldEntry(run: NewRun): QueuedInvocation {
  return { ...runEntry(run), attempts: 0, notBefore: 0, lastError: null };
}

/** The record `createRun` stored for a run its creator steps at once, with its event as given. */
function heldRun(run: NewRun, event: unknown): RunRow {
  return {
    id: run.id,
    workflowId: run.workflowId,
    version: run.version,
    trigger: run.trigger,
    status: 'running',
    event: run.event,
    eventPacking: run.eventPacking ?? null,
    eventValue: event ?? null,
    nextStep: 0,
    exit: null,
    error: null,
    resumeAt: null,
    createdAt: run.createdAt,
    finishedAt: null,
  };
}

function notFound(ref: string): AppError {
  return new AppError('NOT_FOUND', `no workflow with id or name "${ref}"`);
}

/**
 * The next fire time an active workflow keeps when a save leaves its schedule as it was: counting
 * the interval again from the save would push the next tick back, and saves more often than the
 * interval would stop it from ever firing.
 */
function keptFireAt(
  existing: WorkflowRow | null,
  previousSpec: WorkflowSpecT | undefined,
  schedule: TimerSchedule,
): number | null {
  if (!existing?.active || existing.nextFireAt === null || !previousSpec) return null;
  const before = scheduleOf(previousSpec);
  return before && JSON.stringify(before) === JSON.stringify(schedule) ? existing.nextFireAt : null;
}
