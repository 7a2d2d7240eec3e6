/**
 * Entry of a sandbox worker process. It holds the components the host loaded in it, each under a
 * slot: `load` imports a bundle, then `props`, `invoke` and `options` name the slot they run
 * against, one request at a time. Logs, emits and db writes stream to the host as they happen, so
 * the host keeps them even if it has to kill this process.
 */
import { isAppError, type SerializedError, errorMessage } from '@tributary/contracts';
import {
  describeProps,
  invokeComponent,
  listPropOptions,
  resolvePropSpecs,
  resolveProps,
  type Component,
  type HttpResponse,
  type InvocationKind,
  type InvocationResult,
  type LogEntry,
} from '@tributary/runtime/worker';
import {
  PROTOCOL_VERSION,
  parseHostMessage,
  type ExpressionsOutcome,
  type HostMessage,
  type InvocationItem,
  type ResponseMessage,
  type WorkerMessage,
} from '../protocol/messages.js';
import { unpackEvent, unpackSteps, type EventPacking } from '../protocol/event-packing.js';
import { ComponentSlots } from './component-slots.js';
import { ExpressionScopes } from './expression-scopes.js';
import { egressSocketFromArgv, useEgressProxy } from './egress-client.js';
import { tunnelRawTcp } from './egress-tcp.js';

const slots = new ComponentSlots();
const scopes = new ExpressionScopes();
let activeId: string | null = null;

/** Sends a message, after the log lines still waiting (so the host sees them first). */
function send(message: WorkerMessage): void {
  flushLogs();
  sendTracked(message);
}

/*
 * Log lines on their way to the host. A line goes out at once while few messages are in flight,
 * so the lines written before a blocking loop or a crash reach the host. Under a flood (a
 * synchronous loop of console.log gives the channel no chance to drain) lines wait here and go out
 * in messages of up to LOG_CHUNK_BYTES: one IPC message per line would queue hundreds of thousands
 * of writes in this process and take it over its memory cap long before the payload limit.
 */
const MAX_IN_FLIGHT = 32;
const LOG_CHUNK_BYTES = 64 * 1024;
let inFlight = 0;
let waiting: { id: string; item: number | undefined; entries: LogEntry[] } | null = null;

function sendTracked(message: WorkerMessage): void {
  if (!process.send) return;
  inFlight += 1;
  process.send(message, undefined, {}, () => {
    inFlight -= 1;
    while (waiting && inFlight < MAX_IN_FLIGHT) sendLogChunk();
  });
}

function writeLog(id: string, item: number | undefined, entry: LogEntry): void {
  if (waiting && (waiting.id !== id || waiting.item !== item)) flushLogs();
  if (!waiting && inFlight < MAX_IN_FLIGHT) {
    sendTracked({ v: PROTOCOL_VERSION, type: 'log', id, ...(item === undefined ? {} : { item }), entries: [entry] });
    return;
  }
  waiting ??= { id, item, entries: [] };
  waiting.entries.push(entry);
}

/** Sends the oldest waiting lines, up to LOG_CHUNK_BYTES of text, as one message. */
function sendLogChunk(): void {
  if (!waiting) return;
  const { id, item, entries } = waiting;
  let count = 0;
  let bytes = 0;
  while (count < entries.length && (count === 0 || bytes < LOG_CHUNK_BYTES)) {
    bytes += (entries[count]?.message.length ?? 0) + 48;
    count += 1;
  }
  const chunk = entries.splice(0, count);
  if (entries.length === 0) waiting = null;
  sendTracked({ v: PROTOCOL_VERSION, type: 'log', id, ...(item === undefined ? {} : { item }), entries: chunk });
}

function flushLogs(): void {
  while (waiting) sendLogChunk();
}

function toResponse(response: HttpResponse): ResponseMessage {
  const body = response.body;
  return {
    status: response.status,
    headers: response.headers,
    bodyBase64: body === null ? null : (Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8')).toString('base64'),
  };
}

/** What an invocation gave: its result and, when it carried expressions, what they evaluated to. */
interface Outcome {
  readonly result: InvocationResult;
  readonly expressions?: ExpressionsOutcome;
}

/** A result for the host; its log lines went out as they were written, so they are not sent twice. */
function toResultMessage(outcome: Outcome): Extract<WorkerMessage, { type: 'result' }>['result'] {
  const { result, expressions } = outcome;
  return {
    ...result,
    logs: [],
    response: result.response ? toResponse(result.response) : null,
    ...(expressions ? { expressions } : {}),
  };
}

function serialize(error: unknown): SerializedError {
  if (isAppError(error)) return error.toJSON();
  if (error instanceof Error)
    return { code: 'INTERNAL', message: error.message, ...(error.stack ? { stack: error.stack } : {}) };
  return { code: 'INTERNAL', message: String(error) };
}

async function handle(message: HostMessage): Promise<void> {
  switch (message.type) {
    case 'load': {
      try {
        const { component: valid, issues } = await slots.load(message);
        send({
          v: PROTOCOL_VERSION,
          type: 'loaded',
          id: message.id,
          issues: [...issues],
          info: valid
            ? {
                type: valid.type,
                key: valid.key ?? null,
                name: valid.name ?? null,
                version: valid.version ?? null,
                description: valid.description ?? null,
                dedupe: valid.dedupe ?? null,
                hooks: (['deploy', 'activate', 'deactivate'] as const).filter(
                  (hook) => valid.hooks[hook] !== undefined,
                ),
                props: describeProps(valid.props),
                hasAdditionalProps: valid.additionalProps !== undefined,
              }
            : null,
        });
      } catch (error) {
        send({ v: PROTOCOL_VERSION, type: 'failed', id: message.id, error: serialize(error) });
      }
      return;
    }
    case 'props': {
      const { specs, props: resolved } = await propsFor(slots.get(message.slot), message, message.timeoutMs);
      send({
        v: PROTOCOL_VERSION,
        type: 'props_result',
        id: message.id,
        info: { props: describeProps(specs), timer: resolved.timer, http: resolved.http },
      });
      return;
    }
    case 'invoke': {
      const outcome = await invokeItem(message, message, undefined);
      send({ v: PROTOCOL_VERSION, type: 'result', id: message.id, result: toResultMessage(outcome) });
      return;
    }
    case 'invoke_each': {
      // One after the other: an item that fails the request (a throw here, a crash, a deadline)
      // leaves the items after it unstarted, so the host may run them elsewhere.
      for (const [item, invocation] of message.items.entries()) {
        const outcome = await invokeItem(message, invocation, item);
        send({ v: PROTOCOL_VERSION, type: 'item_result', id: message.id, item, result: toResultMessage(outcome) });
      }
      send({ v: PROTOCOL_VERSION, type: 'batch_done', id: message.id, count: message.items.length });
      return;
    }
    case 'invoke_batch': {
      // Props resolve once: every item of a batch belongs to the same source and configuration.
      const loaded = slots.get(message.slot);
      const { props } = await propsFor(loaded, message, message.timeoutMs);
      let state = message.state;
      for (const [item, event] of message.events.entries()) {
        const result = await runOne({
          loaded,
          props,
          id: message.id,
          item,
          kind: 'run',
          event: unpacked(event, message.eventPackings?.[item] ?? null),
          state,
          ...(message.endpointUrl ? { endpointUrl: message.endpointUrl } : {}),
          timeoutMs: message.timeoutMs,
          maxPayloadBytes: message.maxPayloadBytes,
        });
        state = { db: result.state.db, dedupe: result.state.dedupe };
        send({ v: PROTOCOL_VERSION, type: 'item_result', id: message.id, item, result: toResultMessage({ result }) });
      }
      send({ v: PROTOCOL_VERSION, type: 'batch_done', id: message.id, count: message.events.length });
      return;
    }
    case 'options': {
      const page = await listPropOptions({
        component: slots.get(message.slot),
        prop: message.prop,
        configured: message.configured,
        accounts: message.accounts,
        ...(message.appAuth ? { appAuth: message.appAuth } : {}),
        page: message.page,
        ...(message.prevContext ? { prevContext: message.prevContext } : {}),
        ...(message.query !== undefined ? { query: message.query } : {}),
        timeoutMs: message.timeoutMs,
      });
      send({ v: PROTOCOL_VERSION, type: 'options_result', id: message.id, page });
      return;
    }
  }
}

/** The configuration a component's props resolve from, as `props`, `invoke` and the batches carry it. */
type PropInputs = Pick<InvocationItem, 'configured' | 'accounts' | 'appAuth'>;

/** A component's prop specs (running `additionalProps`) and the props resolved from them. */
async function propsFor(component: Component, input: PropInputs, timeoutMs: number) {
  const inputs = {
    configured: input.configured,
    accounts: input.accounts,
    ...(input.appAuth ? { appAuth: input.appAuth } : {}),
  };
  const specs = await resolvePropSpecs({ component, ...inputs, timeoutMs });
  return { specs, props: resolveProps({ specs, ...inputs }) };
}

/**
 * Evaluates one invocation's expressions, resolves its props and runs it (alone, or as an item of
 * `invoke_each`). Expressions that fail leave the component unrun: the host records the step as
 * failed at that prop.
 */
async function invokeItem(
  request: Extract<HostMessage, { type: 'invoke' | 'invoke_each' }>,
  invocation: InvocationItem,
  item: number | undefined,
): Promise<Outcome> {
  const loaded = slots.get(request.slot);
  const steps = invocation.steps
    ? invocation.stepsPacking
      ? unpackSteps(invocation.steps, invocation.stepsPacking)
      : invocation.steps
    : undefined;
  let inputs: PropInputs = invocation;
  let expressions: ExpressionsOutcome | undefined;
  if (invocation.expressions) {
    const { scope, props: raw, only } = invocation.expressions;
    expressions = scopes.evaluate(scope, raw, steps);
    if (!expressions.ok) return { result: unrun(loaded, invocation, expressions.message), expressions };
    if (only) return { result: unrun(loaded, invocation, null), expressions };
    inputs = { ...invocation, configured: { ...invocation.configured, ...expressions.props } };
  }
  const { props } = await propsFor(loaded, inputs, request.timeoutMs);
  const result = await runOne({
    loaded,
    props,
    id: request.id,
    item,
    kind: invocation.kind,
    event: unpacked(invocation.event, invocation.eventPacking ?? null),
    ...(steps ? { steps } : {}),
    state: invocation.state,
    ...(invocation.endpointUrl ? { endpointUrl: invocation.endpointUrl } : {}),
    timeoutMs: request.timeoutMs,
    maxPayloadBytes: request.maxPayloadBytes,
  });
  return expressions ? { result, expressions } : { result };
}

/** The result of an invocation that only evaluated its expressions, or whose expressions failed (`failure`). */
function unrun(component: Component, invocation: InvocationItem, failure: string | null): InvocationResult {
  const now = Date.now();
  return {
    ok: failure === null,
    invocationId: `inv_expressions_${now.toString(36)}`,
    type: component.type,
    kind: invocation.kind,
    returnValue: undefined,
    exports: {},
    summary: null,
    emits: [],
    deduped: [],
    logs: [],
    exit: null,
    response: null,
    sends: [],
    error: failure === null ? null : { code: 'WORKFLOW_EXPRESSION_INVALID', message: failure },
    state: invocation.state as InvocationResult['state'],
    startedAtMs: now,
    durationMs: 0,
  };
}

function unpacked(event: unknown, packing: EventPacking | null): unknown {
  return packing ? unpackEvent(event, packing) : event;
}

/** One invocation, streaming its logs, emits, db writes and response (tagged with its batch item). */
function runOne(input: {
  readonly loaded: Component;
  readonly props: ReturnType<typeof resolveProps>;
  readonly id: string;
  readonly item: number | undefined;
  readonly kind: InvocationKind;
  readonly event: unknown;
  readonly steps?: Record<string, unknown>;
  readonly state: { readonly db: Record<string, unknown>; readonly dedupe: unknown };
  readonly endpointUrl?: string;
  readonly timeoutMs: number;
  readonly maxPayloadBytes: number;
}): Promise<InvocationResult> {
  const { id } = input;
  const tag = input.item === undefined ? {} : { item: input.item };
  return invokeComponent({
    component: input.loaded,
    props: input.props,
    kind: input.kind,
    event: input.event,
    ...(input.steps ? { steps: input.steps } : {}),
    state: { db: input.state.db as never, dedupe: input.state.dedupe as never },
    ...(input.endpointUrl ? { endpointUrl: input.endpointUrl } : {}),
    timeoutMs: input.timeoutMs,
    maxPayloadBytes: input.maxPayloadBytes,
    onLog: (entry) => writeLog(id, input.item, entry),
    onEmit: (emit) => send({ v: PROTOCOL_VERSION, type: 'emit', id, ...tag, emit }),
    onDbSet: (key, value) =>
      send({
        v: PROTOCOL_VERSION,
        type: 'db_set',
        id,
        ...tag,
        key,
        ...(value === undefined ? { deleted: true } : { value, deleted: false }),
      }),
    onRespond: (response) => send({ v: PROTOCOL_VERSION, type: 'respond', id, ...tag, response: toResponse(response) }),
  });
}

// One request at a time, in arrival order: the host never sends a second before the first answers,
// and this keeps the worker correct even if it did.
let queue: Promise<void> = Promise.resolve();

process.on('message', (raw: unknown) => {
  const message = parseHostMessage(raw);
  if (!message) {
    process.stderr.write(`tributary worker: refused a message that does not match protocol v${PROTOCOL_VERSION}\n`);
    return;
  }
  queue = queue.then(async () => {
    activeId = message.id;
    try {
      await handle(message);
    } catch (error) {
      send({ v: PROTOCOL_VERSION, type: 'failed', id: message.id, error: serialize(error) });
    } finally {
      activeId = null;
    }
  });
});

// An error no invocation caught leaves this process in an unknown state: report it on the request
// that was running, then exit so the host starts a fresh worker next time.
function fatal(kind: string, error: unknown): void {
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  const report: SerializedError = {
    code: 'COMPONENT_ERROR',
    message: `${kind}: ${errorMessage(error)}`,
    stack: detail,
  };
  if (activeId) send({ v: PROTOCOL_VERSION, type: 'failed', id: activeId, error: report, exiting: true });
  else process.stderr.write(`tributary worker: ${kind} outside any invocation: ${detail}\n`);
  process.exitCode = 70;
  setImmediate(() => process.exit(70));
}
process.on('uncaughtException', (error) => fatal('uncaught exception', error));
process.on('unhandledRejection', (reason) => fatal('unhandled promise rejection', reason));
process.on('disconnect', () => process.exit(0));

const egressSocket = egressSocketFromArgv(process.argv);
if (egressSocket) {
  useEgressProxy(egressSocket);
  tunnelRawTcp(egressSocket);
}

// The hello names this bundle's protocol version: a host built from other code reads `v` before
// anything else and refuses the worker by name (SANDBOX_WORKER_STALE), so every version keeps both.
send({ v: PROTOCOL_VERSION, type: 'ready', pid: process.pid });
