import { isAccountFailure } from '../accounts/account-failure.js';
import type { WorkflowFailure } from '../health/recent-failures.js';
import type { HttpResponse, InvocationResult } from '@tributary/runtime';
import type { ComponentHandle } from '@tributary/sandbox';
import { OWNER_ID } from '../sources/owner.js';
import type { AccountService, AppPropDescription } from '../accounts/account-service.js';
import type { ComponentService } from '../components/component-service.js';
import type { QueuedInvocation } from '../ports/invocation-queue.js';
import type { Logger } from '../ports/logger.js';
import type { PubSub } from '../pubsub/pubsub.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { openProps } from '../sources/configured-props.js';
import { sealedAt } from '../secrets/sealed-places.js';
import type { SourceExecutor } from '../sources/source-executor.js';
import { withEvaluated } from './step-expressions.js';
import { emptyResult, finished, redact, stepOutcome } from './step-outcome.js';
import { StepHandles } from './step-handles.js';
import { NO_ACCOUNTS, NO_APP_AUTH, namesAccount, stepCall, StepCalls, type StepCall } from './step-calls.js';
import { resumePoint } from './resume-point.js';
import { stepsData } from './steps-data.js';
import { TrimPacer } from './trim-pacer.js';
import { VersionCache } from './version-cache.js';
import type {
  Checkpoint,
  NewRun,
  PlanStep,
  RunRow,
  StepResult,
  WorkflowStore,
  WorkflowVersion,
} from './workflow-store.js';

/** What a step's `$.send.*` calls are handed to after its checkpoint (the delivery service's seam). */
export type Deliver = (
  sends: StepResult['sends'],
  context: { readonly workflowId: string; readonly runId: string; readonly step: string },
) => Promise<void>;

export interface RunExecutorOptions {
  readonly store: WorkflowStore;
  readonly components: ComponentService;
  readonly executor: SourceExecutor;
  readonly accounts: AccountService;
  readonly box: SecretBox;
  readonly pubsub: PubSub;
  readonly now: () => number;
  /** Lines about a run carry its `workflow_id` and `run_id`. */
  readonly logger: Logger;
  /** Deadline of each step. */
  readonly stepTimeoutMs: number;
  /** Runs kept per workflow unless its settings say otherwise. */
  readonly keepRuns: number;
  /** The run's queue entry becomes due at `at` (a delay): wake the runner for it then. */
  readonly wakeAt: (queueKey: string, at: number) => void;
  readonly deliver?: Deliver;
  /** The runs of listening workflows a step's `$.send.emit` events start (stored with its checkpoint). */
  readonly emitRuns: (workflowId: string, events: readonly unknown[]) => Promise<NewRun[]>;
  /** Runs were queued under these keys. */
  readonly notify: (queueKey: string) => void;
  /** Told of every run that failed, once its failure is stored (the status page's recent failures). */
  readonly onFailed?: (failure: WorkflowFailure) => void;
}

const FINISHED = new Set(['succeeded', 'exited', 'failed', 'cancelled']);
/** The error code of a run whose queue entry became a dead letter. */
export const DEAD = 'INTERNAL';

/**
 * Steps one workflow run from its first step without a checkpoint. Each step's props are resolved
 * in the sandbox, the step runs in its component's worker, and its result, the run's new state and
 * its queue entry are committed together: a crash at any point resumes at the first unfinished
 * step and never runs a checkpointed one again.
 */
export class RunExecutor {
  private readonly versions: VersionCache;
  private readonly trimming = new TrimPacer();
  private readonly handles: StepHandles;
  private readonly calls = new StepCalls();

  constructor(private readonly options: RunExecutorOptions) {
    this.versions = new VersionCache((workflowId, version) => options.store.getVersion(workflowId, version));
    this.handles = new StepHandles(async (componentId) =>
      options.executor.handle(await options.components.get(componentId), OWNER_ID),
    );
  }

  /**
   * A run of `version` is being stored and will step at once in this turn of the event loop: its
   * first step's call goes out at the end of the turn (ComponentHandle.expectCall). Never throws.
   */
  async expect(workflowId: string, version: number): Promise<void> {
    const first = (await this.versions.get(workflowId, version).catch(() => null))?.steps[0];
    if (first) await this.expectStep(first);
  }

  private async expectStep(step: PlanStep): Promise<void> {
    try {
      (await this.handles.get(step.componentId)).expectCall();
    } catch {
      // Only a hint: the step's own call reports what failed.
    }
  }

  /**
   * Steps the run of a claimed queue entry. `held`: the run as the process that created it holds
   * it (stored as running, no step done; decision 0020), which nobody else has seen, so it is not
   * read back nor marked running again.
   */
  async execute(entry: QueuedInvocation, held?: RunRow): Promise<void> {
    const { store } = this.options;
    const run = held ?? (await store.getRun(entry.id)) ?? (await this.materialize(entry));
    // A run the platform gave up on (a dead letter) that an operator retried resumes where it was.
    const retried = run?.status === 'failed' && run.error?.code === DEAD;
    if (!run || (FINISHED.has(run.status) && !retried)) {
      // The run was deleted or ended (a cancel raced the claim): its entry has no work left.
      await store.dropEntry(entry.id);
      return;
    }
    const version = await this.versions.get(run.workflowId, run.version);
    if (!version) throw new Error(`version ${run.version} of workflow ${run.workflowId} is missing`);
    if (!held) await store.markRunning(run.id);
    // A run its creator holds has no checkpoint yet: nothing to read back. One claimed from the queue
    // resumes after its last checkpoint, which its steps tell (a checkpoint that only moved the run
    // on to its next step may leave the run's own row as it was: SqliteWorkflowStore.checkpoint).
    const checkpointed = held ? [] : await store.stepsOf(run.id);
    const steps = stepsData(run, checkpointed);
    let responded = false;
    const onRespond = (response: HttpResponse): void => {
      if (responded) return;
      responded = true;
      this.options.pubsub.publishReply(run.id, response);
    };
    for (let index = resumePoint(run, checkpointed); index < version.steps.length; index += 1) {
      const step = version.steps[index];
      if (!step) break;
      const done = await this.runStep({ run, version, step, index, steps, onRespond });
      if (done.finished) break;
      if (done.delayedUntil !== null) {
        this.options.wakeAt(entry.sourceId, done.delayedUntil);
        return;
      }
    }
    // The run ended without $.respond(): a waiting HTTP caller gets the default answer now.
    if (!responded) this.options.pubsub.publishReply(run.id, null);
    await this.trim(version);
  }

  /**
   * The record of a run whose entry a source's commit queued (its event carries `pendingRun`);
   * null when the entry is not one or its workflow is gone.
   */
  private async materialize(entry: QueuedInvocation): Promise<RunRow | null> {
    const parsed = JSON.parse(entry.event) as {
      pendingRun?: { workflowId: string; version: number; trigger: 'source' };
      event?: unknown;
    } | null;
    const pending = parsed?.pendingRun;
    if (!pending || !(await this.options.store.getWorkflow(pending.workflowId))) return null;
    await this.options.store.materializeRun({
      id: entry.id,
      workflowId: pending.workflowId,
      version: pending.version,
      trigger: pending.trigger,
      event: JSON.stringify(parsed.event ?? null),
      createdAt: entry.createdAt,
    });
    return this.options.store.getRun(entry.id);
  }

  /** The run's entry became a dead letter after repeated platform failures. */
  async dead(runId: string, error: string): Promise<void> {
    await this.options.store.markDead(
      runId,
      {
        code: DEAD,
        message: `the platform failed to run this run on every attempt (dead letter ${runId}; POST /v1/dead-letters/${runId}/retry resumes it): ${error}`,
        step: null,
      },
      this.options.now(),
    );
    this.options.pubsub.publishReply(runId, null);
    const run = this.options.onFailed ? await this.options.store.getRun(runId) : null;
    if (run) this.failedAt(run, null, { code: DEAD, message: error });
  }

  private async runStep(input: {
    readonly run: RunRow;
    readonly version: WorkflowVersion;
    readonly step: PlanStep;
    readonly index: number;
    readonly steps: Record<string, unknown>;
    readonly onRespond: (response: HttpResponse) => void;
  }): Promise<{ finished: boolean; delayedUntil: number | null }> {
    const { run, version, step, index, steps } = input;
    const now = this.options.now;
    // The steps after this one, skipped if it ends the run.
    const later = (): Checkpoint['skipped'] =>
      version.steps.slice(index + 1).map((next, offset) => ({ index: index + 1 + offset, name: next.name }));
    const isLast = index === version.steps.length - 1;
    const performed = await this.perform(run.workflowId, step, steps, input.onRespond);
    if (performed.kind === 'expression') {
      const error = performed.record.error ?? { code: 'WORKFLOW_EXPRESSION_INVALID', message: '' };
      await this.commit({
        runId: run.id,
        step: { index, name: step.name, status: 'failed', result: performed.record },
        skipped: later(),
        run: finished('failed', index + 1, null, { code: error.code, message: error.message, step: step.name }, now()),
        queue: { kind: 'remove' },
      });
      this.failedAt(run, step.name, error);
      return { finished: true, delayedUntil: null };
    }
    const { result, record } = performed;
    const emitted = result.ok
      ? result.sends.filter((send) => send.kind === 'emit').map((send) => send.config['raw_event'] ?? null)
      : [];
    const startRuns = emitted.length === 0 ? [] : await this.options.emitRuns(run.workflowId, emitted);
    const checkpoint = {
      ...stepOutcome({ run, step, index, later, isLast, result, record, now: this.options.now() }),
      startRuns,
    };
    const next = version.steps[index + 1];
    if (next && checkpoint.run.status === 'running' && checkpoint.queue.kind === 'keep') {
      // The next step's call is made as the commit resolves, in the same turn: say so before.
      await Promise.all([this.commit(checkpoint), this.expectStep(next)]);
    } else {
      await this.commit(checkpoint);
    }
    if (checkpoint.run.status === 'failed' && record.error) this.failedAt(run, step.name, record.error);
    for (const started of startRuns) this.options.notify(started.queueKey);
    if (record.sends.length > 0 && this.options.deliver) {
      await this.options
        .deliver(record.sends, { workflowId: run.workflowId, runId: run.id, step: step.name })
        .catch((error: unknown) =>
          this.options.logger.warn(
            { workflow_id: run.workflowId, run_id: run.id, step: step.name },
            `delivering the sends of ${run.id}/${step.name} failed: ${String(error)}`,
          ),
        );
    }
    if (checkpoint.run.status === 'running') {
      // The next step sees this one's results.
      steps[step.name] = { ...result.exports, $return_value: result.returnValue ?? null };
    }
    return {
      finished: checkpoint.queue.kind === 'remove',
      delayedUntil: checkpoint.queue.kind === 'delay' ? checkpoint.queue.until : null,
    };
  }

  private failedAt(run: RunRow, step: string | null, error: { readonly code: string; readonly message: string }): void {
    this.options.onFailed?.({
      kind: 'workflow',
      workflowId: run.workflowId,
      runId: run.id,
      step,
      code: error.code,
      message: error.message,
      at: this.options.now(),
    });
  }

  /**
   * Runs one step outside any run, with the `steps` given (POST /v1/workflows/{id}/steps/{name}/test):
   * nothing is stored, delivered or emitted.
   */
  async testStep(
    workflowId: string,
    step: PlanStep,
    steps: Record<string, unknown>,
  ): Promise<{ status: 'succeeded' | 'failed'; record: StepResult }> {
    const performed = await this.perform(workflowId, step, steps, () => undefined);
    const failed = performed.kind === 'expression' || !performed.result.ok;
    return { status: failed ? 'failed' : 'succeeded', record: performed.record };
  }

  /**
   * Runs a step in its component's worker, its prop expressions evaluated there first (in the
   * workflow's realm, decision 0019). A step whose app prop is an expression has its expressions
   * evaluated in a request of their own before it: the host opens the account they name.
   */
  private async perform(
    workflowId: string,
    step: PlanStep,
    steps: Record<string, unknown>,
    onRespond: (response: HttpResponse) => void,
  ): Promise<
    | { readonly kind: 'expression'; readonly record: StepResult }
    | { readonly kind: 'ran'; readonly result: InvocationResult; readonly record: StepResult }
  > {
    const startedAt = this.options.now();
    const failedAt = (prop: string | null, message: string) => {
      const where = `step "${step.name}"${prop ? `, prop "${prop}"` : ''}`;
      const error = { code: 'WORKFLOW_EXPRESSION_INVALID', message: `${where}: ${message}` };
      return { kind: 'expression' as const, record: { ...emptyResult(startedAt), error } };
    };
    const handle = this.handles.known(step.componentId) ?? (await this.handles.get(step.componentId));
    const call = this.calls.get(step) ?? this.prepare(workflowId, step, handle);
    let props = call.props;
    let fixed = call.fixed;
    let expressions = call.expressions;
    let accountsNamed = call.accounts;
    if (call.appExpression && expressions) {
      // The account an app prop names must be opened before the step runs: its expressions go first.
      const ahead = await handle.invoke({
        kind: 'run',
        configured: {},
        accounts: {},
        steps,
        state: { db: {}, dedupe: null },
        expressions: { scope: workflowId, props: expressions, only: true },
        timeoutMs: this.options.stepTimeoutMs,
        concurrent: true,
      });
      const outcome = ahead.expressions ?? {
        ok: false as const,
        prop: null,
        message: ahead.error?.message ?? 'evaluating the props failed',
      };
      if (!outcome.ok) return failedAt(outcome.prop, outcome.message);
      // Every prop now holds its value: a value that reads like an expression is data, never evaluated again.
      props = withEvaluated(props, expressions, outcome.props);
      fixed = props;
      expressions = null;
      accountsNamed = namesAccount(fixed);
    }
    let accounts = NO_ACCOUNTS;
    if (accountsNamed) {
      try {
        accounts = await this.options.accounts.credentialsFor(fixed);
      } catch (error) {
        // An account that needs reconnecting fails the step with its error, naming the account.
        if (!isAccountFailure(error)) throw error;
        return { kind: 'expression', record: { ...emptyResult(startedAt), error: error.toJSON() } };
      }
    }
    const result = await handle.invoke(
      {
        kind: 'run',
        configured: fixed,
        accounts,
        appAuth: call.appProps.length === 0 ? NO_APP_AUTH : await this.options.accounts.appAuthFor(call.appProps),
        steps,
        state: { db: {}, dedupe: null },
        ...(expressions ? { expressions: { scope: workflowId, props: expressions } } : {}),
        timeoutMs: this.options.stepTimeoutMs,
        // Steps keep no state between runs: the runs of a workflow step on several workers at once.
        concurrent: true,
      },
      { onRespond },
    );
    if (result.expressions && !result.expressions.ok)
      return failedAt(result.expressions.prop, result.expressions.message);
    const evaluated =
      expressions && result.expressions?.ok ? withEvaluated(props, expressions, result.expressions.props) : props;
    const record: StepResult = {
      props: step.secretProps.length === 0 ? evaluated : redact(evaluated, step.secretProps),
      returnValue: result.returnValue ?? null,
      exports: result.exports,
      logs: result.logs.map((entry) => ({ level: entry.level, message: entry.message, ts: entry.ts })),
      sends: result.sends,
      error: result.error
        ? {
            code: result.error.code,
            message: result.error.message,
            ...(result.error.stack ? { stack: result.error.stack } : {}),
          }
        : null,
      durationMs: result.durationMs,
      startedAt: result.startedAtMs,
    };
    return { kind: 'ran', result, record };
  }

  /**
   * What the calls of a step share (StepCalls): its props opened (secret ones sealed at rest are
   * opened only for the worker that needs them) and split, its component's app props.
   */
  private prepare(workflowId: string, step: PlanStep, handle: ComponentHandle): StepCall {
    const props = openProps(step.props, this.options.box, (prop) =>
      sealedAt.workflowStepProp(workflowId, step.name, prop),
    );
    const call = stepCall(props, handle.info.props as unknown as AppPropDescription[]);
    this.calls.keep(step, call);
    return call;
  }

  private commit(checkpoint: Checkpoint): Promise<void> {
    return this.options.store.checkpoint(checkpoint);
  }

  private async trim(version: WorkflowVersion): Promise<void> {
    const keep = version.spec.settings?.keep_runs ?? this.options.keepRuns;
    if (!this.trimming.due(version.workflowId, keep)) return;
    const dropped = await this.options.store.trimRuns(version.workflowId, keep);
    // Routine, once every tenth of keep_runs (at most every 100 runs): a busy workflow would write
    // dozens of these a second at info. The count is on the workflow (`runs_dropped`).
    if (dropped > 0)
      this.options.logger.debug(
        { workflow_id: version.workflowId },
        `workflow ${version.workflowId}: dropped its ${dropped === 1 ? 'oldest run' : `${dropped} oldest runs`}, keeping the last ${keep}`,
      );
  }
}
