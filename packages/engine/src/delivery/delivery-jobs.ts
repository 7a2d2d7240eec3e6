import type { DeliveryAttempt, DeliveryJob, DeliveryKind, DeliveryRecord, DeliveryStatus } from './delivery-types.js';

/** A job to store: its configuration in clear (the store seals it) and as shown (redacted). */
export interface NewDelivery {
  readonly id: string;
  readonly kind: DeliveryKind;
  readonly owner: string;
  readonly runId: string;
  readonly stepName: string | null;
  readonly subscriptionId: string | null;
  readonly target: string;
  readonly config: Record<string, unknown>;
  readonly shown: Record<string, unknown>;
  readonly maxAttempts: number;
  readonly createdAt: number;
}

/** What one attempt changed: the log entry, and the job's state after it. */
export interface AttemptResult {
  readonly attempt: DeliveryAttempt;
  readonly status: Extract<DeliveryStatus, 'pending' | 'delivered' | 'failed'>;
  readonly nextAttemptAt: number | null;
  readonly lastError: string | null;
}

/**
 * Durable delivery jobs (the `deliveries` table).
 *
 * Guarantees:
 * - `insert` stores all of its jobs or none, and resolves once they are durable; a job whose id
 *   is already stored is skipped (queuing is idempotent for callers that derive ids).
 * - `claimDue` hands a job to one caller at a time: a claimed job is leased until `leaseMs` from
 *   now, and a lease that runs out (its process died mid-attempt) makes the job due again, so a
 *   delivery survives a restart and is attempted at least once more (at-least-once).
 * - `finish` of a job whose lease another caller took since is ignored, so one attempt is never
 *   recorded twice.
 */
export interface DeliveryJobs {
  insert(jobs: readonly NewDelivery[]): Promise<void>;
  claimDue(now: number, limit: number, leaseMs: number): Promise<DeliveryJob[]>;
  finish(job: DeliveryJob, result: AttemptResult, now: number): Promise<void>;
  /** Epoch ms of the earliest pending attempt or lease expiry, or null when nothing waits. */
  nextDueAt(): Promise<number | null>;
  get(id: string): Promise<DeliveryRecord | undefined>;
  listByRun(runId: string): Promise<DeliveryRecord[]>;
  /** Newest first; `before` is a delivery id of the previous page. */
  listBySubscription(
    subscriptionId: string,
    page: { readonly limit: number; readonly before?: string },
  ): Promise<{ data: DeliveryRecord[]; total: number }>;
  /** The latest `limit` deliveries of a kind to one target, oldest first (an SSE channel's replay). */
  recentByTarget(kind: DeliveryKind, target: string, limit: number): Promise<DeliveryRecord[]>;
}
