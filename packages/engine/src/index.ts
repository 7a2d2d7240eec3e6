/**
 * @module @tributary/engine
 * The platform's services on the embedded SQLite store or on PostgreSQL: saved components and the
 * registry, deployed sources and their lifecycle, the durable invocation queue, the scheduler, the
 * event bin and logs, API keys and encrypted secrets.
 */
export { Engine, PROCESS_ROLES } from './engine.js';
export { InstallProgressFeed } from './installs/install-progress-feed.js';
export type { InstallProgressListener, InstallScope } from './installs/install-progress-feed.js';
export type { EngineOptions, ProcessRole } from './engine.js';
export type { WorkDispatch } from './ports/work-dispatch.js';
export { BullmqDispatch } from './redis/bullmq-dispatch.js';
export type { BullmqDispatchOptions } from './redis/bullmq-dispatch.js';
export { BullmqTimerJobs } from './redis/bullmq-timer-jobs.js';
export type { BullmqTimerJobsOptions } from './redis/bullmq-timer-jobs.js';
export { describeDatabaseUrl, isPostgresUrl } from './store/database-url.js';
export { API_KEY_PREFIX } from './auth/api-keys.js';
export type { ApiKeyRecord } from './auth/api-keys.js';
export { BROWSER_SESSION_TTL_MS } from './auth/browser-sessions.js';
export type { BrowserSession } from './auth/browser-sessions.js';
export type { ComponentRow, ComponentSource } from './components/component-service.js';
export { isPrivateAddress } from './components/fetch-component-url.js';
export type { Trigger } from './invocations/invocation-runner.js';
export type {
  EventRecord,
  LogRecord,
  PubSub,
  PubSubStats,
  SourceListener,
  SourceMessage,
  StopRequest,
  StopRunsListener,
  Unsubscribe,
} from './pubsub/pubsub.js';
export { MemoryPubSub } from './pubsub/memory-pubsub.js';
export type { MemoryPubSubOptions } from './pubsub/memory-pubsub.js';
export { DEFAULT_ENDPOINT_RATE_LIMIT } from './ratelimit/rate-limiter.js';
export type { Admission, RateLimit, RateLimiter } from './ratelimit/rate-limiter.js';
export { MemoryRateLimiter } from './ratelimit/memory-rate-limiter.js';
export type { MemoryRateLimiterOptions } from './ratelimit/memory-rate-limiter.js';
export { RedisPubSub } from './pubsub/redis-pubsub.js';
export type { RedisPubSubOptions } from './pubsub/redis-pubsub.js';
export { RedisRateLimiter } from './ratelimit/redis-rate-limiter.js';
export type { RedisRateLimiterOptions } from './ratelimit/redis-rate-limiter.js';
export { connectRedis, redactRedisUrl } from './redis/connect-redis.js';
export type { ConnectRedisOptions } from './redis/connect-redis.js';
export { openRedisPorts } from './redis/open-redis-ports.js';
export type { RedisPorts, RedisPortsOptions } from './redis/open-redis-ports.js';
// The server reaches the component model only through the engine (architecture.md §2): these are
// the pieces of it the HTTP ingress needs to turn a request into an event and a reply into HTTP.
export {
  buildHttpEvent,
  CUSTOM_RESPONSE_DEADLINE_MS,
  ENDPOINT_REPLIES,
  MAX_ENDPOINT_BODY_BYTES,
} from '@tributary/runtime';
export type { HttpResponse } from '@tributary/runtime';
export { REDACTED } from './sources/configured-props.js';
export type { EventService } from './sources/event-service.js';
export type { DeadLetterService } from './invocations/dead-letter-service.js';
export type { Page, PageQuery, SourceCommit, SourceState, Store, StoredSource } from './ports/store.js';
export type {
  FailOutcome,
  InvocationQueue,
  NewInvocation,
  QueuedInvocation,
  RetryPolicy,
} from './ports/invocation-queue.js';
export { backoffMs, DEFAULT_RETRY_POLICY } from './ports/invocation-queue.js';
export type { DeadLetter, DeadLetterList, DeadLetterQuery } from './ports/dead-letter-list.js';
export type { Scheduler } from './ports/scheduler.js';
export { EVENT_BIN_SIZE, LOG_SIZE } from './sources/event-store.js';
export type { SourceRow } from './sources/source-executor.js';
export { OWNER_ID } from './sources/source-service.js';
export type { DeployedSource, DeployRequest, UpdateRequest } from './sources/source-service.js';
export { readAppsFile } from './apps/app-catalog.js';
export type { AppCatalog } from './apps/app-catalog.js';
export { BUILTIN_APPS } from './apps/builtin-apps.js';
export type { AccountRow, AccountService } from './accounts/account-service.js';
export { authProvisionIdOf } from './accounts/auth-provision.js';
export type { ComponentCalls } from './actions/component-calls.js';
export { buildRunReport, emptyReport, toError } from './actions/run-report.js';
export type { RunReport } from './actions/run-report.js';
export type { DeliveryService, DeliverySettings, EmitFanOut } from './delivery/delivery-service.js';
export type {
  DeliveryAttempt,
  DeliveryContext,
  DeliveryKind,
  DeliveryRecord,
  DeliveryStatus,
} from './delivery/delivery-types.js';
export { DEFAULT_DELIVERY_RETRY, deliveryBackoffMs } from './delivery/retry-policy.js';
export { sendTarget } from './delivery/send-jobs.js';
export type { DeliveryRetryPolicy } from './delivery/retry-policy.js';
export { CHANNEL_PATTERN } from './delivery/check-destination.js';
export { channelKey, subscribeToChannel } from './delivery/sse-channels.js';
export { SIGNATURE_HEADER, signWebhook } from './delivery/webhook-signature.js';
export type { S3Settings } from './delivery/deliverers/s3-deliverer.js';
export type { EmailSettings } from './delivery/deliverers/email-deliverer.js';
export type { SendDelivery } from './actions/run-report.js';
export type { SubscriptionService, Subscribed } from './subscriptions/subscription-service.js';
export type { EmitterKind, ListenerKind } from './subscriptions/id-kinds.js';
export type { SubscriptionTable } from './subscriptions/subscription-table.js';
export type { DeliveryJobs, NewDelivery, AttemptResult } from './delivery/delivery-jobs.js';
export type { Subscription, SubscribeRequest } from './subscriptions/subscription-types.js';
export type { WorkflowService } from './workflows/workflow-service.js';
export type { Deliver } from './workflows/run-executor.js';
export { DEFAULT_KEEP_RUNS } from './workflows/compose-workflows.js';
export { checkWorkflow } from './workflows/check-workflow.js';
export type { ImportJob as ImportJobState } from './registry-import/import-jobs.js';
export type { RegistryPackage as RegistryPackageState, OutdatedPackage } from './registry-import/registry-service.js';
export type { ImportProgress, ImportReport } from './registry-import/import-report.js';
export { describeProgress } from './registry-import/import-report.js';
export { NO_METRICS } from './ports/metrics.js';
export type {
  InvocationOutcome,
  MetricSources,
  Metrics,
  PoolStats,
  QueueDepth,
  QueueKind,
  WorkerExitReason,
} from './ports/metrics.js';
export { PrometheusMetrics } from './metrics/prometheus-metrics.js';
export { Readiness } from './health/readiness.js';
export type { ReadinessCheck, ReadinessFailure, ReadinessReport, ReadinessThresholds } from './health/readiness.js';
export type { NamedFailure, StatusReport, StatusService } from './health/status-service.js';
export type { RecentFailure, SourceFailure, WorkflowFailure } from './health/recent-failures.js';
export { messageLogger } from './ports/logger.js';
export type { LogFields, Logger } from './ports/logger.js';
export { bindingCookieName, OAuthConnect } from './oauth/oauth-connect.js';
export { OAuthClients, envPrefix } from './oauth/oauth-clients.js';
export { rotateKeys } from './secrets/rotate-keys.js';
export type { RotateKeysOptions, RotationReport } from './secrets/rotate-keys.js';
export { MASTER_KEY_FILE_VARIABLE, MASTER_KEY_VARIABLE } from './secrets/master-keyring.js';
