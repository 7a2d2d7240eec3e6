/**
 * @module @tributary/runtime
 * The component model: load and validate Pipedream-style components (rules C1–C17, P1–P14),
 * resolve props, build `this` and `$`, run hooks and `run`, collect emits and apply dedupe.
 * It does no storage of its own: state goes in and comes out of each invocation.
 */
export { bundleComponent } from './load/bundle-component.js';
export type { BundleOptions, ComponentBundle, PackageImport } from './load/bundle-component.js';
export { evaluateBundle } from './load/evaluate-bundle.js';
export { importBundle, writeBundle } from './load/import-bundle.js';
export { inspectComponentFile, loadComponentFile } from './load/load-component.js';
export type { LoadOptions, LoadReport } from './load/load-component.js';
export { isBareSpecifier, parsePackageSpecifier } from './load/parse-specifier.js';
export type { PackageSpecifier } from './load/parse-specifier.js';
export { validateComponent } from './validate/validate-component.js';
export type { ValidationResult } from './validate/validate-component.js';
export type { IssueLevel, ValidationIssue, ValidationPurpose } from './validate/issues.js';
export { coercePropValue } from './props/coerce-value.js';
export { describeProps } from './props/describe-props.js';
export type { ConfigurableProp } from './props/describe-props.js';
export { resolveProps, MAX_PROP_VALUE_BYTES, unknownAppNotice } from './props/resolve-props.js';
export { propProblemsError, propProblemsOf } from './props/prop-problems.js';
export type { PropProblem } from './props/prop-problems.js';
export type { Accounts, AppAuthModes, ResolvedApp, ResolvedProps, ResolvePropsInput } from './props/resolve-props.js';
export { parsePropType, propKind, PROP_TYPE_NAMES } from './props/prop-catalogue.js';
export type { PropKind } from './props/prop-catalogue.js';
export { applyDedupe, UNIQUE_CACHE_SIZE } from './emit/dedupe.js';
export type { DedupeOutcome, DedupeState } from './emit/dedupe.js';
export { MAX_DEDUPE_ID_LENGTH } from './emit/emit-buffer.js';
export type { DedupedEvent, EmitMetadata, EmittedEvent } from './emit/emitted-event.js';
export { DB_SIZE_LIMIT_BYTES } from './interfaces/db-store.js';
export { buildHttpEvent } from './interfaces/http-event.js';
export type { RawHttpRequest } from './interfaces/http-event.js';
export { CUSTOM_RESPONSE_DEADLINE_MS, ENDPOINT_REPLIES, MAX_ENDPOINT_BODY_BYTES } from './interfaces/http-response.js';
export type { HttpResponse } from './interfaces/http-response.js';
export {
  declaredTimerValue,
  describeTimer,
  DEFAULT_TIMER_INTERVAL_SECONDS,
  MIN_TIMER_INTERVAL_SECONDS,
  nextTimerFire,
  parseTimerValue,
  timerEvent,
} from './interfaces/timer.js';
export type { TimerSchedule } from './interfaces/timer.js';
export type { SendKind, SendRecord } from './action/send.js';
export { isSendKind, SEND_KINDS } from './action/send.js';
export { invokeComponent } from './invoke/invoke-component.js';
export type { InvocationKind, InvocationResult, InvocationState, InvokeInput } from './invoke/invoke-component.js';
export { resolvePropSpecs } from './invoke/dynamic-props.js';
export type { DynamicPropsInput } from './invoke/dynamic-props.js';
export { listPropOptions } from './invoke/list-options.js';
export type { ListOptionsInput, OptionsPage } from './invoke/list-options.js';
export type { LogEntry, LogLevel } from './invoke/log-capture.js';
export { MAX_INVOCATION_PAYLOAD_BYTES } from './invoke/payload-budget.js';
export {
  deploySource,
  hookFailure,
  removeSource,
  unexpectedOutcome,
  updateSource,
  type Applied,
  type DeployOutcome,
  type DeploySourceOptions,
  type HookFailure,
  type LifecycleCommit,
  type LifecycleOutcome,
  type Refused,
  type RemoveSourceOptions,
  type RolledBack,
  type RunHook,
  type UpdateOutcome,
  type UpdateSourceOptions,
} from './lifecycle/index.js';
export { DEFAULT_ACTION_TIMEOUT_MS, DEFAULT_SOURCE_TIMEOUT_MS } from './limits.js';
export type {
  AppDefinition,
  Component,
  ComponentType,
  DedupeStrategy,
  HookName,
  Json,
  PropSpec,
  RawComponent,
} from './types.js';
