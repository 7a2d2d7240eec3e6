import type { DedupeStrategy } from '../types.js';
import type { DedupedEvent, EmittedEvent } from './emitted-event.js';

/** Dedupe state of one source, shared by all channels and kept across code updates (contract §4.3). */
export type DedupeState =
  | { readonly strategy: 'unique'; readonly ids: readonly string[] }
  | { readonly strategy: 'greatest'; readonly greatest: number | null }
  | { readonly strategy: 'last'; readonly last: string | null };

export const UNIQUE_CACHE_SIZE = 100;

export interface DedupeOutcome {
  readonly accepted: EmittedEvent[];
  readonly deduped: DedupedEvent[];
  readonly state: DedupeState | null;
  /** Lines for the invocation's log: events dropped because they had no id. */
  readonly errors: string[];
}

/**
 * Orders an invocation's emits oldest to newest by `ts` (stable) and applies the strategy,
 * updating the state as each event is accepted (contract §4.3, §4.4).
 */
export function applyDedupe(input: {
  readonly strategy: DedupeStrategy | undefined;
  readonly state: DedupeState | null;
  readonly emits: readonly EmittedEvent[];
}): DedupeOutcome {
  const sorted = [...input.emits].sort((a, b) => a.metadata.ts - b.metadata.ts);
  const strategy = input.strategy;
  if (!strategy) return { accepted: sorted, deduped: [], state: input.state, errors: [] };
  const deduped: DedupedEvent[] = [];
  const errors: string[] = [];
  const withIds: EmittedEvent[] = [];
  for (const emit of sorted) {
    if (emit.metadata.id === undefined) {
      deduped.push({ ...emit, reason: `no id (dedupe "${strategy}" needs metadata.id)` });
      errors.push(
        `dedupe: event without id dropped (strategy "${strategy}"; pass { id } as the second argument of $emit)`,
      );
    } else {
      withIds.push(emit);
    }
  }
  const state = input.state?.strategy === strategy ? input.state : null;
  switch (strategy) {
    case 'unique':
      return { ...unique(withIds, state?.strategy === 'unique' ? state : null, deduped), errors };
    case 'greatest':
      return { ...greatest(withIds, state?.strategy === 'greatest' ? state : null, deduped), errors };
    case 'last':
      return { ...last(withIds, state?.strategy === 'last' ? state : null, deduped), errors };
  }
}

function unique(
  emits: readonly EmittedEvent[],
  state: Extract<DedupeState, { strategy: 'unique' }> | null,
  deduped: DedupedEvent[],
): Omit<DedupeOutcome, 'errors'> {
  const ids = [...(state?.ids ?? [])];
  const accepted: EmittedEvent[] = [];
  for (const emit of emits) {
    const id = String(emit.metadata.id);
    if (ids.includes(id)) {
      deduped.push({ ...emit, reason: `id ${JSON.stringify(id)} was already emitted` });
      continue;
    }
    ids.push(id);
    if (ids.length > UNIQUE_CACHE_SIZE) ids.splice(0, ids.length - UNIQUE_CACHE_SIZE);
    accepted.push(emit);
  }
  return { accepted, deduped, state: { strategy: 'unique', ids } };
}

function greatest(
  emits: readonly EmittedEvent[],
  state: Extract<DedupeState, { strategy: 'greatest' }> | null,
  deduped: DedupedEvent[],
): Omit<DedupeOutcome, 'errors'> {
  let cached = state?.greatest ?? null;
  const accepted: EmittedEvent[] = [];
  for (const emit of emits) {
    const id = Number(emit.metadata.id);
    if (cached !== null && !(id > cached)) {
      deduped.push({ ...emit, reason: `id ${id} is not greater than ${cached}` });
      continue;
    }
    cached = id;
    accepted.push(emit);
  }
  return { accepted, deduped, state: { strategy: 'greatest', greatest: cached } };
}

function last(
  emits: readonly EmittedEvent[],
  state: Extract<DedupeState, { strategy: 'last' }> | null,
  deduped: DedupedEvent[],
): Omit<DedupeOutcome, 'errors'> {
  const cached = state?.last ?? null;
  const at = cached === null ? -1 : emits.findIndex((emit) => String(emit.metadata.id) === cached);
  const accepted = at === -1 ? [...emits] : emits.slice(at + 1);
  for (const emit of emits.slice(0, at + 1)) {
    deduped.push({ ...emit, reason: `at or before the last emitted id ${JSON.stringify(cached)}` });
  }
  const newest = emits[emits.length - 1];
  const next = newest === undefined ? cached : String(newest.metadata.id);
  return { accepted, deduped, state: { strategy: 'last', last: next } };
}
