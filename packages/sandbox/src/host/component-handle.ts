import { availableParallelism } from 'node:os';
import { keepLabels, relabelError, relabelLog, type Relabel } from './source-label.js';
import { AppError, type SerializedError } from '@tributary/contracts';
import {
  applyDedupe,
  MAX_INVOCATION_PAYLOAD_BYTES,
  type Accounts,
  type AppAuthModes,
  type DedupeState,
  type EmittedEvent,
  type HttpResponse,
  type InvocationKind,
  type InvocationResult,
  type InvocationState,
  type Json,
  type LogEntry,
  type OptionsPage,
  type ValidationIssue,
} from '@tributary/runtime';
import { endedIfAbortedWhileWaiting } from './abort-while-waiting.js';
import {
  MAX_BATCH_ITEMS,
  type ComponentInfo,
  type ExpressionsOutcome,
  type InvocationItem,
  type InvocationResultMessage,
  type PropsInfo,
  type ResponseMessage,
} from '../protocol/messages.js';
import { packEvent, packSteps } from '../protocol/event-packing.js';
import type { Lease } from './worker-pool.js';
import {
  rebuildError,
  WorkerGone,
  type HostRequest,
  type RequestHandlers,
  type StreamMessage,
} from './worker-process.js';

export interface InvokeRequest {
  readonly kind: InvocationKind;
  readonly configured: Readonly<Record<string, unknown>>;
  readonly accounts: Accounts;
  /** Apps that run without an account: `none` silently, `unknown` with a warning in the logs. */
  readonly appAuth?: AppAuthModes;
  readonly event?: unknown;
  readonly steps?: Readonly<Record<string, unknown>>;
  readonly state: InvocationState;
  readonly endpointUrl?: string;
  /**
   * A workflow step's props holding `{{ }}` expressions: the worker evaluates them against `steps`
   * in the realm of `scope` (the workflow) and adds them to `configured`; the result says what they
   * gave (`expressions`). When one fails the component does not run; with `only`, it never does.
   */
  readonly expressions?: {
    readonly scope: string;
    readonly props: Readonly<Record<string, unknown>>;
    readonly only?: boolean;
  };
  readonly timeoutMs: number;
  /**
   * Runs beside this handle's other calls instead of after them: on another worker of its group
   * when one is free (the pool starts up to its per-group cap). For calls that share no state and
   * need no order, such as workflow steps; a source's calls stay one at a time, in order. The
   * concurrent calls of a quick component made in the same turn of the event loop share one
   * request, run one after the other in one worker (see `gather`).
   */
  readonly concurrent?: boolean;
  /**
   * Ends the call when it aborts: not sent if still waiting, else its worker is stopped as at a
   * deadline. The call then rejects with the signal's reason, with no result. A call with a signal
   * is never gathered with others.
   */
  readonly signal?: AbortSignal;
}

/** Several `run`s of one source, in order, in one request to its worker. */
export interface BatchRequest {
  readonly configured: Readonly<Record<string, unknown>>;
  readonly accounts: Accounts;
  /** Apps that run without an account: `none` silently, `unknown` with a warning in the logs. */
  readonly appAuth?: AppAuthModes;
  readonly events: readonly unknown[];
  /** The state the first item starts from; each later item starts from the one before it. */
  readonly state: InvocationState;
  readonly endpointUrl?: string;
  /** Deadline of each item. */
  readonly timeoutMs: number;
  /** Ends the batch when it aborts, as InvokeRequest.signal ends a call: it rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

/** A call's result, with its expressions' outcome when it carried some. */
export type CallResult = InvocationResult & { readonly expressions?: ExpressionsOutcome };

export interface InvokeCallbacks {
  readonly onLog?: (entry: LogEntry) => void;
  readonly onRespond?: (response: HttpResponse) => void;
}

export interface OptionsRequest {
  readonly prop: string;
  readonly configured: Readonly<Record<string, unknown>>;
  readonly accounts: Accounts;
  /** Apps that run without an account: `none` silently, `unknown` with a warning in the logs. */
  readonly appAuth?: AppAuthModes;
  readonly page: number;
  readonly prevContext?: Readonly<Record<string, unknown>>;
  readonly query?: string;
  readonly timeoutMs: number;
}

export interface LoadedComponent {
  readonly info: ComponentInfo | null;
  readonly issues: readonly ValidationIssue[];
}

/** Reserves a live worker holding this component (starting one or loading it there when needed). */
export type WorkerSource = () => Promise<Lease<LoadedComponent>>;

/** A concurrent call waiting for the end of its turn of the event loop to go out with others. */
interface Gathered {
  readonly request: InvokeRequest;
  readonly callbacks: InvokeCallbacks;
  readonly resolve: (result: CallResult) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * The gathered requests of one worker group's components in flight now (counted against the cap),
 * and the gatherings whose calls wait for one of them to end, first come first served, each with
 * what sends them.
 */
export class GatheredRequests {
  sending = 0;
  readonly waiting = new Map<CallGathering, () => void>();
}

/**
 * What the handles on one component in one group share about its concurrent calls: the calls
 * waiting to go out (those of this turn of the event loop, and those held back while the group's
 * requests are at the cap), whether a send is due, and how long the last call ran in its worker
 * (ms; null before the first).
 */
export class CallGathering {
  calls: Gathered[] = [];
  scheduled = false;
  recentMs: number | null = null;

  constructor(readonly requests: GatheredRequests = new GatheredRequests()) {}
}

/**
 * Concurrent calls are gathered only while the component's last call ran at most this long: the
 * items of one request run one after the other, so a slow component (one waiting on the network)
 * keeps a request, and a worker, per call.
 */
export const QUICK_CALL_MS = 5;
/**
 * Most calls gathered into one request: the protocol's most (MAX_BATCH_ITEMS). Under issue 10's
 * asynchronous workflow load, 64 finished 6-8 % more runs a second than 32 side by side (6 of 6
 * rounds), with the synchronous case unchanged; 8 finished 15 % fewer (decision 0014, addendum 16).
 */
export const MAX_GATHERED = MAX_BATCH_ITEMS;
/**
 * Gathered requests of one worker group in flight at once, by default: one per core. Quick calls
 * keep a core busy while they run, so more requests at once only spread the same work over more
 * worker processes, each woken for a smaller request; the calls held back meanwhile go together in
 * the next one.
 */
export const GATHERED_REQUESTS = Math.max(2, availableParallelism());

/** Tries a request gets when the workers it was queued on die before sending it. */
const MAX_UNSENT_RETRIES = 3;

/**
 * A component as the host sees it: what its worker reported when loading it, and calls that run in
 * a worker holding it (shared with other components of its group, or its own). Calls are queued so
 * one runs at a time per handle (except invocations marked `concurrent`), and a dead worker is
 * replaced on the next.
 */
export class ComponentHandle {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly gathering: CallGathering;

  constructor(
    readonly loaded: LoadedComponent,
    private readonly source: WorkerSource,
    private readonly settings: {
      readonly graceMs: number;
      /** The component's name inside a worker, sent with every request. */
      readonly slot: string;
      readonly discard: () => void;
      /** Puts the author's file name in place of where the server keeps the code (errors, stacks, logs). */
      readonly relabel?: Relabel;
      /** Shared by every handle on the same component in the same group (the sandbox keeps one each). */
      readonly gathering?: CallGathering;
      /** Concurrent calls are gathered while the last one ran at most this long (ms; QUICK_CALL_MS). */
      readonly gatherQuickMs?: number;
      /** Gathered requests of this component in flight at once (GATHERED_REQUESTS). */
      readonly gatherRequests?: number;
    },
  ) {
    this.gathering = settings.gathering ?? new CallGathering();
  }

  private get relabel(): Relabel {
    return this.settings.relabel ?? keepLabels;
  }

  get info(): ComponentInfo {
    if (!this.loaded.info) throw new AppError('COMPONENT_INVALID', 'the component did not load');
    return this.loaded.info;
  }

  /** Stops this component's worker when it has its own (a shared one serves others); a later call starts a fresh one. */
  close(): void {
    this.settings.discard();
  }

  /** Resolves configured props in the worker: final prop list, timer schedule, HTTP interface. */
  configure(
    configured: Readonly<Record<string, unknown>>,
    accounts: Accounts,
    timeoutMs: number,
    appAuth?: AppAuthModes,
  ): Promise<PropsInfo> {
    return this.serial(async () => {
      const reply = await this.call(
        {
          type: 'props',
          slot: this.settings.slot,
          configured: { ...configured },
          accounts: copyAccounts(accounts),
          ...(appAuth ? { appAuth: { ...appAuth } } : {}),
          timeoutMs,
        },
        timeoutMs,
      );
      if (reply.type === 'props_result') return reply.info;
      throw unexpected(reply);
    });
  }

  options(request: OptionsRequest): Promise<OptionsPage> {
    return this.serial(async () => {
      const reply = await this.call(
        {
          type: 'options',
          slot: this.settings.slot,
          prop: request.prop,
          configured: { ...request.configured },
          accounts: copyAccounts(request.accounts),
          ...(request.appAuth ? { appAuth: { ...request.appAuth } } : {}),
          page: request.page,
          ...(request.prevContext ? { prevContext: { ...request.prevContext } } : {}),
          ...(request.query !== undefined ? { query: request.query } : {}),
          timeoutMs: request.timeoutMs,
        },
        request.timeoutMs,
      );
      if (reply.type === 'options_result') return reply.page;
      throw unexpected(reply);
    });
  }

  /**
   * Runs one invocation in the worker. Logs, emits and db writes stream back as they happen; if the
   * worker has to be stopped (deadline, memory, payload) or dies, the result is rebuilt from them,
   * so emits and writes made before the failure are kept (contract §3.7, §4.3).
   */
  invoke(request: InvokeRequest, callbacks: InvokeCallbacks = {}): Promise<CallResult> {
    if (!request.concurrent || request.signal)
      return this.serial(() => this.invokeAlone(request, callbacks), request.signal);
    const recentMs = this.gathering.recentMs;
    if (recentMs === null || recentMs > (this.settings.gatherQuickMs ?? QUICK_CALL_MS))
      return this.invokeAlone(request, callbacks);
    return new Promise((resolve, reject) => this.gather({ request, callbacks, resolve, reject }));
  }

  /**
   * Says a concurrent call of this component will be made later in this turn of the event loop,
   * after work already scheduled for its end (the engine knows a run's next step while the
   * previous one's checkpoint waits for its commit): when the call is gathered, its request then
   * goes out at the end of this turn, not of the next one.
   */
  expectCall(): void {
    const recentMs = this.gathering.recentMs;
    if (recentMs !== null && recentMs <= (this.settings.gatherQuickMs ?? QUICK_CALL_MS)) this.scheduleGathered();
  }

  private async invokeAlone(request: InvokeRequest, callbacks: InvokeCallbacks): Promise<CallResult> {
    const streamed = new Streamed(request.state, callbacks, this.relabel);
    try {
      const reply = await this.call(
        {
          type: 'invoke',
          slot: this.settings.slot,
          ...invocationItem(request),
          timeoutMs: request.timeoutMs,
          maxPayloadBytes: MAX_INVOCATION_PAYLOAD_BYTES,
        },
        request.timeoutMs,
        (message) => {
          if (message.type !== 'item_result') streamed.take(message);
        },
        request.signal,
      );
      // Log lines are not repeated in the result: they are the ones that streamed.
      if (reply.type === 'result')
        return this.noted(request, { ...fromResultMessage(reply.result, this.relabel), logs: streamed.logs });
      if (reply.type === 'failed')
        return this.noted(
          request,
          this.rebuild(request.kind, streamed, relabelError(rebuildError(reply.error), this.relabel).toJSON()),
        );
      throw unexpected(reply);
    } catch (error) {
      if (!(error instanceof WorkerGone)) throw error;
      return this.noted(request, this.rebuild(request.kind, streamed, { ...error.toJSON() }));
    }
  }

  /** Remembers how long a concurrent call ran: only quick components have their calls gathered. */
  private noted(request: InvokeRequest, result: CallResult): CallResult {
    if (request.concurrent) this.gathering.recentMs = result.durationMs;
    return result;
  }

  /**
   * Concurrent calls of a quick component made in the same turn of the event loop (the runs a
   * group commit released together) go to one worker in one `invoke_each` request, not one request
   * each: a worker woken once runs them one after the other, and the host writes one message.
   */
  private gather(call: Gathered): void {
    this.gathering.calls.push(call);
    this.scheduleGathered();
  }

  /** Sends the waiting calls at the end of this turn of the event loop (once, however many wait). */
  private scheduleGathered(): void {
    const gathering = this.gathering;
    if (gathering.scheduled) return;
    gathering.scheduled = true;
    setImmediate(() => {
      gathering.scheduled = false;
      this.sendGathered();
    });
  }

  /**
   * Sends waiting calls, oldest first, in requests of up to MAX_GATHERED while fewer than the cap
   * of gathered requests are in flight; the rest wait for one of those to end.
   */
  private sendGathered(): void {
    const gathering = this.gathering;
    const { requests } = gathering;
    const cap = this.settings.gatherRequests ?? GATHERED_REQUESTS;
    requests.waiting.delete(gathering);
    while (gathering.calls.length > 0 && requests.sending < cap) {
      // One request carries one deadline for its items: it takes the calls of the first one's.
      const timeoutMs = gathering.calls[0]?.request.timeoutMs;
      const batch: Gathered[] = [];
      const rest: Gathered[] = [];
      for (const call of gathering.calls) {
        if (batch.length < MAX_GATHERED && call.request.timeoutMs === timeoutMs) batch.push(call);
        else rest.push(call);
      }
      gathering.calls = rest;
      this.send(batch);
    }
    if (gathering.calls.length > 0) requests.waiting.set(gathering, () => this.scheduleGathered());
  }

  /**
   * Sends gathered calls as one request, counted against the cap until it ends or has run as long
   * as a full request of quick calls may (a call that turned slow must not hold the others back).
   */
  private send(calls: readonly Gathered[]): void {
    const { requests } = this.gathering;
    requests.sending += 1;
    let counted = true;
    const uncount = (): void => {
      if (!counted) return;
      counted = false;
      requests.sending -= 1;
      // The request's place goes to the gathering that has waited longest.
      const [next] = requests.waiting;
      if (!next) return;
      requests.waiting.delete(next[0]);
      next[1]();
    };
    const slow = setTimeout(uncount, MAX_GATHERED * (this.settings.gatherQuickMs ?? QUICK_CALL_MS)).unref();
    void this.dispatch(calls).finally(() => {
      clearTimeout(slow);
      uncount();
    });
  }

  /** Runs the calls (one alone, several in one request); settles when every one has its result. */
  private dispatch(calls: readonly Gathered[]): Promise<void> {
    const [only] = calls;
    if (calls.length === 1 && only)
      return this.invokeAlone(only.request, only.callbacks).then(only.resolve, only.reject);
    return this.invokeEach(calls);
  }

  /**
   * Runs gathered calls in one request. Each gets its own result as its item finishes. When the
   * request fails on an item (a throw, a crash, a deadline, a payload or memory kill), that item
   * gets the failure as it would alone, and the items after it, which never started, go out again.
   */
  private async invokeEach(calls: readonly Gathered[]): Promise<void> {
    const first = calls[0];
    if (!first) return;
    let done = 0;
    let streamed = new Streamed(first.request.state, first.callbacks, this.relabel);
    const onStream = (message: StreamMessage): void => {
      if (message.item !== done) return;
      if (message.type !== 'item_result') {
        streamed.take(message);
        return;
      }
      const call = calls[done];
      if (!call) return;
      call.resolve(
        this.noted(call.request, { ...fromResultMessage(message.result, this.relabel), logs: streamed.logs }),
      );
      done += 1;
      const next = calls[done];
      if (next) streamed = new Streamed(next.request.state, next.callbacks, this.relabel);
    };
    let failure: SerializedError;
    try {
      const reply = await this.call(
        {
          type: 'invoke_each',
          slot: this.settings.slot,
          items: calls.map((call) => invocationItem(call.request)),
          timeoutMs: first.request.timeoutMs,
          maxPayloadBytes: MAX_INVOCATION_PAYLOAD_BYTES,
        },
        first.request.timeoutMs,
        onStream,
      );
      if (reply.type === 'batch_done' && done === calls.length) return;
      if (reply.type !== 'failed') throw unexpected(reply);
      failure = relabelError(rebuildError(reply.error), this.relabel).toJSON();
    } catch (error) {
      if (!(error instanceof WorkerGone) || !error.sent) {
        for (const call of calls.slice(done)) call.reject(error);
        return;
      }
      failure = { ...error.toJSON() };
    }
    const failed = calls[done];
    if (failed) failed.resolve(this.noted(failed.request, this.rebuild(failed.request.kind, streamed, failure)));
    const unstarted = calls.slice(done + 1);
    if (unstarted.length > 0) this.send(unstarted);
  }

  /**
   * Runs several `run`s of one source in one request: each item starts from the state the one
   * before it left and has its own emits, logs, error and deadline. Resolves with the results of the
   * items that ran, in order. When the worker fails or dies, the item it was running gets that
   * failure (rebuilt from what it streamed, as `invoke` does) and the items after it did not run:
   * the result list is then shorter than `events`.
   */
  invokeBatch(
    request: BatchRequest,
    callbacks: {
      readonly onLog?: (item: number, entry: LogEntry) => void;
      /** An item's first http.respond(), as it happens (a customResponse caller waits for its own). */
      readonly onRespond?: (item: number, response: HttpResponse) => void;
    } = {},
  ): Promise<InvocationResult[]> {
    if (request.events.length === 0 || request.events.length > MAX_BATCH_ITEMS) {
      return Promise.reject(
        new AppError('INTERNAL', `a batch holds 1 to ${MAX_BATCH_ITEMS} invocations, not ${request.events.length}`),
      );
    }
    // The body of an HTTP event crosses once, not three times (event-packing.ts).
    const packed = request.events.map(packEvent);
    return this.serial(async () => {
      const results: InvocationResult[] = [];
      const itemCallbacks = (item: number): InvokeCallbacks => ({
        ...(callbacks.onLog ? { onLog: (entry: LogEntry) => callbacks.onLog?.(item, entry) } : {}),
        ...(callbacks.onRespond
          ? { onRespond: (response: HttpResponse) => callbacks.onRespond?.(item, response) }
          : {}),
      });
      let streamed = new Streamed(request.state, itemCallbacks(0), this.relabel);
      const onStream = (message: StreamMessage): void => {
        if (message.item !== results.length) return;
        if (message.type !== 'item_result') {
          streamed.take(message);
          return;
        }
        const result = { ...fromResultMessage(message.result, this.relabel), logs: streamed.logs };
        results.push(result);
        streamed = new Streamed(result.state, itemCallbacks(results.length), this.relabel);
      };
      try {
        const reply = await this.call(
          {
            type: 'invoke_batch',
            slot: this.settings.slot,
            configured: { ...request.configured },
            accounts: copyAccounts(request.accounts),
            ...(request.appAuth ? { appAuth: { ...request.appAuth } } : {}),
            events: packed.map((event) => event.event),
            ...(packed.some((event) => event.packing !== null)
              ? { eventPackings: packed.map((event) => event.packing) }
              : {}),
            state: { db: request.state.db, dedupe: request.state.dedupe },
            ...(request.endpointUrl ? { endpointUrl: request.endpointUrl } : {}),
            timeoutMs: request.timeoutMs,
            maxPayloadBytes: MAX_INVOCATION_PAYLOAD_BYTES,
          },
          request.timeoutMs,
          onStream,
          request.signal,
        );
        if (reply.type === 'batch_done') return results;
        if (reply.type === 'failed')
          return [
            ...results,
            this.rebuild('run', streamed, relabelError(rebuildError(reply.error), this.relabel).toJSON()),
          ];
        throw unexpected(reply);
      } catch (error) {
        if (!(error instanceof WorkerGone)) throw error;
        return results.length < request.events.length
          ? [...results, this.rebuild('run', streamed, { ...error.toJSON() })]
          : results;
      }
    }, request.signal);
  }

  private rebuild(kind: InvocationKind, streamed: Streamed, error: SerializedError): InvocationResult {
    const info = this.info;
    const deduped = applyDedupe({
      strategy: info.dedupe ?? undefined,
      state: streamed.state.dedupe,
      emits: streamed.emits,
    });
    const logs = [...streamed.logs, { level: 'error' as const, message: error.stack ?? error.message, ts: Date.now() }];
    for (const line of deduped.errors) logs.push({ level: 'error', message: line, ts: Date.now() });
    return {
      ok: false,
      invocationId: `inv_${streamed.started.toString(36)}`,
      type: info.type,
      kind,
      returnValue: undefined,
      exports: {},
      summary: null,
      emits: deduped.accepted,
      deduped: deduped.deduped,
      logs,
      exit: null,
      response: streamed.response,
      sends: [],
      error: {
        code: error.code,
        message: error.message,
        ...(error.rule ? { rule: error.rule } : {}),
      } as SerializedError,
      state: { db: streamed.db, dedupe: deduped.state },
      startedAtMs: streamed.started,
      durationMs: Date.now() - streamed.started,
    };
  }

  private async call(
    message: HostRequest,
    timeoutMs: number,
    onStream?: RequestHandlers['onStream'],
    signal?: AbortSignal,
  ) {
    for (let attempt = 1; ; attempt += 1) {
      let lease: Lease<LoadedComponent> | null = null;
      try {
        signal?.throwIfAborted();
        lease = await this.source();
        const reply = await lease.worker.request(message, {
          deadlineMs: timeoutMs + this.settings.graceMs,
          ...(onStream ? { handlers: { onStream } } : {}),
          ...(signal ? { signal } : {}),
        });
        if (reply.type === 'failed' && message.type !== 'invoke' && message.type !== 'invoke_each')
          throw relabelError(rebuildError(reply.error), this.relabel);
        return reply;
      } catch (error) {
        // Stopped on purpose: no result, whatever the worker did meanwhile.
        if (signal?.aborted) throw signal.reason;
        // Queued on a worker that another invocation took down: nothing of it ran, so it may run elsewhere.
        if (error instanceof WorkerGone && !error.sent && attempt < MAX_UNSENT_RETRIES) continue;
        throw error;
      } finally {
        lease?.release();
      }
    }
  }

  /**
   * Runs `work` after this handle's calls before it. A call whose `signal` aborts while it still
   * waits for them ends at once (the one before it may hang until its deadline); `work` then runs
   * in its turn, sends nothing and throws the reason, which nobody waits for any more.
   */
  private serial<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    let started = false;
    const start = (): Promise<T> => {
      started = true;
      return work();
    };
    const next = this.queue.then(start, start);
    this.queue = next.catch(() => undefined);
    return signal ? endedIfAbortedWhileWaiting(next, signal, () => started) : next;
  }
}

/**
 * What one invocation streamed before its result: kept so that, if its worker has to be stopped or
 * dies, the result is rebuilt from it and emits and writes made before the failure are kept
 * (contract §3.7, §4.3).
 */
class Streamed {
  readonly logs: LogEntry[] = [];
  readonly emits: EmittedEvent[] = [];
  readonly db: Record<string, Json>;
  readonly started = Date.now();
  response: HttpResponse | null = null;

  constructor(
    readonly state: InvocationState,
    private readonly callbacks: InvokeCallbacks,
    private readonly relabel: Relabel,
  ) {
    this.db = { ...state.db };
  }

  take(message: Exclude<StreamMessage, { type: 'item_result' }>): void {
    switch (message.type) {
      case 'log':
        for (const raw of message.entries) {
          const entry = relabelLog(raw, this.relabel);
          this.logs.push(entry);
          this.callbacks.onLog?.(entry);
        }
        return;
      case 'emit':
        this.emits.push(message.emit as EmittedEvent);
        return;
      case 'db_set':
        if (message.deleted) delete this.db[message.key];
        else this.db[message.key] = message.value as Json;
        return;
      case 'respond':
        this.response = fromResponse(message.response);
        this.callbacks.onRespond?.(this.response);
        return;
    }
  }
}

function fromResponse(response: ResponseMessage): HttpResponse {
  return {
    status: response.status,
    headers: response.headers,
    body: response.bodyBase64 === null ? null : Buffer.from(response.bodyBase64, 'base64'),
  };
}

function fromResultMessage(result: InvocationResultMessage, relabel: Relabel): CallResult {
  const error = result.error as SerializedError | null;
  return {
    ...result,
    returnValue: result.returnValue as Json | undefined,
    exports: result.exports as Record<string, Json>,
    emits: result.emits as EmittedEvent[],
    deduped: result.deduped as InvocationResult['deduped'],
    response: result.response ? fromResponse(result.response) : null,
    error: error && relabel !== keepLabels ? relabelSerialized(error, relabel) : error,
    state: { db: result.state.db as Record<string, Json>, dedupe: result.state.dedupe as DedupeState | null },
  };
}

/** One invocation as it crosses to the worker; the body of an HTTP event crosses once (event-packing.ts). */
function invocationItem(request: InvokeRequest): InvocationItem {
  const event = request.event !== undefined ? packEvent(request.event) : null;
  const steps = request.steps ? packSteps(request.steps) : null;
  return {
    kind: request.kind,
    configured: { ...request.configured },
    accounts: copyAccounts(request.accounts),
    ...(request.appAuth ? { appAuth: { ...request.appAuth } } : {}),
    ...(event ? { event: event.event, ...(event.packing ? { eventPacking: event.packing } : {}) } : {}),
    ...(steps ? { steps: steps.steps, ...(steps.packing ? { stepsPacking: steps.packing } : {}) } : {}),
    state: { db: request.state.db, dedupe: request.state.dedupe },
    ...(request.endpointUrl ? { endpointUrl: request.endpointUrl } : {}),
    ...(request.expressions
      ? {
          expressions: {
            scope: request.expressions.scope,
            props: { ...request.expressions.props },
            ...(request.expressions.only ? { only: true } : {}),
          },
        }
      : {}),
  };
}

function copyAccounts(accounts: Accounts): Record<string, Record<string, unknown>> {
  return Object.fromEntries(Object.entries(accounts).map(([key, value]) => [key, { ...value }]));
}

function unexpected(reply: { type: string }): AppError {
  return new AppError('INTERNAL', `the sandbox worker answered with an unexpected "${reply.type}" message`);
}

function relabelSerialized(error: SerializedError, relabel: Relabel): SerializedError {
  return {
    ...error,
    message: relabel(error.message),
    ...(error.stack !== undefined ? { stack: relabel(error.stack) } : {}),
  };
}
