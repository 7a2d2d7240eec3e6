import { EventEmitter } from 'node:events';

/** What is published when an invocation commits: its events and log lines, per source. */
export type SourceMessage =
  | { readonly kind: 'event'; readonly sourceId: string; readonly record: EventRecord }
  | { readonly kind: 'log'; readonly sourceId: string; readonly record: LogRecord };

/** An event of the event bin (contract §4.2). */
export interface EventRecord {
  readonly id: string;
  readonly indexed_at_ms: number;
  readonly event: unknown;
  readonly metadata: Record<string, unknown>;
}

export interface LogRecord {
  readonly id: string;
  readonly ts: number;
  readonly level: 'info' | 'warn' | 'error';
  readonly message: string;
  readonly invocation_id: string | null;
}

/**
 * Fan-out of committed events and logs to live subscribers (SSE). Delivery guarantees: in commit
 * order, in process, to subscribers present at publish time; a subscriber that missed messages
 * catches up from the event bin with Last-Event-ID. A Redis implementation can replace it.
 */
export interface PubSub {
  publish(message: SourceMessage): void;
  subscribe(sourceId: string, listener: (message: SourceMessage) => void): () => void;
}

export class MemoryPubSub implements PubSub {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  publish(message: SourceMessage): void {
    this.emitter.emit(message.sourceId, message);
  }

  subscribe(sourceId: string, listener: (message: SourceMessage) => void): () => void {
    this.emitter.on(sourceId, listener);
    return () => this.emitter.off(sourceId, listener);
  }
}
