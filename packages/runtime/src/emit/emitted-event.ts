import type { Json } from '../types.js';

/** Metadata of one emitted event, with defaults filled (contract §4.1). */
export interface EmitMetadata {
  readonly id?: string | number;
  /** Channel; `default` when the author named none. */
  readonly name: string;
  readonly summary: string;
  /** Event time in epoch milliseconds. */
  readonly ts: number;
}

export interface EmittedEvent {
  readonly event: Json;
  readonly metadata: EmitMetadata;
}

/** An emit that dedupe refused, and why. */
export interface DedupedEvent extends EmittedEvent {
  readonly reason: string;
}
