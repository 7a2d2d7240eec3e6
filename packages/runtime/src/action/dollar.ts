import { AppError } from '@tributary/contracts';
import { normalizeResponse, type HttpResponse } from '../interfaces/http-response.js';
import type { Json } from '../types.js';
import { findNonJson } from '../util/json.js';
import { createSend, type SendRecord } from './send.js';

/** What an action's `$` collected during one run. */
export interface ActionRecord {
  readonly exports: Record<string, Json>;
  response: HttpResponse | null;
  exit: { reason: string | null } | null;
  /** `$.flow.delay(ms)`: a workflow run continues with its next step after this wait. */
  delay: { ms: number } | null;
  readonly sends: SendRecord[];
}

export interface DollarOptions {
  readonly invocationId: string;
  readonly startedAtMs: number;
  readonly deadlineMs: number;
  readonly warn: (message: string) => void;
  /** Called when `$.respond` is called, so an ingress can answer before the run ends. */
  readonly onRespond?: (response: HttpResponse) => void;
  /** Counts exports against the invocation's payload limit. */
  readonly charge?: (bytes: number, what: string) => void;
}

const UNSUPPORTED_FLOW = ['rerun', 'suspend', 'trigger', 'refreshTimeout'];

/** The longest `$.flow.delay` (one year, as Pipedream). */
export const MAX_DELAY_MS = 365 * 24 * 3600 * 1000;

/** Where a `$` keeps what its invocation collected, read by the shared `summary` accessor below. */
const DOLLAR_RECORD = Symbol('tributary.dollar');

/**
 * `$.summary` on every `$`: an alias of `$.export("$summary", text)` (contract §6). It lives on one
 * prototype because an accessor defined on each `$` gives each its own hidden class, built and
 * dropped per invocation (measured: ~2 µs, and old-space garbage that brought mark-compacts into
 * a busy worker's loop).
 */
const DOLLAR_PROTOTYPE = Object.create(Object.prototype, {
  summary: {
    enumerable: false,
    get(this: Record<PropertyKey, unknown>) {
      return (this[DOLLAR_RECORD] as ActionRecord).exports['$summary'];
    },
    set(this: Record<PropertyKey, unknown>, text: unknown) {
      (this['export'] as (name: string, value: unknown) => void)('$summary', text);
    },
  },
}) as object;

/** Builds the `$` helper an action's `run({ $, steps })` receives (contract §6). */
export function createDollar(options: DollarOptions): { $: Record<string, unknown>; record: ActionRecord } {
  const record: ActionRecord = { exports: {}, response: null, exit: null, delay: null, sends: [] };
  const exportValue = (name: unknown, value: unknown): void => {
    if (typeof name !== 'string' || name === '')
      throw new AppError('COMPONENT_ERROR', '$.export: the name must be a non-empty string');
    const problem = findNonJson(value, `export "${name}"`);
    if (problem) throw new AppError('COMPONENT_ERROR', `$.export: ${problem}; exports must be JSON-serializable`);
    // One serialization gives both the stored copy and its size.
    const text = value === undefined ? 'null' : (JSON.stringify(value) ?? 'null');
    const stored = JSON.parse(text) as Json;
    options.charge?.(Buffer.byteLength(text), `$.export("${name}")`);
    record.exports[name] = stored;
  };
  const flow: Record<string, unknown> = {
    exit(reason?: unknown) {
      record.exit = { reason: reason === undefined || reason === null ? null : String(reason) };
      return undefined;
    },
    // The step itself finishes; the run is suspended durably and resumes with the next step.
    delay(ms: unknown) {
      if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0 || ms > MAX_DELAY_MS)
        throw new AppError('COMPONENT_ERROR', `$.flow.delay: give a wait in milliseconds from 0 to ${MAX_DELAY_MS}`);
      record.delay = { ms: Math.round(ms) };
      return { resume_url: null, cancel_url: null };
    },
  };
  for (const name of UNSUPPORTED_FLOW) {
    flow[name] = () => {
      throw new AppError('NOT_SUPPORTED', `$.flow.${name} is not supported by Tributary`);
    };
  }
  const $ = Object.create(DOLLAR_PROTOTYPE) as Record<PropertyKey, unknown>;
  $[DOLLAR_RECORD] = record;
  $['export'] = exportValue;
  $['respond'] = (input: unknown) => {
    const response = normalizeResponse(input, '$.respond');
    if (record.response) {
      options.warn('$.respond was called more than once; only the first response is used');
    } else {
      record.response = response;
      options.onRespond?.(response);
    }
    return Promise.resolve();
  };
  $['flow'] = flow;
  $['send'] = createSend((entry) => record.sends.push(entry));
  $['context'] = Object.freeze({
    id: options.invocationId,
    ts: isoTime(options.startedAtMs),
    deadline: options.deadlineMs,
    JIT: false,
  });
  return { $, record };
}

/** The calls of one gathered worker request mostly start in the same millisecond. */
let lastIso = { ms: Number.NaN, text: '' };

function isoTime(ms: number): string {
  if (ms !== lastIso.ms) lastIso = { ms, text: new Date(ms).toISOString() };
  return lastIso.text;
}
