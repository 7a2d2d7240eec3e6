/**
 * @module @tributary/engine
 * The platform's services on the embedded SQLite store: saved components and the registry,
 * deployed sources and their lifecycle, the durable invocation queue, the scheduler, the event
 * bin and logs, API keys and encrypted secrets.
 */
export { Engine } from './engine.js';
export type { EngineOptions } from './engine.js';
export { API_KEY_PREFIX } from './auth/api-keys.js';
export type { ApiKeyRecord } from './auth/api-keys.js';
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
  Unsubscribe,
} from './pubsub/pubsub.js';
export { MemoryPubSub } from './pubsub/memory-pubsub.js';
export type { MemoryPubSubOptions } from './pubsub/memory-pubsub.js';
export { DEFAULT_ENDPOINT_RATE_LIMIT } from './ratelimit/rate-limiter.js';
export type { Admission, RateLimit, RateLimiter } from './ratelimit/rate-limiter.js';
export { MemoryRateLimiter } from './ratelimit/memory-rate-limiter.js';
export type { MemoryRateLimiterOptions } from './ratelimit/memory-rate-limiter.js';
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
export type { WorkflowService } from './workflows/workflow-service.js';
export type { Deliver } from './workflows/run-executor.js';
export { DEFAULT_KEEP_RUNS } from './workflows/compose-workflows.js';
export { checkWorkflow } from './workflows/check-workflow.js';
