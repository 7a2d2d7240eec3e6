import { InstallProgressFeed } from './installs/install-progress-feed.js';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { countOf, type WorkflowRunDetailT } from '@tributary/contracts';
import { egressFromEnv, Sandbox } from '@tributary/sandbox';
import { AccountCache } from './accounts/account-cache.js';
import { AccountService } from './accounts/account-service.js';
import { ComponentCalls } from './actions/component-calls.js';
import { AppCatalog } from './apps/app-catalog.js';
import { ApiKeys } from './auth/api-keys.js';
import { BrowserSessions } from './auth/browser-sessions.js';
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
import type { WorkDispatch } from './ports/work-dispatch.js';
import { MemoryPubSub } from './pubsub/memory-pubsub.js';
import type { PubSub } from './pubsub/pubsub.js';
import { MemoryRateLimiter } from './ratelimit/memory-rate-limiter.js';
import type { RateLimiter } from './ratelimit/rate-limiter.js';
import { OAuthClients } from './oauth/oauth-clients.js';
import { OAuthConnect } from './oauth/oauth-connect.js';
import { TokenRefresher } from './oauth/token-refresher.js';
import { instanceSecret } from './secrets/instance-secrets.js';
import { MasterKeyring } from './secrets/master-keyring.js';
import { makePrivateDir } from './secrets/private-files.js';
import { resealAll } from './secrets/reseal-all.js';
import { SecretBox } from './secrets/secret-box.js';
import { KeyedMutex } from './sources/keyed-mutex.js';
import { SourceExecutor } from './sources/source-executor.js';
import { EventService } from './sources/event-service.js';
import { OWNER_ID, SourceService } from './sources/source-service.js';
import { queueClaims } from './sources/update-claim.js';
import { ImportJobs } from './registry-import/import-jobs.js';
import { PackageImporter } from './registry-import/package-importer.js';
import { CURATED_PACKAGE_DIR } from './registry-import/curated.js';
import { RegistryService } from './registry-import/registry-service.js';
import { openBackend } from './store/open-backend.js';
import type { Database } from './store/schema.js';
import type { BullmqTimerJobs } from './redis/bullmq-timer-jobs.js';
import { BullmqScheduler } from './scheduler/bullmq-scheduler.js';
import { SourceTimerTargets } from './scheduler/source-timer-targets.js';
import { WorkflowTimerTargets } from './workflows/workflow-timer-targets.js';
import { earliestFireAt, oldestDueSince, pingDatabase } from './health/readiness-queries.js';
import { Readiness, type ReadinessThresholds } from './health/readiness.js';
import { RecentFailures } from './health/recent-failures.js';
import { StatusService } from './health/status-service.js';
import { readQueueDepths } from './metrics/queue-depths.js';
import { NO_METRICS, type Metrics } from './ports/metrics.js';
import { messageLogger, type Logger } from './ports/logger.js';
import { composeWorkflows, WORKFLOW_SLOT_WAIT_MS, workflowRunsAtOnce } from './workflows/compose-workflows.js';
import type { Deliver } from './workflows/run-executor.js';
import type { WorkflowService } from './workflows/workflow-service.js';
import type { RunRow } from './workflows/workflow-store.js';

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
  /**
   * Base of endpoint URLs (`<base>/e/<id>`) when endpoints have an origin of their own
   * (TRIBUTARY_ENDPOINT_BASE_URL, docs/server.md#endpoint-origin); default `publicUrl`.
   */
  readonly endpointBaseUrl?: string;
  readonly allowPrivateUrls: boolean;
  /** Invocations running at once across sources. */
  readonly concurrency: number;
  /**
   * A run past this long gives its slot to the next source and holds a long-run slot instead
   * (default 500 ms), so slow or hanging code cannot take every slot (docs/operations.md#fair-scheduling).
   */
  readonly longRunMs?: number;
  /** Slots for runs past `longRunMs`, beside `concurrency` (default: as many as `concurrency`). */
  readonly longRunSlots?: number;
  /**
   * On `stop`, how long runs in flight may finish (default 30 s); those still running then are
   * stopped with their workers and stay queued for the next start.
   */
  readonly shutdownGraceMs?: number;
  readonly sourceTimeoutMs: number;
  /**
   * The data directory is thrown away when the engine stops (a local `workflow run`): no advice
   * about moving its master key out of it, which only matters for a directory that is kept.
   */
  readonly throwawayDataDir?: boolean;
  /** Where the engine's lines go when there is no `logger`: one line of text each. */
  readonly log: (message: string) => void;
  /**
   * The structured log (pino's logger fits): lines about a source, workflow run or invocation carry
   * their ids. Without it, lines go to `log` with their fields appended.
   */
  readonly logger?: Logger;
  readonly now?: () => number;
  /** An operator's app catalog file (docs/accounts.md), stored in the catalog at each start. */
  readonly appsFile?: string;
  /** Fan-out of committed events and logs, and customResponse replies (default: in-process). */
  readonly pubsub?: PubSub;
  /**
   * Wakes worker processes when work is queued (BullMQ on Redis); closed with the engine. Without
   * it other processes on the same database find queued work at their next rescan (5 s).
   */
  readonly dispatch?: WorkDispatch;
  /**
   * How often the runner re-reads the queue for work nothing told it of (default 5 s): queued by
   * another process without `dispatch`, or left after a failure.
   */
  readonly queueRescanMs?: number;
  /**
   * How long an update of a source waits for its run in flight before stopping it (default 10 s);
   * the run's invocations then run again with the update applied.
   */
  readonly sourceUpdateWaitMs?: number;
  /**
   * Timer sources' and timer workflows' schedules as BullMQ job schedulers (Redis); closed with the
   * engine. Without it the scheduler checks the store's fire times itself, and workflow timers are
   * checked every second.
   */
  readonly timerJobs?: BullmqTimerJobs;
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
  /**
   * How long a workflow's HTTP trigger waits for a run slot when every one is taken, so its run
   * starts at once as it is acknowledged (default WORKFLOW_SLOT_WAIT_MS; 0: queue it at once).
   */
  readonly workflowSlotWaitMs?: number;
  /** Where a workflow step's `$.send.*` calls go after its checkpoint (the delivery service). */
  readonly deliver?: Deliver;
  /** npm registry URL for `registry add` (default: the npm CLI's default registry). */
  readonly npmRegistry?: string;
  /** Where the engine reports what it does (`PrometheusMetrics` for `/metrics`; default: nowhere). */
  readonly metrics?: Metrics;
  /** When `/readyz` calls the runner stuck or the scheduler behind (docs/operations.md). */
  readonly readiness?: Partial<ReadinessThresholds>;
  /**
   * Where TRIBUTARY_OAUTH_<SLUG>_CLIENT_ID/SECRET and TRIBUTARY_EGRESS(_ALLOW) are read (default:
   * the process environment).
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Refresh OAuth tokens expiring within this many ms before a run (default 60 s). */
  readonly oauthRefreshLeewayMs?: number;
}

/** What a process of several sharing one database does (`tributary start --role`). */
export const PROCESS_ROLES = ['all', 'api', 'worker', 'scheduler'] as const;
export type ProcessRole = (typeof PROCESS_ROLES)[number];

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
    readonly runner: InvocationRunner<RunRow>,
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
    readonly oauthClients: OAuthClients,
    readonly oauth: OAuthConnect,
    private readonly workflowTimers: { start(): void; stop(): Promise<void> },
    readonly registry: RegistryService,
    readonly imports: ImportJobs,
    readonly browserSessions: BrowserSessions,
    readonly metrics: Metrics,
    readonly readiness: Readiness,
    /** Version-free health at a glance: uptime, queue, pool, readiness, recent failures. */
    readonly status: StatusService,
    /** npm installs for components as they start and finish (deploy progress). */
    readonly installs: InstallProgressFeed,
  ) {}

  static async create(engineOptions: EngineOptions): Promise<Engine> {
    const logger = engineOptions.logger ?? messageLogger(engineOptions.log);
    // The parts below write plain lines about the platform itself (a failed check, a lost
    // connection): warnings in the structured log. Lines about one item carry its ids instead.
    const options: EngineOptions = { ...engineOptions, log: (message) => logger.warn({}, message) };
    const now = options.now ?? Date.now;
    // Before the data directory and the database: a key that is not usable is refused before
    // anything is created.
    const box = new SecretBox(
      MasterKeyring.load({ dataDir: options.dataDir, env: options.env ?? process.env, log: options.log }),
    );
    makePrivateDir(options.dataDir, options.log);
    const backend = await openBackend({
      dataDir: options.dataDir,
      now,
      log: options.log,
      ...(options.databaseUrl ? { databaseUrl: options.databaseUrl } : {}),
      ...(options.retry ? { retry: options.retry } : {}),
    });
    const { db, store, queue } = backend;
    const { pepper } = await prepareSecrets(backend, box, now).catch(async (error: unknown) => {
      await backend.close();
      throw error;
    });
    const placement = box.keyring.placementWarning();
    if (placement && options.throwawayDataDir !== true) options.log(placement);
    const metrics = options.metrics ?? NO_METRICS;
    const longRunSlots = options.longRunSlots ?? options.concurrency;
    const installs = new InstallProgressFeed();
    const sandbox = new Sandbox({
      cacheDir: options.cacheDir,
      onInstallProgress: (progress) => installs.publish(progress),
      // Every run slot, long-run ones included, gets a worker of its own: a run queued behind a
      // hanging one on a shared worker would wait for it, whatever the runner's slots say.
      maxWorkersPerGroup: Math.max(4, options.concurrency + longRunSlots),
      maxWorkers: Math.max(16, options.concurrency + longRunSlots),
      egress: egressFromEnv(options.env ?? process.env),
      onEgressRefused: (target, reason) => logger.warn({ target }, `egress refused: ${reason}`),
      workerEvents: { started: () => metrics.workerStarted(), exited: (reason) => metrics.workerExited(reason) },
    });
    for (const layer of sandbox.isolation.layers)
      if (!layer.active) logger.warn({}, `sandbox ${layer.name} is off: ${layer.note ?? 'not available here'}`);
    const pubsub = options.pubsub ?? new MemoryPubSub({ log: options.log });
    const locks = new KeyedMutex();
    const oauthClients = new OAuthClients({
      db,
      box,
      now,
      env: options.env ?? process.env,
      redirectUri: new URL('/v1/oauth/callback', options.publicUrl).href,
    });
    // What runs read of accounts and the catalog is kept between writes only where this process
    // makes every write (SQLite); processes sharing PostgreSQL read the store on every run.
    const accountCache = backend.kind === 'sqlite' ? new AccountCache() : undefined;
    const apps = new AppCatalog({
      db,
      now,
      oauthClients: () => oauthClients.sources(),
      ...(accountCache ? { onChanged: () => accountCache.catalogChanged() } : {}),
    });
    if (options.appsFile) {
      const file = options.appsFile;
      const count = await apps.loadFile(file).catch(async (error: unknown) => {
        await backend.close();
        throw error;
      });
      logger.info({}, `apps file ${file}: ${countOf(count, 'app')} stored in the catalog`);
    }
    const refresher = new TokenRefresher({
      db,
      box,
      catalog: apps,
      clients: oauthClients,
      dialect: backend.kind,
      ...(accountCache ? { cache: accountCache } : {}),
      now,
      log: options.log,
      ...(options.oauthRefreshLeewayMs !== undefined ? { leewayMs: options.oauthRefreshLeewayMs } : {}),
    });
    const accounts = new AccountService({
      db,
      catalog: apps,
      box,
      now,
      refresher,
      ...(accountCache ? { cache: accountCache } : {}),
    });
    const oauth = new OAuthConnect({
      db,
      box,
      catalog: apps,
      clients: oauthClients,
      accounts,
      publicUrl: options.publicUrl,
      now,
    });
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
      table: new SqlSubscriptions({ db, remember: backend.kind === 'sqlite' }),
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
      publicUrl: options.endpointBaseUrl ?? options.publicUrl,
      sourceTimeoutMs: options.sourceTimeoutMs,
      accounts,
      onCommitted: (sourceId, events) => subscriptions.committed(sourceId, events),
    });
    // Failed source invocations and workflow runs of this process, for the status page.
    const recentFailures = new RecentFailures();
    // Workflow runs go through the same queue, runner and sandbox pool as sources.
    const workflowParts = composeWorkflows({
      store: backend.workflows,
      box,
      components,
      executor,
      accounts,
      pubsub,
      sources: store,
      publicUrl: options.endpointBaseUrl ?? options.publicUrl,
      now,
      log: options.log,
      logger,
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
      reserve: (key, waitMs) => runner.reserveWaiting(key, waitMs, workflowRunsAtOnce(options.concurrency)),
      httpSlotWaitMs: options.workflowSlotWaitMs ?? WORKFLOW_SLOT_WAIT_MS,
      onDeleted: (id) => subscriptions.forget(id),
      onFailed: (failure) => recentFailures.record(failure),
      checkSends: (sends) => deliveries.check(sends),
      // `scheduler` is made below; schedules change only once the engine serves requests.
      ...(options.timerJobs ? { onSchedulesChanged: () => scheduler.wake() } : {}),
    });
    // Workflows (`wf_…`) emit with `$.send.emit` and listen as subscribers: each event starts a run.
    const workflowIds = {
      exists: (id: string) => workflowParts.service.exists(id),
      run: (id: string, event: unknown) => workflowParts.service.listen(id, event),
    };
    subscriptions.registerEmitter('wf_', workflowIds);
    subscriptions.registerListener('wf_', workflowIds);
    const runner = new InvocationRunner({
      workflows: { ...workflowParts.queueHandler, concurrency: workflowRunsAtOnce(options.concurrency) },
      store,
      queue,
      executor,
      components,
      locks,
      concurrency: options.concurrency,
      longRunSlots,
      ...(options.longRunMs !== undefined ? { longRunMs: options.longRunMs } : {}),
      ...(options.queueRescanMs !== undefined ? { rescanMs: options.queueRescanMs } : {}),
      now,
      logger,
      pubsub,
      ...(options.dispatch ? { dispatch: options.dispatch } : {}),
      metrics,
      onFailed: (failure) => recentFailures.record(failure),
    });
    const storeScheduler = backend.scheduler({
      onQueued: (sourceIds) => runner.notify(sourceIds),
      onTickLate: (lateMs) => metrics.timerDrift(lateMs / 1000),
      log: options.log,
      ...(options.schedulerMaxSleepMs !== undefined ? { maxSleepMs: options.schedulerMaxSleepMs } : {}),
    });
    const scheduler: Scheduler = options.timerJobs
      ? new BullmqScheduler({
          jobs: options.timerJobs,
          targets: {
            source: new SourceTimerTargets({
              db,
              now,
              queueTicks: (ticks) => backend.queueTicks(ticks),
              onQueued: (sourceIds) => runner.notify(sourceIds),
            }),
            workflow: new WorkflowTimerTargets({
              store: backend.workflows,
              now,
              notify: (queueKey) => runner.notify([queueKey]),
            }),
          },
          now,
          sweep: storeScheduler,
          onTickLate: (lateMs) => metrics.timerDrift(lateMs / 1000),
          log: options.log,
        })
      : storeScheduler;
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
      stopRuns: (sourceId, because) => runner.stopRuns(sourceId, because),
      ...(options.sourceUpdateWaitMs !== undefined ? { updateWaitMs: options.sourceUpdateWaitMs } : {}),
      stopRunsEverywhere: (sourceId, because) => pubsub.publishStopRuns({ sourceId, because }),
      claims: queueClaims({ queue, runsHere: (sourceId) => runner.runsHere(sourceId) }),
      resumeRuns: (sourceId) => runner.notify([sourceId]),
    });
    // npm packages imported into the registry are unpacked and cached beside the installed ones.
    const fetch = {
      cacheDir: options.cacheDir,
      ...(options.npmRegistry ? { registry: options.npmRegistry } : {}),
    };
    const calls = new ComponentCalls({
      components,
      executor,
      accounts,
      configureTimeoutMs: 30_000,
      actionTimeoutMs: 30_000,
      deliveries,
      owner: OWNER_ID,
    });
    const apiKeys = new ApiKeys(db, now, pepper);
    metrics.bind({ queue: () => readQueueDepths(db, now()), pool: () => sandbox.poolStats() });
    const readiness = new Readiness({
      thresholds: {
        // An invocation may legitimately hold its source's lane for its whole timeout.
        runnerStallMs: options.readiness?.runnerStallMs ?? Math.max(60_000, options.sourceTimeoutMs + 30_000),
        runnerWaitMs: options.readiness?.runnerWaitMs ?? 30_000,
        schedulerLagMs: options.readiness?.schedulerLagMs ?? 30_000,
        databaseTimeoutMs: options.readiness?.databaseTimeoutMs ?? 2000,
      },
      now,
      ping: (timeoutMs) => pingDatabase(db, timeoutMs),
      oldestDueSince: (at, except) => oldestDueSince(db, at, except),
      earliestFireAt: () => earliestFireAt(db),
      runner: () => runner.progress(),
    });
    const status = new StatusService({
      startedAt: now(),
      now,
      storage: backend.kind,
      queue: () => readQueueDepths(db, now()),
      pool: () => sandbox.poolStats(),
      readiness: () => readiness.check(),
      failures: () => recentFailures.list(),
      sourceName: async (sourceId) => (await store.getSource(sourceId))?.name ?? null,
      workflowName: async (workflowId) => (await backend.workflows.getWorkflow(workflowId))?.name ?? null,
    });
    return new Engine(
      store,
      () => backend.close(),
      sandbox,
      apiKeys,
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
      oauthClients,
      oauth,
      workflowParts.timers,
      new RegistryService({
        db,
        fetch,
        importer: new PackageImporter({ db, components, sandbox, now, ...fetch }),
      }),
      new ImportJobs(now),
      new BrowserSessions({ db, apiKeys, now }),
      metrics,
      readiness,
      status,
      installs,
    );
  }

  /**
   * Starts the background work of `role`: `worker` runs invocations, deliveries and hand-offs,
   * `scheduler` fires timers, `all` both; `api` none (it only queues work and reads state).
   */
  async start(role: ProcessRole = 'all'): Promise<void> {
    switch (role) {
      case 'all':
        await this.startWorker();
        this.startScheduler();
        return;
      case 'worker':
        await this.startWorker();
        return;
      case 'scheduler':
        this.startScheduler();
        return;
      case 'api':
        return;
      default:
        role satisfies never;
    }
  }

  private async startWorker(): Promise<void> {
    // Before new commits: what a crash left between a commit and its hand-off goes first.
    await this.subscriptions.recover();
    await this.runner.start();
    this.deliveries.start();
  }

  private startScheduler(): void {
    this.scheduler.start();
    this.workflowTimers.start();
  }

  private stoppingWork: Promise<number> | undefined;

  /**
   * Stops taking work at once (timers, the runner) and lets runs in flight finish for up to the
   * shutdown grace. Resolves with how many runs were still in flight then; `stop` stops them and
   * their entries stay queued. The API keeps answering meanwhile (what it queues waits too).
   */
  stopWork(): Promise<number> {
    this.stoppingWork ??= (async () => {
      await this.scheduler.stop();
      await this.workflowTimers.stop();
      return this.runner.stop(this.options.shutdownGraceMs ?? 30_000);
    })();
    return this.stoppingWork;
  }

  /** Stops timers, finishes invocations in flight (queued ones wait for the next start), closes. */
  async stop(): Promise<void> {
    const left = await this.stopWork();
    if (left > 0)
      this.options.log(
        `${countOf(left, 'run')} still in flight after the ${this.options.shutdownGraceMs ?? 30_000} ms shutdown grace: stopped; their invocations stay queued for the next start`,
      );
    await this.subscriptions.drain();
    await this.deliveries.stop();
    await this.sandbox.close();
    await this.runner.settled();
    await this.closeStore();
    await Promise.all([
      this.pubsub.close(),
      this.endpointLimiter.close(),
      this.options.dispatch?.close(),
      this.options.timerJobs?.close(),
    ]);
  }

  /**
   * Publishes the components Tributary ships (docs/registry.md) unless this version of them is in
   * the registry already; `tributary start` calls it, so a new server's registry is not empty.
   */
  publishCuratedComponents(): ReturnType<RegistryService['publishBundled']> {
    return this.registry.publishBundled(CURATED_PACKAGE_DIR);
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

/**
 * Values sealed before key ids and row binding (migration 0011) are sealed again under the active
 * key (each row once; a start after a crash finishes the rest), then the instance's API key pepper
 * is read, or made on the first start.
 */
async function prepareSecrets(
  backend: { readonly db: Kysely<Database> },
  box: SecretBox,
  now: () => number,
): Promise<{ pepper: Buffer }> {
  await resealAll({ db: backend.db, box, mode: 'legacy' });
  return { pepper: await instanceSecret(backend.db, box, 'api_key_pepper', now()) };
}
