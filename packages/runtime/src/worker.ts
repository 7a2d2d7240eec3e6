/**
 * @module @tributary/runtime/worker
 * What a sandbox worker process needs to run a component that was bundled elsewhere: import the
 * bundle, validate it, resolve props, invoke, list options. It never loads the bundler.
 */
export { importBundle } from './load/import-bundle.js';
export { SEND_KINDS } from './action/send.js';
export { validateComponent } from './validate/validate-component.js';
export type { ValidationResult } from './validate/validate-component.js';
export type { ValidationIssue, ValidationPurpose } from './validate/issues.js';
export { describeProps } from './props/describe-props.js';
export type { ConfigurableProp } from './props/describe-props.js';
export { resolveProps } from './props/resolve-props.js';
export type { Accounts, ResolvedProps } from './props/resolve-props.js';
export { resolvePropSpecs } from './invoke/dynamic-props.js';
export { invokeComponent } from './invoke/invoke-component.js';
export type { InvocationKind, InvocationResult, InvocationState, InvokeInput } from './invoke/invoke-component.js';
export { listPropOptions } from './invoke/list-options.js';
export type { OptionsPage } from './invoke/list-options.js';
export type { LogEntry } from './invoke/log-capture.js';
export type { EmittedEvent } from './emit/emitted-event.js';
export type { HttpResponse } from './interfaces/http-response.js';
export { describeTimer } from './interfaces/timer.js';
export type { Component, Json } from './types.js';
