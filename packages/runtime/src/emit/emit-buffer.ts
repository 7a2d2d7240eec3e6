import { AppError } from '@tributary/contracts';
import type { DedupeStrategy, Json } from '../types.js';
import { findNonJson, isPlainObject } from '../util/json.js';
import type { EmittedEvent } from './emitted-event.js';

export const MAX_DEDUPE_ID_LENGTH = 64;
const SUMMARY_LENGTH = 140;

/**
 * Collects `$emit` calls of one invocation in call order. Checks each call at once so the author
 * sees the error at the line that made it (contract §4.1).
 */
export class EmitBuffer {
  readonly emits: EmittedEvent[] = [];
  private closed = false;

  constructor(
    private readonly options: {
      readonly dedupe: DedupeStrategy | undefined;
      readonly now: () => number;
      /** Counts each payload against the invocation's size limit; throws when it is over. */
      readonly charge?: (bytes: number, what: string) => void;
      /** Sees each accepted call as it happens (the sandbox streams them to the host). */
      readonly onEmit?: (emit: EmittedEvent) => void;
    },
  ) {}

  /** After close, late emits (from work left running after the invocation ended) are ignored. */
  close(): void {
    this.closed = true;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  emit(event: unknown, metadata: unknown): void {
    if (this.closed) return;
    const problem = findNonJson(event, 'event');
    if (problem) throw new AppError('EMIT_INVALID', `$emit: ${problem}; events must be JSON-serializable`);
    // Serialise once: the size is charged before anything is copied, so an oversized event is
    // refused without holding several copies of it.
    const text = event === undefined ? 'null' : (JSON.stringify(event) ?? 'null');
    this.options.charge?.(Buffer.byteLength(text), '$emit');
    const payload = JSON.parse(text) as Json;
    const meta = metadata === undefined || metadata === null ? {} : metadata;
    if (!isPlainObject(meta))
      throw new AppError('EMIT_INVALID', '$emit: the second argument (metadata) must be an object');
    const id = checkId(meta['id'], this.options.dedupe);
    const name = checkName(meta['name']);
    const ts = checkTs(meta['ts'], this.options.now);
    const summary = checkSummary(meta['summary'], payload);
    const emitted: EmittedEvent = {
      event: payload,
      metadata: { ...(id === undefined ? {} : { id }), name, summary, ts },
    };
    this.emits.push(emitted);
    this.options.onEmit?.(emitted);
  }
}

function checkId(id: unknown, dedupe: DedupeStrategy | undefined): string | number | undefined {
  if (id === undefined || id === null) return undefined;
  if (typeof id !== 'string' && typeof id !== 'number') {
    throw new AppError('EMIT_INVALID', `$emit: metadata.id must be a string or a number, got ${typeof id}`);
  }
  if (!dedupe) return id;
  if (String(id).length > MAX_DEDUPE_ID_LENGTH) {
    throw new AppError(
      'EMIT_INVALID',
      `$emit: metadata.id is ${String(id).length} characters; under dedupe "${dedupe}" ids may be at most ${MAX_DEDUPE_ID_LENGTH}`,
    );
  }
  if (dedupe === 'greatest' && (String(id).trim() === '' || !Number.isFinite(Number(id)))) {
    throw new AppError('EMIT_INVALID', `$emit: dedupe "greatest" needs numeric ids, got ${JSON.stringify(id)}`);
  }
  return id;
}

function checkName(name: unknown): string {
  if (name === undefined || name === null || name === '') return 'default';
  if (typeof name !== 'string')
    throw new AppError('EMIT_INVALID', '$emit: metadata.name (the channel) must be a string');
  if (name.startsWith('$')) {
    throw new AppError(
      'EMIT_INVALID',
      `$emit: channel "${name}" is reserved; names starting with $ cannot be emitted to`,
    );
  }
  return name;
}

/**
 * `ts` in epoch milliseconds. Published components also pass a Date, a numeric string or an ISO
 * date string, and sometimes NaN (`Date.parse` of a missing field): Pipedream accepts all of them,
 * so they are read as the time they name, and a time that names nothing is the time of the call.
 */
function checkTs(ts: unknown, now: () => number): number {
  if (ts === undefined || ts === null) return now();
  if (ts instanceof Date) return Number.isFinite(ts.getTime()) ? ts.getTime() : now();
  if (typeof ts === 'number') return Number.isFinite(ts) ? ts : now();
  if (typeof ts === 'string') {
    const parsed = /^\s*-?\d+(\.\d+)?\s*$/.test(ts) ? Number(ts) : Date.parse(ts);
    return Number.isFinite(parsed) ? parsed : now();
  }
  throw new AppError(
    'EMIT_INVALID',
    `$emit: metadata.ts must be epoch milliseconds (a number, a Date or a date string), got ${typeof ts}`,
  );
}

function checkSummary(summary: unknown, payload: Json): string {
  if (summary !== undefined && summary !== null) {
    if (typeof summary !== 'string') throw new AppError('EMIT_INVALID', '$emit: metadata.summary must be a string');
    return summary;
  }
  const text = JSON.stringify(payload) ?? 'null';
  return text.length > SUMMARY_LENGTH ? `${text.slice(0, SUMMARY_LENGTH - 1)}…` : text;
}
