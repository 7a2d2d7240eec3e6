import type { WorkflowFailure } from '../health/recent-failures.js';
import type { SendRecord } from '@tributary/runtime';
import type { HeldSlot } from '../invocations/invocation-runner.js';
import type { Logger } from '../ports/logger.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { AccountService } from '../accounts/account-service.js';
import type { ComponentService } from '../components/component-service.js';
import type { Store } from '../ports/store.js';
import type { PubSub } from '../pubsub/pubsub.js';
import type { SourceExecutor } from '../sources/source-executor.js';
import { isSingleRunKey, isWorkflowKey } from './queue-keys.js';
import { RunExecutor, type Deliver } from './run-executor.js';
import type { RunRow, WorkflowStore } from './workflow-store.js';
import { WorkflowService } from './workflow-service.js';
import { WorkflowTimers } from './workflow-timers.js';

/** Runs kept per workflow unless its settings say otherwise. */
export const DEFAULT_KEEP_RUNS = 1000;

export interface WorkflowPartsOptions {
  /** Where workflows and runs live (SqliteWorkflowStore on the embedded file). */
  readonly store: WorkflowStore;
  /** Seals secret step props at rest (the master key). */
  readonly box: SecretBox;
  readonly components: ComponentService;
  readonly executor: SourceExecutor;
  readonly accounts: AccountService;
  readonly pubsub: PubSub;
  readonly sources: Pick<Store, 'getSource'>;
  readonly publicUrl: string;
  readonly now: () => number;
  readonly log: (message: string) => void;
  readonly logger: Logger;
  readonly stepTimeoutMs: number;
  readonly keepRuns?: number;
  readonly deliver?: Deliver;
  /** The runner: a run was queued (or its delay ran out) under this key. */
  readonly notify: (queueKey: string) => void;
  /** A run failed (the status page's recent failures). */
  readonly onFailed?: (failure: WorkflowFailure) => void;
  /** The runner: a slot to step a run this process is creating at once, from memory (decision 0020). */
  readonly reserve?: (queueKey: string, waitMs: number) => Promise<HeldSlot<RunRow> | null>;
  /** How long an HTTP trigger waits for a run slot when all are taken (decision 0021). */
  readonly httpSlotWaitMs?: number;
  /** A workflow was deleted (its subscriptions are removed). */
  readonly onDeleted?: (id: string) => Promise<void>;
  /** The delivery service's destination check, run on code steps' literal destinations at save time. */
  readonly checkSends?: (sends: readonly SendRecord[]) => void;
  /**
   * Timer workflows run on BullMQ job schedulers (`WorkflowTimerTargets`), which this calls after a
   * schedule changed; without it the store is polled every second for due workflows.
   */
  readonly onSchedulesChanged?: () => void;
}

/** The workflow pieces on a workflow store, wired to the shared queue, runner and sandbox pool. */
export function composeWorkflows(options: WorkflowPartsOptions) {
  const store = options.store;
  const executor: RunExecutor = new RunExecutor({
    store,
    components: options.components,
    executor: options.executor,
    accounts: options.accounts,
    box: options.box,
    pubsub: options.pubsub,
    now: options.now,
    logger: options.logger,
    stepTimeoutMs: options.stepTimeoutMs,
    keepRuns: options.keepRuns ?? DEFAULT_KEEP_RUNS,
    wakeAt: (key, at) => {
      const timer = setTimeout(() => options.notify(key), Math.max(1, at - options.now()));
      timer.unref();
    },
    ...(options.deliver ? { deliver: options.deliver } : {}),
    emitRuns: (workflowId, events) => service.emitRuns(workflowId, events),
    notify: options.notify,
    ...(options.onFailed ? { onFailed: options.onFailed } : {}),
  });
  const service: WorkflowService = new WorkflowService({
    store,
    box: options.box,
    components: options.components,
    accounts: options.accounts,
    sources: options.sources,
    publicUrl: options.publicUrl,
    now: options.now,
    notify: options.notify,
    ...(options.reserve ? { reserve: options.reserve } : {}),
    ...(options.httpSlotWaitMs !== undefined ? { httpSlotWaitMs: options.httpSlotWaitMs } : {}),
    expectRun: (workflowId, version) => executor.expect(workflowId, version),
    testStep: (workflowId, step, steps) => executor.testStep(workflowId, step, steps),
    ...(options.onDeleted ? { onDeleted: options.onDeleted } : {}),
    ...(options.checkSends ? { checkSends: options.checkSends } : {}),
    ...(options.onSchedulesChanged ? { onSchedulesChanged: options.onSchedulesChanged } : {}),
  });
  // On job schedulers the scheduler fires workflow timers with the sources' ones: nothing polls.
  const timers = options.onSchedulesChanged
    ? { start: () => undefined, stop: () => Promise.resolve() }
    : new WorkflowTimers({ fire: () => service.fireTimers(), log: options.log, intervalMs: 1000 });
  return {
    service,
    timers,
    /** What the invocation runner needs to step workflow runs. */
    queueHandler: {
      owns: isWorkflowKey,
      single: isSingleRunKey,
      execute: (entry: Parameters<RunExecutor['execute']>[0], held?: RunRow) => executor.execute(entry, held),
      dead: (runId: string, error: string) => executor.dead(runId, error),
      runsForEvents: (sourceId: string, events: readonly string[]) => service.runsForEvents(sourceId, events),
    },
  };
}

/**
 * Workflow runs stepping at once for a server that runs `concurrency` source invocations at once.
 * A run mostly waits (for its steps in the sandbox, whose pool bounds the real work, and for its
 * checkpoints, which then share commits), so many go at once; with as few as the sources get,
 * queued runs barely move while HTTP requests keep the event loop busy. 32 per source slot (128 by
 * default): once a run cost the main thread less, 64 slots held the benchmark's runs back (an HTTP
 * trigger waits for a slot: decision 0021), and 128 gave 7-10 % more runs a second than 64 and than
 * 256, whose larger batches cost more latency than they saved (decision 0014, addendum 16).
 */
export function workflowRunsAtOnce(concurrency: number): number {
  return concurrency * 32;
}

/**
 * How long a workflow's HTTP trigger waits for a run slot when all are taken (decision 0021). Runs
 * of quick steps free a slot every few milliseconds under load; a slow workflow's caller waits
 * this long at most, then its run is queued and it is answered.
 */
export const WORKFLOW_SLOT_WAIT_MS = 250;
