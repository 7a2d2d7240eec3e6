import type { DedupeState, Json } from '@tributary/runtime';
import type { Selectable } from 'kysely';
import type { EventRecord, LogRecord } from '../pubsub/pubsub.js';
import type { NewInvocation } from './invocation-queue.js';
import type { Database } from '../store/schema.js';

/** A deployed source as stored (JSON columns as text, times in epoch milliseconds). */
export type StoredSource = Selectable<Database['sources']>;

export interface EventInsert {
  readonly id: string;
  readonly indexedAtMs: number;
  /** JSON text. */
  readonly event: string;
  /** JSON text. */
  readonly metadata: string;
}

export interface LogInsert {
  readonly invocationId: string | null;
  readonly ts: number;
  readonly level: 'info' | 'warn' | 'error';
  readonly message: string;
}

/** What one commit writes for a source: events and logs appended, db and dedupe state replaced. */
export interface SourceCommit {
  readonly sourceId: string;
  readonly events: readonly EventInsert[];
  readonly logs: readonly LogInsert[];
  /** JSON text of the source's `$.service.db`. */
  readonly db: string;
  /** JSON text of the dedupe state, or null. */
  readonly dedupe: string | null;
}

/** A source's db and dedupe state, read into the worker at the start of an invocation. */
export interface SourceState {
  readonly db: Record<string, Json>;
  readonly dedupe: DedupeState | null;
}

export interface PageQuery {
  readonly limit: number;
  /** Entries older than this id (next page, newest first). */
  readonly before?: string;
  /** Entries newer than this id. */
  readonly after?: string;
}

export interface Page<T> {
  readonly data: T[];
  readonly total: number;
}

/**
 * Where deployed sources, their state, event bins and logs live.
 *
 * Guarantees every implementation keeps (test/contracts/store.contract.ts checks them):
 * - `commit` is one transaction: the events (bin trimmed to its size), the logs (trimmed), the
 *   db and dedupe state and the removal of the listed queue entries are all stored, or none is.
 *   A commit that lists a queue entry no longer queued (another worker already committed it) is
 *   refused whole, so an invocation's results are never stored twice. So is a commit for a source
 *   that no longer exists (`NOT_FOUND`): a run that outlived its source's delete, on another
 *   process, leaves nothing behind; a delete that overlaps a commit waits for it, then removes
 *   what it wrote.
 * - A resolved write is durable: it survives the process being killed and the store reopened.
 * - Writes of one source are applied in call order; nothing here assumes one process (callers
 *   serialise a source's invocations through the queue's per-source claim).
 * - Errors a caller caused (an unknown cursor) reject with an `AppError`; anything else is a
 *   platform failure and rejects with the backend's error.
 */
export interface Store {
  getSource(id: string): Promise<StoredSource | undefined>;
  /** The active source behind an HTTP endpoint id, or null. */
  findEndpoint(endpointId: string): Promise<{ readonly id: string; readonly customResponse: boolean } | null>;
  /** The source's state; empty (`{}` and null) before its first commit. */
  readState(sourceId: string): Promise<SourceState>;
  /**
   * Stores an invocation's (or a batch's) results and removes its queue entries, atomically.
   * Resolves with the ids the log lines got, in order.
   */
  commit(
    commit: SourceCommit,
    options?: {
      readonly dequeue?: readonly string[];
      /** Queue entries added in the same transaction (the workflow runs the committed events start). */
      readonly enqueue?: readonly NewInvocation[];
    },
  ): Promise<number[]>;
  /** Creates a source and commits its deploy hooks' results, atomically. */
  insertSource(row: StoredSource, commit: SourceCommit): Promise<number[]>;
  /**
   * Replaces a source's row and commits its update hooks' results, atomically; refused whole
   * (`NOT_FOUND`) when the source was deleted meanwhile (by another process).
   */
  updateSource(row: StoredSource, commit: SourceCommit): Promise<number[]>;
  /** Removes a source with its events, logs, state, queued invocations and dead letters. */
  deleteSource(sourceId: string): Promise<void>;
  /** Event bin of a source, newest first; an unknown cursor is `NOT_FOUND`. */
  listEvents(sourceId: string, page: PageQuery): Promise<Page<EventRecord>>;
  /** Events committed after `lastEventId` (all when null or unknown), oldest first. */
  eventsAfter(sourceId: string, lastEventId: string | null): Promise<EventRecord[]>;
  /** Deletes the bin's events from `startId` to `endId` inclusive (open ends: all); returns how many. */
  deleteEvents(sourceId: string, range: { readonly startId?: string; readonly endId?: string }): Promise<number>;
  /** Log entries of a source, newest first; a cursor that is not a log id is `VALIDATION_FAILED`. */
  listLogs(sourceId: string, page: PageQuery): Promise<Page<LogRecord>>;
  /** Log entries after `lastId` (all when null), oldest first. */
  logsAfter(sourceId: string, lastId: string | null): Promise<LogRecord[]>;
}
