import type { Trigger } from './invocation-queue.js';

/** An invocation that failed in the platform on every attempt. */
export interface DeadLetter {
  /** The invocation's id (kept when it is retried). */
  readonly id: string;
  readonly sourceId: string;
  readonly trigger: Trigger;
  readonly event: unknown;
  readonly attempts: number;
  readonly lastError: string;
  /** When it was first queued. */
  readonly createdAt: number;
  /** When its last attempt failed. */
  readonly failedAt: number;
}

export interface DeadLetterQuery {
  readonly limit: number;
  readonly sourceId?: string;
  /** Entries older than this dead letter (the next page, newest first); unknown is `NOT_FOUND`. */
  readonly before?: string;
}

/**
 * The dead letters of an invocation queue, newest failure first. Kept until an operator retries
 * or deletes them, or their source is deleted.
 *
 * Guarantees: `retry` moves the entry back to the end of its source's queue with its attempts
 * reset, atomically (it is in exactly one of the two lists at any time); `retry` and `delete` of an
 * id that is not a dead letter resolve false and change nothing.
 */
export interface DeadLetterList {
  list(query: DeadLetterQuery): Promise<{ readonly data: DeadLetter[]; readonly total: number }>;
  get(id: string): Promise<DeadLetter | null>;
  retry(id: string): Promise<boolean>;
  delete(id: string): Promise<boolean>;
}
