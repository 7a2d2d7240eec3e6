import { AppError, type SerializedError } from '@tributary/contracts';
import { createDollar, type ActionRecord } from '../action/dollar.js';
import type { SendRecord } from '../action/send.js';
import { applyDedupe, type DedupeState } from '../emit/dedupe.js';
import { EmitBuffer } from '../emit/emit-buffer.js';
import type { DedupedEvent, EmittedEvent } from '../emit/emitted-event.js';
import { PayloadBudget } from './payload-budget.js';
import { DbStore } from '../interfaces/db-store.js';
import { normalizeResponse, type HttpResponse } from '../interfaces/http-response.js';
import { describeTimer } from '../interfaces/timer.js';
import type { ResolvedProps } from '../props/resolve-props.js';
import type { Component, ComponentType, HookName, Json } from '../types.js';
import { findNonJson } from '../util/json.js';
import { buildThis } from './build-this.js';
import { classifyError, logLineFor } from './classify-error.js';
import { runWithLogSink, type LogEntry, type LogLevel } from './log-capture.js';
import { randomId } from '../util/random-id.js';

export type InvocationKind = 'run' | HookName;

/** Per-source state an invocation reads at start and hands back at the end (contract §3.3, §4.3). */
export interface InvocationState {
  readonly db: Readonly<Record<string, Json>>;
  readonly dedupe: DedupeState | null;
}

export interface InvokeInput {
  readonly component: Component;
  readonly props: ResolvedProps;
  readonly kind: InvocationKind;
  /** What a source's `run(event)` receives; ignored for actions and hooks. */
  readonly event?: unknown;
  /** What an action's `run({ $, steps })` receives as `steps`. */
  readonly steps?: Readonly<Record<string, unknown>>;
  readonly state?: InvocationState;
  /** Absolute URL of the source's HTTP endpoint, for `this.http.endpoint`. */
  readonly endpointUrl?: string;
  readonly timeoutMs: number;
  readonly now?: () => number;
  readonly invocationId?: string;
  /** Called as each log line is written, for live output. */
  readonly onLog?: (entry: LogEntry) => void;
  /** Called on the first accepted `http.respond` / `$.respond`, before the run ends. */
  readonly onRespond?: (response: HttpResponse) => void;
  /** Called for each `$emit` as it is made, before ordering and dedupe. */
  readonly onEmit?: (emit: EmittedEvent) => void;
  /** Called for each db write as it is made (undefined value = delete). */
  readonly onDbSet?: (key: string, value: Json | undefined) => void;
  /** Limit of logs + events + exports + return value (default 6 MB). */
  readonly maxPayloadBytes?: number;
}

export interface InvocationResult {
  readonly ok: boolean;
  readonly invocationId: string;
  readonly type: ComponentType;
  readonly kind: InvocationKind;
  readonly returnValue: Json | undefined;
  readonly exports: Record<string, Json>;
  readonly summary: string | null;
  /** Emits that passed dedupe, oldest first. */
  readonly emits: EmittedEvent[];
  readonly deduped: DedupedEvent[];
  readonly logs: LogEntry[];
  readonly exit: { reason: string | null } | null;
  /** `$.flow.delay(ms)` of a workflow step (absent when the worker died before reporting). */
  readonly delay?: { ms: number } | null;
  readonly response: HttpResponse | null;
  readonly sends: SendRecord[];
  readonly error: SerializedError | null;
  /** State to persist: db writes (kept even when the run failed) and the new dedupe state. */
  readonly state: InvocationState;
  /** When the invocation started (epoch ms, the clock its log lines are stamped with). */
  readonly startedAtMs: number;
  readonly durationMs: number;
}

const EMPTY_STATE: InvocationState = { db: {}, dedupe: null };

/**
 * Runs one invocation (a source's run or hook, or an action's run) against a deadline, collecting
 * logs, emits, exports and the response; then orders and dedupes the emits (contract §3–§6).
 * Author errors are returned as data, never thrown.
 */
export async function invokeComponent(input: InvokeInput): Promise<InvocationResult> {
  const now = input.now ?? Date.now;
  const startedAt = now();
  const invocationId = input.invocationId ?? `inv_${randomId()}`;
  const state = input.state ?? EMPTY_STATE;
  const { component, props } = input;
  const logs: LogEntry[] = [];
  let open = true;
  const budget = new PayloadBudget(input.maxPayloadBytes);
  const charge = (bytes: number, what: string): void => budget.charge(bytes, what);
  const log = (level: LogLevel, message: string): void => {
    if (!open) return;
    const entry: LogEntry = { level, message, ts: now() };
    logs.push(entry);
    input.onLog?.(entry);
  };
  // What the component logs counts against the payload limit; the runtime's own lines do not.
  const componentLog = (level: LogLevel, message: string): void => {
    if (!open) return;
    charge(Buffer.byteLength(message), 'console output');
    log(level, message);
  };
  const emitBuffer = new EmitBuffer({
    dedupe: component.dedupe,
    now,
    charge,
    ...(input.onEmit ? { onEmit: input.onEmit } : {}),
  });
  const db = new DbStore(state.db, undefined, input.onDbSet);
  const http = createHttpInterface(input, log);
  const dollar =
    component.type === 'action'
      ? createDollar({
          invocationId,
          startedAtMs: startedAt,
          deadlineMs: startedAt + input.timeoutMs,
          warn: (message) => log('warn', message),
          charge,
          ...(input.onRespond ? { onRespond: input.onRespond } : {}),
        })
      : null;
  const self = buildThis(component, props, {
    db: db.facade(),
    http: http.facade,
    timer: props.timer ? Object.freeze({ type: '$.interface.timer', ...timerFields(props) }) : undefined,
    ...(component.type === 'source'
      ? {
          emit: (event: unknown, metadata?: unknown) => {
            emitBuffer.emit(event, metadata);
            return Promise.resolve();
          },
        }
      : {}),
  });
  for (const notice of props.notices) log('warn', notice);
  const target = pickTarget(input);
  let returned: unknown;
  let error: SerializedError | null = null;
  if (target) {
    const outcome = await runWithDeadline(
      () => runWithLogSink({ write: componentLog }, () => target.call(self, ...argumentsFor(input, dollar?.$))),
      input.timeoutMs,
    );
    switch (outcome.kind) {
      case 'returned':
        returned = outcome.value;
        break;
      case 'threw':
        error = classifyError(outcome.error);
        log('error', logLineFor(outcome.error, error));
        break;
      case 'timeout':
        error = new AppError(
          'TIMEOUT',
          `${input.kind} did not finish within ${formatMs(input.timeoutMs)} (TIMEOUT)`,
        ).toJSON();
        log('error', error.message);
        break;
    }
  }
  open = false;
  emitBuffer.close();
  let returnValue: Json | undefined;
  if (returned !== undefined && error === null) {
    const problem = findNonJson(returned, 'return value');
    if (problem && component.type === 'action') {
      error = new AppError('COMPONENT_ERROR', `${problem}; an action must return a JSON-serializable value`).toJSON();
    } else if (!problem) {
      // One serialization gives both the stored copy and its size.
      const text = JSON.stringify(returned);
      returnValue = text === undefined ? undefined : (JSON.parse(text) as Json);
      try {
        charge(text === undefined ? 0 : Buffer.byteLength(text), 'the return value');
      } catch {
        returnValue = undefined;
      }
    }
  }
  // Over the limit is a failure even when the component caught the error it was thrown.
  if (budget.exceeded && error?.code !== 'PAYLOAD_TOO_LARGE') {
    error = budget.exceeded.toJSON();
    const entry: LogEntry = { level: 'error', message: error.message, ts: now() };
    logs.push(entry);
    input.onLog?.(entry);
  }
  const deduped = applyDedupe({ strategy: component.dedupe, state: state.dedupe, emits: emitBuffer.emits });
  // The contract's §4.4 calls this a warning line; issue #2 asks for an error in the log, never a
  // silent drop, and it is the newer word. Reported live too, so `dev` shows it as it happens.
  for (const line of deduped.errors) {
    const entry: LogEntry = { level: 'error', message: line, ts: now() };
    logs.push(entry);
    input.onLog?.(entry);
  }
  const record: ActionRecord | null = dollar?.record ?? null;
  const summary = record?.exports['$summary'];
  return {
    ok: error === null,
    invocationId,
    type: component.type,
    kind: input.kind,
    returnValue,
    exports: record?.exports ?? {},
    summary: typeof summary === 'string' ? summary : null,
    emits: deduped.accepted,
    deduped: deduped.deduped,
    logs,
    exit: record?.exit ?? null,
    delay: record?.delay ?? null,
    response: record?.response ?? http.response(),
    sends: record?.sends ?? [],
    error,
    state: { db: db.snapshot(), dedupe: deduped.state },
    startedAtMs: startedAt,
    durationMs: now() - startedAt,
  };
}

function pickTarget(input: InvokeInput): ((this: unknown, ...args: unknown[]) => unknown) | undefined {
  switch (input.kind) {
    case 'run':
      return input.component.run;
    case 'deploy':
    case 'activate':
    case 'deactivate':
      return input.component.hooks[input.kind];
  }
}

function argumentsFor(input: InvokeInput, $: Record<string, unknown> | undefined): unknown[] {
  if (input.kind !== 'run') return [];
  if (input.component.type === 'action') return [{ $, steps: input.steps ?? {} }];
  return [input.event];
}

function timerFields(props: ResolvedProps): Record<string, unknown> {
  if (!props.timer) return {};
  const { cron, interval_seconds } = describeTimer(props.timer.schedule);
  return cron === null ? { intervalSeconds: interval_seconds } : { cron };
}

function createHttpInterface(input: InvokeInput, log: (level: LogLevel, message: string) => void) {
  let response: HttpResponse | null = null;
  const customResponse = input.props.http?.customResponse === true;
  const facade = input.props.http
    ? Object.freeze({
        endpoint: input.endpointUrl ?? '',
        respond(value: unknown) {
          const normalized = normalizeResponse(value, 'http.respond');
          if (!customResponse) {
            log(
              'warn',
              'http.respond() ignored: the HTTP interface does not set customResponse: true, so the request was already answered 200 OK',
            );
            return;
          }
          if (response) {
            log('warn', 'http.respond() called more than once; only the first response is used');
            return;
          }
          response = normalized;
          input.onRespond?.(normalized);
        },
      })
    : undefined;
  return { facade, response: () => response };
}

type Outcome = { kind: 'returned'; value: unknown } | { kind: 'threw'; error: unknown } | { kind: 'timeout' };

async function runWithDeadline(fn: () => unknown, timeoutMs: number): Promise<Outcome> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<Outcome>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'timeout' }), timeoutMs);
  });
  const work = (async (): Promise<Outcome> => {
    try {
      return { kind: 'returned', value: await fn() };
    } catch (error) {
      return { kind: 'threw', error };
    }
  })();
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}
