import path from 'node:path';
import type { WorkflowRunDetailT } from '@tributary/contracts';
import { Sandbox } from '@tributary/sandbox';
import { AccountService } from './accounts/account-service.js';
import { ComponentCalls } from './actions/component-calls.js';
import { AppCatalog } from './apps/app-catalog.js';
import { ApiKeys } from './auth/api-keys.js';
import { ComponentService } from './components/component-service.js';
import { DeliveryService, type DeliverySettings } from './delivery/delivery-service.js';
import { SqlDeliveryJobs } from './delivery/sql-delivery-jobs.js';
import { SqlSubscriptions } from './subscriptions/sql-subscriptions.js';
import { SubscriptionService } from './subscriptions/subscription-service.js';
import { DeadLetterService } from './invocations/dead-letter-service.js';
import { InvocationRunner } from './invocations/invocation-runner.js';
import type { RetryPolicy } from './ports/invocation-queue.js';
import type { Scheduler } from './ports/scheduler.js';
import type { Store } from './ports/store.js';
import { MemoryPubSub } from './pubsub/memory-pubsub.js';
import type { PubSub } from './pubsub/pubsub.js';
import { MemoryRateLimiter } from './ratelimit/memory-rate-limiter.js';
import type { RateLimiter } from './ratelimit/rate-limiter.js';
import { SecretBox } from './secrets/secret-box.js';
import { KeyedMutex } from './sources/keyed-mutex.js';
import { SourceExecutor } from './sources/source-executor.js';
import { EventService } from './sources/event-service.js';
import { OWNER_ID, SourceService } from './sources/source-service.js';
import { openBackend } from './store/open-backend.js';
import { composeWorkflows } from './workflows/compose-workflows.js';
import type { Deliver } from './workflows/run-executor.js';
import type { WorkflowService } from './workflows/workflow-service.js';

export interface EngineOptions {
  /** SQLite file (unless `databaseUrl`), master key and submitted code live here. */
  readonly dataDir: string;
  /**
   * `postgres://user:password@host:port/database`: the store on PostgreSQL, which several processes
   * may share. Without it the store is the SQLite file in `dataDir`.
   */
  readonly databaseUrl?: string;
  /** Bundles and installed npm packages (shared with the CLI). */
  readonly cacheDir: string;
  /** Public base URL of the server: endpoint URLs are built from it. */
  readonly publicUrl: string;
  readonly allowPrivateUrls: boolean;
  /** Invocations running at once across sources. */
  readonly concurrency: number;
  readonly sourceTimeoutMs: number;
  readonly log: (message: string) => void;
  readonly now?: () => number;
  /** An operator's app catalog file (docs/accounts.md), stored in the catalog at each start. */
  readonly appsFile?: string;
  /** Fan-out of committed events and logs, and customResponse replies (default: in-process). */
  readonly pubsub?: PubSub;
  /** The HTTP endpoints' rate limit (default: in-process, 10/s with bursts of 50). */
  readonly endpointLimiter?: RateLimiter;
  /** How platform failures of invocations are retried before they become dead letters. */
  readonly retry?: Partial<RetryPolicy>;
  /** Longest wait between the scheduler's checks (default 1 s). */
  readonly schedulerMaxSleepMs?: number;
  /** `$.send.*` and webhook delivery: SMTP, S3, timeouts, retries (docs/destinations.md). */
  readonly delivery?: Omit<DeliverySettings, 'allowPrivateUrls'> & { readonly maxSleepMs?: number };
  /** Runs kept per workflow unless its settings say otherwise (default 1,000). */
  readonly workflowKeepRuns?: number;
  /** Where a workflow step's `$.send.*` calls go after its checkpoint (the delivery service). */
  readonly deliver?: Deliver;
}

/**
 * The platform's services on the embedded SQLite store or on PostgreSQL (`databaseUrl`):
 * components and the registry, deployed sources and their lifecycle, the durable invocation queue,
 * the scheduler, the event bin and logs, API keys and secrets. One `Engine` per process; the server
 * and the CLI's `start` use it.
 */
export class Engine {
  private constructor(
    private readonly store: Store,
    private readonly closeStore: () => Promise<void>,
    readonly sandbox: Sandbox,
    readonly apiKeys: ApiKeys,
    readonly components: ComponentService,
    readonly sources: SourceService,
    readonly runner: InvocationRunner,
    readonly scheduler: Scheduler,
    readonly events: EventService,
    readonly deadLetters: DeadLetterService,
    readonly pubsub: PubSub,
    readonly apps: AppCatalog,
    readonly accounts: AccountService,
    readonly calls: ComponentCalls,
    readonly endpointLimiter: RateLimiter,
    readonly options: EngineOptions,
    /** Which store this engine is on, and where (a file, or PostgreSQL's host:port/database). */
    readonly storage: { readonly kind: 'sqlite' | 'postgres'; readonly location: string },
    readonly deliveries: DeliveryService,
    readonly subscriptions: SubscriptionService,
    readonly workflows: WorkflowService,
    private readonly workflowTimers: { start(): void; stop(): Promise<void> },
  ) {}

  static async create(options: EngineOptions): Promise<Engine> {
    const now = options.now ?? Date.now;
    const backend = await openBackend({
      dataDir: options.dataDir,
      now,
      log: options.log,
      ...(options.databaseUrl ? { databaseUrl: options.databaseUrl } : {}),
      ...(options.retry ? { retry: options.retry } : {}),
    });
    const { db, store, queue } = backend;
    const box = SecretBox.fromKeyFile(path.join(options.dataDir, 'master.key'));
    const sandbox = new Sandbox({ cacheDir: options.cacheDir });
    for (const layer of sandbox.isolation.layers)
      if (!layer.active) options.log(`sandbox ${layer.name} is off: ${layer.note ?? 'not available here'}`);
    const pubsub = options.pubsub ?? new MemoryPubSub({ log: options.log });
    const locks = new KeyedMutex();
    const apps = new AppCatalog({ db, now });
    if (options.appsFile) {
      const file = options.appsFile;
      const count = await apps.loadFile(file).catch(async (error: unknown) => {
        await backend.close();
        throw error;
      });
      options.log(`apps file ${file}: ${count} app(s) stored in the catalog`);
    }
    const accounts = new AccountService({ db, catalog: apps, box, now });
    const components = new ComponentService({
      db,
      sandbox,
      codeDir: path.join(options.dataDir, 'code'),
      allowPrivateUrls: options.allowPrivateUrls,
      now,
    });
    // Deliveries and subscriptions call each other and the runner and store made below, all lazily.
    const { maxSleepMs: deliveryMaxSleepMs, ...deliverySettings } = options.delivery ?? {};
    const deliveries: DeliveryService = new DeliveryService({
      jobs: new SqlDeliveryJobs({ db, box, order: backend.insertionOrder }),
      settings: { ...deliverySettings, allowPrivateUrls: options.allowPrivateUrls },
      pubsub,
      fanOut: (input) => subscriptions.fanOut(input),
      now,
      log: options.log,
      ...(deliveryMaxSleepMs !== undefined ? { maxSleepMs: deliveryMaxSleepMs } : {}),
    });
    const sourceExists = async (id: string): Promise<boolean> => (await store.getSource(id)) !== undefined;
    const subscriptions: SubscriptionService = new SubscriptionService({
      table: new SqlSubscriptions({ db }),
      deliveries,
      box,
      sources: {
        exists: sourceExists,
        run: async (listenerId, event) => {
          await runner.enqueue({ sourceId: listenerId, trigger: 'manual', event });
        },
      },
      eventsAfter: (sourceId, lastId) => store.eventsAfter(sourceId, lastId),
      latestEventId: async (sourceId) => (await store.listEvents(sourceId, { limit: 1 })).data[0]?.id ?? null,
      allowPrivateUrls: options.allowPrivateUrls,
      owner: OWNER_ID,
      now,
      log: options.log,
    });
    const executor = new SourceExecutor({
      sandbox,
      components,
      box,
      pubsub,
      now,
      publicUrl: options.publicUrl,
      sourceTimeoutMs: options.sourceTimeoutMs,
      accounts,
      onCommitted: (sourceId, events) => subscriptions.committed(sourceId, events),
    });
    // Workflow runs go through the same queue, runner and sandbox pool as sources.
    const workflowParts = composeWorkflows({
      store: backend.workflows,
      box,
      components,
      executor,
      accounts,
      pubsub,
      sources: store,
      publicUrl: options.publicUrl,
      now,
      log: options.log,
      stepTimeoutMs: 30_000,
      ...(options.workflowKeepRuns !== undefined ? { keepRuns: options.workflowKeepRuns } : {}),
      // A step's `$.send.*` calls go to the delivery service after its checkpoint, as an action run's do.
      deliver:
        options.deliver ??
        (async (sends, context) => {
          await deliveries.deliver(sends, {
            owner: OWNER_ID,
            runId: context.runId,
            stepName: context.step,
            emitterId: context.workflowId,
          });
        }),
      notify: (key) => runner.notify([key]),
      onDeleted: (id) => subscriptions.forget(id),
      checkSends: (sends) => deliveries.check(sends),
    });
    // Workflows (`wf_…`) emit with `$.send.emit` and listen as subscribers: each event starts a run.
    const workflowIds = {
      exists: (id: string) => workflowParts.service.exists(id),
      run: (id: string, event: unknown) => workflowParts.service.listen(id, event),
    };
    subscriptions.registerEmitter('wf_', workflowIds);
    subscriptions.registerListener('wf_', workflowIds);
    const runner = new InvocationRunner({
      workflows: workflowParts.queueHandler,
      store,
      queue,
      executor,
      components,
      locks,
      concurrency: options.concurrency,
      now,
      log: options.log,
      pubsub,
    });
    const scheduler = backend.scheduler({
      onQueued: (sourceIds) => runner.notify(sourceIds),
      log: options.log,
      ...(options.schedulerMaxSleepMs !== undefined ? { maxSleepMs: options.schedulerMaxSleepMs } : {}),
    });
    const sources = new SourceService({
      db,
      components,
      executor,
      locks,
      box,
      now,
      onSchedulesChanged: () => scheduler.wake(),
      configureTimeoutMs: 30_000,
      store,
      accounts,
      onDeleted: (sourceId) => subscriptions.forget(sourceId),
    });
    const calls = new ComponentCalls({
      components,
      executor,
      accounts,
      configureTimeoutMs: 30_000,
      actionTimeoutMs: 30_000,
      deliveries,
      owner: OWNER_ID,
    });
    return new Engine(
      store,
      () => backend.close(),
      sandbox,
      new ApiKeys(db, now),
      components,
      sources,
      runner,
      scheduler,
      new EventService({ store }),
      new DeadLetterService({ list: queue.deadLetters, onRequeued: (sourceId) => runner.notify([sourceId]) }),
      pubsub,
      apps,
      accounts,
      calls,
      options.endpointLimiter ?? new MemoryRateLimiter(),
      options,
      { kind: backend.kind, location: backend.location },
      deliveries,
      subscriptions,
      workflowParts.service,
      workflowParts.timers,
    );
  }

  async start(): Promise<void> {
    // Before new commits: what a crash left between a commit and its hand-off goes first.
    await this.subscriptions.recover();
    await this.runner.start();
    this.scheduler.start();
    this.deliveries.start();
    this.workflowTimers.start();
  }

  /** Stops timers, finishes invocations in flight (queued ones wait for the next start), closes. */
  async stop(): Promise<void> {
    await this.scheduler.stop();
    await this.workflowTimers.stop();
    await this.runner.stop();
    await this.subscriptions.drain();
    await this.deliveries.stop();
    await this.sandbox.close();
    await this.closeStore();
    await Promise.all([this.pubsub.close(), this.endpointLimiter.close()]);
  }

  /**
   * One workflow run as `GET /v1/workflow-runs/{id}` answers it (a local `workflow run` too): its
   * steps, and the deliveries of their `$.send.*` calls in send order.
   */
  async workflowRun(runId: string): Promise<WorkflowRunDetailT> {
    const run = await this.workflows.getRun(runId);
    const deliveries = await this.deliveries.listByRun(runId);
    return { ...run, deliveries: deliveries.map((record) => ({ ...record, log: [...record.log] })) };
  }

  /** The active source behind an HTTP endpoint id, or null (unknown, inactive or deleted). */
  findEndpoint(endpointId: string): Promise<{ readonly id: string; readonly customResponse: boolean } | null> {
    return this.store.findEndpoint(endpointId);
  }
}
