import type { DeadLetterList } from './dead-letter-list.js';

export type Trigger = 'http' | 'timer' | 'manual';

export interface NewInvocation {
  readonly id: string;
  readonly sourceId: string;
  readonly trigger: Trigger;
  /** JSON text of the event. */
  readonly event: string;
  readonly createdAt: number;
}

export interface QueuedInvocation extends NewInvocation {
  /** Platform failures so far. */
  readonly attempts: number;
  /** Not claimed before this time (0: at once). */
  readonly notBefore: number;
  readonly lastError: string | null;
}

/** What became of an invocation that failed in the platform. */
export type FailOutcome =
  | { readonly kind: 'retry'; readonly attempts: number; readonly notBefore: number }
  | { readonly kind: 'dead'; readonly attempts: number }
  /** It was no longer queued (its source was deleted meanwhile). */
  | { readonly kind: 'gone' };

/** How platform failures are retried: `baseDelayMs` doubled per attempt, capped at `maxDelayMs`. */
export interface RetryPolicy {
  /** Attempts in all, the first included; after the last failure the invocation is a dead letter. */
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 3, baseDelayMs: 1000, maxDelayMs: 60_000 };

/** The wait before the attempt after `failures` platform failures. */
export function backoffMs(policy: RetryPolicy, failures: number): number {
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, failures - 1));
}

/**
 * The durable invocation queue between the ingress, the scheduler and RUN NOW on one side and the
 * invocation runner on the other.
 *
 * Guarantees every implementation keeps (test/contracts/queue.contract.ts checks them):
 * - `enqueue` resolves only once its entries are durable (they survive a kill and a reopen), and
 *   rejects with none of them stored if it fails.
 * - A source's entries are claimed first in, first out. An entry waiting out its backoff holds
 *   back the later entries of its source (order is kept), never other sources' entries.
 * - `claim` is exclusive per source: while a source's claim is held (until `release`), another
 *   `claim` of it, in this process or any other, returns nothing. A claimer that dies loses its
 *   claim (the implementation's lease), and its entries are claimed again: delivery is at least
 *   once. Claimed entries stay queued until a `Store.commit` removes them with their results.
 * - Platform failures (`fail`) are counted in the entry, durably; it waits out an exponential
 *   backoff, and after `maxAttempts` it moves to the dead-letter list with its source, trigger,
 *   event, attempts, last error and times. A component that throws is a result, not a failure.
 * - Nothing assumes one process: time comes from the injected clock, state from the backend.
 */
export interface InvocationQueue {
  enqueue(items: readonly NewInvocation[]): Promise<void>;
  /** Sources with queued entries (due or backing off), the one waiting longest first. */
  sourcesWithWork(): Promise<string[]>;
  /**
   * Claims up to `limit` of a source's oldest entries that are due now, oldest first; empty when
   * none is due or the source's claim is held.
   */
  claim(sourceId: string, limit: number): Promise<QueuedInvocation[]>;
  /**
   * Takes the source's claim as `claim` does, without reading its entries: for a key whose only
   * entry the caller has just enqueued and holds in memory (a workflow run stepped by the process
   * that created it, decision 0020). False when the claim is held, here or elsewhere.
   */
  hold(sourceId: string): Promise<boolean>;
  /** Gives the source's claim back (after its entries committed, failed or were dropped). */
  release(sourceId: string): Promise<void>;
  /** Records a platform failure of a claimed entry: a retry after backoff, or a dead letter. */
  fail(id: string, error: string): Promise<FailOutcome>;
  /** Removes entries without results (their source is gone). */
  drop(ids: readonly string[]): Promise<void>;
  /** When the first entry backing off becomes due, or null when none is. */
  nextRetryAt(): Promise<number | null>;
  readonly deadLetters: DeadLetterList;
}
