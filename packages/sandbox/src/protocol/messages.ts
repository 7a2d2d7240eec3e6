/**
 * The host <-> worker protocol: every message either side may send, in one place. Messages are
 * JSON over Node's IPC channel; each carries the protocol version and is validated on receipt,
 * so a worker built from other code (or a component scribbling on the channel) is refused. The
 * host's invocation requests are checked on their frame only (see isInvocationRequest).
 * Errors cross as data ({ code, message, stack }) and are rebuilt as AppError on the host.
 */
// The worker's bundle takes the runtime's worker entry only (its index pulls in CommonJS modules).
import { SEND_KINDS } from '@tributary/runtime/worker';
import { z } from 'zod';
import { EventPacking } from './event-packing.js';
import { isQuickWorkerMessage } from './quick-results.js';
import { isFields } from './is-fields.js';

// 2: `invoke_batch` (several `run`s of one source in one request) and its `item_result`.
// 3: `log` carries `entries` (one or more lines), so a flood of short lines is not one message each;
//    results carry `startedAtMs`.
// 4: a worker holds many components: `load` carries the bundle's code and names a slot, and every
// later request names the slot it runs against.
// 5: HTTP events cross packed (event-packing.ts): `eventPacking`, `stepsPacking`, `eventPackings`.
// 6: `invoke_each` (several independent invocations of one component in one request).
// 7: an invocation may carry workflow prop `expressions`, evaluated in the worker before its props
//    resolve; its result reports them (`expressions`).
export const PROTOCOL_VERSION = 7;

/** Most invocations one `invoke_batch` may carry. */
export const MAX_BATCH_ITEMS = 64;

const v = z.literal(PROTOCOL_VERSION);
const id = z.string().min(1).max(64);
const record = z.record(z.string(), z.unknown());
/** A component loaded in a worker (the host's name for it: its code and validation purpose). */
const slot = z.string().min(1).max(2048);
/** Which item of an `invoke_batch` a streamed message belongs to (absent for other requests). */
const item = z.number().int().min(0).optional();

export const SerializedErrorMessage = z.object({
  code: z.string(),
  message: z.string(),
  rule: z.string().optional(),
  details: record.optional(),
  stack: z.string().optional(),
});
export type SerializedErrorMessage = z.infer<typeof SerializedErrorMessage>;

const LogEntryMessage = z.object({ level: z.enum(['info', 'warn', 'error']), message: z.string(), ts: z.number() });

const EmitMessage = z.object({
  event: z.unknown(),
  metadata: z.object({
    id: z.union([z.string(), z.number()]).optional(),
    name: z.string(),
    summary: z.string(),
    ts: z.number(),
  }),
});

/** An HTTP response with its body as base64, since the IPC channel carries JSON only. */
export const ResponseMessage = z.object({
  status: z.number().int().min(100).max(599),
  headers: z.record(z.string(), z.string()),
  bodyBase64: z.string().nullable(),
});
export type ResponseMessage = z.infer<typeof ResponseMessage>;

export const InvocationResultMessage = z.object({
  ok: z.boolean(),
  invocationId: z.string(),
  type: z.enum(['source', 'action']),
  kind: z.enum(['run', 'deploy', 'activate', 'deactivate']),
  returnValue: z.unknown().optional(),
  exports: record,
  summary: z.string().nullable(),
  emits: z.array(EmitMessage),
  deduped: z.array(EmitMessage.extend({ reason: z.string() })),
  logs: z.array(LogEntryMessage),
  exit: z.object({ reason: z.string().nullable() }).nullable(),
  delay: z.object({ ms: z.number() }).nullable().optional(),
  response: ResponseMessage.nullable(),
  sends: z.array(z.object({ kind: z.enum(SEND_KINDS), config: record })),
  error: SerializedErrorMessage.nullable(),
  state: z.object({ db: record, dedupe: z.unknown().nullable() }),
  startedAtMs: z.number(),
  durationMs: z.number(),
  /** The invocation's `expressions`, evaluated (absent when it carried none). */
  expressions: z
    .union([
      z.object({ ok: z.literal(true), props: record }),
      z.object({ ok: z.literal(false), prop: z.string().nullable(), message: z.string() }),
    ])
    .optional(),
});
export type InvocationResultMessage = z.infer<typeof InvocationResultMessage>;

/** What an invocation's `expressions` evaluated to: the props, or the prop that failed and why. */
export type ExpressionsOutcome = NonNullable<InvocationResultMessage['expressions']>;

/** What the host learns about a component once the worker has loaded it. */
export const ComponentInfo = z.object({
  type: z.enum(['source', 'action']),
  key: z.string().nullable(),
  name: z.string().nullable(),
  version: z.string().nullable(),
  description: z.string().nullable(),
  dedupe: z.enum(['unique', 'greatest', 'last']).nullable(),
  hooks: z.array(z.enum(['deploy', 'activate', 'deactivate'])),
  props: z.array(record),
  hasAdditionalProps: z.boolean(),
});
export type ComponentInfo = z.infer<typeof ComponentInfo>;

const Issue = z.object({
  level: z.enum(['error', 'warning']),
  rule: z.string(),
  message: z.string(),
  prop: z.string().optional(),
  field: z.string().optional(),
});

/** Props after configuration: the final list (with dynamic props) and the interfaces to drive. */
export const PropsInfo = z.object({
  props: z.array(record),
  timer: z
    .object({
      prop: z.string(),
      schedule: z.union([
        z.object({ kind: z.literal('interval'), intervalSeconds: z.number() }),
        z.object({ kind: z.literal('cron'), cron: z.string(), timezone: z.string() }),
      ]),
    })
    .nullable(),
  http: z.object({ prop: z.string(), customResponse: z.boolean() }).nullable(),
});
export type PropsInfo = z.infer<typeof PropsInfo>;

const configured = {
  configured: record,
  accounts: z.record(z.string(), record),
  // Apps allowed to run without an account (AppAuthModes of the runtime), by app slug.
  appAuth: z.record(z.string(), z.enum(['none', 'unknown'])).optional(),
};

/** What one invocation needs besides its component, deadline and payload limit. */
const invocation = {
  kind: z.enum(['run', 'deploy', 'activate', 'deactivate']),
  ...configured,
  event: z.unknown().optional(),
  /** How to rebuild `event`'s body aliases; absent when it crossed whole. */
  eventPacking: EventPacking.optional(),
  steps: record.optional(),
  /** How to rebuild `steps.trigger.event`'s body aliases; absent when it crossed whole. */
  stepsPacking: EventPacking.optional(),
  state: z.object({ db: record, dedupe: z.unknown().nullable() }),
  endpointUrl: z.string().optional(),
  /**
   * Workflow props holding `{{ }}` expressions: evaluated against `steps` in the realm of `scope`
   * (the workflow) and added to `configured` before the props resolve. When one fails, the
   * component does not run; with `only`, it never does (the host needs the values first).
   */
  expressions: z.object({ scope: z.string().min(1).max(256), props: record, only: z.boolean().optional() }).optional(),
};

export const InvocationItem = z.object(invocation);
export type InvocationItem = z.infer<typeof InvocationItem>;

export const HostMessage = z.discriminatedUnion('type', [
  z.object({
    v,
    type: z.literal('load'),
    id,
    slot,
    // The bundle's file name (unique per content) and its code: workers cannot read the cache's
    // bundles folder, so no component can read another's code from it.
    bundleName: z.string().regex(/^[\w.-]+\.mjs$/),
    code: z.string(),
    entry: z.string(),
    purpose: z.enum(['run', 'deploy', 'publish']),
  }),
  z.object({ v, type: z.literal('props'), id, slot, ...configured, timeoutMs: z.number().int().positive() }),
  z.object({
    v,
    type: z.literal('invoke'),
    id,
    slot,
    ...invocation,
    timeoutMs: z.number().int().positive(),
    maxPayloadBytes: z.number().int().positive(),
  }),
  // Independent invocations of one component, run one after the other: nothing passes from one
  // item to the next (unlike `invoke_batch`). Each streams tagged with its item and ends with an
  // `item_result`; the request ends with `batch_done`, or with `failed` on the item that failed,
  // in which case the items after it did not start. `timeoutMs` is each item's deadline.
  z.object({
    v,
    type: z.literal('invoke_each'),
    id,
    slot,
    items: z.array(InvocationItem).min(1).max(MAX_BATCH_ITEMS),
    timeoutMs: z.number().int().positive(),
    maxPayloadBytes: z.number().int().positive(),
  }),
  // Several `run`s of one source, in order: each starts from the state the previous one left, and
  // each has its own emits, logs, error and deadline (`timeoutMs` per item).
  z.object({
    v,
    type: z.literal('invoke_batch'),
    id,
    slot,
    ...configured,
    events: z.array(z.unknown()).min(1).max(MAX_BATCH_ITEMS),
    /** Per event, how to rebuild its body aliases (null: it crossed whole); absent when none is packed. */
    eventPackings: z.array(EventPacking.nullable()).max(MAX_BATCH_ITEMS).optional(),
    state: z.object({ db: record, dedupe: z.unknown().nullable() }),
    endpointUrl: z.string().optional(),
    timeoutMs: z.number().int().positive(),
    maxPayloadBytes: z.number().int().positive(),
  }),
  z.object({
    v,
    type: z.literal('options'),
    id,
    slot,
    prop: z.string(),
    ...configured,
    page: z.number().int().min(0),
    prevContext: record.optional(),
    query: z.string().optional(),
    timeoutMs: z.number().int().positive(),
  }),
]);
export type HostMessage = z.infer<typeof HostMessage>;

export const WorkerMessage = z.discriminatedUnion('type', [
  z.object({ v, type: z.literal('ready'), pid: z.number() }),
  z.object({ v, type: z.literal('loaded'), id, info: ComponentInfo.nullable(), issues: z.array(Issue) }),
  z.object({ v, type: z.literal('props_result'), id, info: PropsInfo }),
  z.object({ v, type: z.literal('log'), id, item, entries: z.array(LogEntryMessage).min(1) }),
  z.object({ v, type: z.literal('emit'), id, item, emit: EmitMessage }),
  z.object({
    v,
    type: z.literal('db_set'),
    id,
    item,
    key: z.string(),
    value: z.unknown().optional(),
    deleted: z.boolean(),
  }),
  z.object({ v, type: z.literal('respond'), id, item, response: ResponseMessage }),
  // One item of an `invoke_batch` finished; the request ends with `batch_done` (or `failed`).
  z.object({ v, type: z.literal('item_result'), id, item: z.number().int().min(0), result: InvocationResultMessage }),
  z.object({ v, type: z.literal('batch_done'), id, count: z.number().int().min(0) }),
  z.object({ v, type: z.literal('result'), id, result: InvocationResultMessage }),
  z.object({
    v,
    type: z.literal('options_result'),
    id,
    page: z.object({
      options: z.array(z.object({ label: z.string(), value: z.unknown() })).nullable(),
      stringOptions: z.array(z.string()).nullable(),
      context: record.nullable(),
      errors: z.array(z.string()),
      observations: z.array(LogEntryMessage),
    }),
  }),
  // `exiting`: the worker stops right after this message (an uncaught error left it in an unknown
  // state), so the host sends it nothing more, even in the moment before the process is gone.
  z.object({ v, type: z.literal('failed'), id, error: SerializedErrorMessage, exiting: z.boolean().optional() }),
]);
export type WorkerMessage = z.infer<typeof WorkerMessage>;

/** Parses a message from the other side; returns null (never throws) when it is not valid. */
export function parseHostMessage(raw: unknown): HostMessage | null {
  if (isInvocationRequest(raw)) return raw;
  const parsed = HostMessage.safeParse(raw);
  return parsed.success ? parsed.data : null;
}

type InvocationRequest = Extract<HostMessage, { type: 'invoke' | 'invoke_each' | 'invoke_batch' }>;

const isVersioned = (raw: unknown): raw is Record<string, unknown> => isFields(raw) && raw['v'] === PROTOCOL_VERSION;

/**
 * The invocation requests, taken on their frame alone. Unlike the worker's messages, which a
 * component can forge, the host's come from the trusted side, built from this file's types: the
 * version and the fields the worker reads first are what tell a stale or foreign sender. A full
 * parse copies every record an invocation carries (the trigger's event in each workflow step's
 * `steps`), which measured about a tenth of a busy workflow worker's CPU.
 */
function isInvocationRequest(raw: unknown): raw is InvocationRequest {
  if (!isVersioned(raw)) return false;
  const frame =
    typeof raw['id'] === 'string' &&
    typeof raw['slot'] === 'string' &&
    typeof raw['timeoutMs'] === 'number' &&
    typeof raw['maxPayloadBytes'] === 'number';
  if (!frame) return false;
  const type = raw['type'] as string;
  switch (type) {
    case 'invoke':
      return isInvocation(raw);
    case 'invoke_each':
      return Array.isArray(raw['items']) && raw['items'].length > 0 && raw['items'].every(isInvocation);
    case 'invoke_batch':
      return (
        Array.isArray(raw['events']) &&
        isFields(raw['configured']) &&
        isFields(raw['accounts']) &&
        isFields(raw['state'])
      );
    default:
      return false;
  }
}

function isInvocation(item: unknown): boolean {
  return (
    isFields(item) &&
    typeof item['kind'] === 'string' &&
    isFields(item['configured']) &&
    isFields(item['accounts']) &&
    isFields(item['state'])
  );
}

export function parseWorkerMessage(raw: unknown): WorkerMessage | null {
  if (isVersioned(raw) && isQuickWorkerMessage(raw)) return raw as WorkerMessage;
  const parsed = WorkerMessage.safeParse(raw);
  return parsed.success ? parsed.data : null;
}
