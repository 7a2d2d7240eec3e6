import type { SendKind } from '@tributary/runtime';

/** What a delivery job carries: a `$.send.*` kind, or an emitted event POSTed to a webhook listener. */
export type DeliveryKind = SendKind | 'webhook';

/**
 * `pending`: waiting for its (next) attempt. `delivering`: an attempt is running (a lease; a
 * process that died mid-attempt leaves it to expire and the job is attempted again). `delivered`
 * and `failed` are final: `failed` after the last attempt, or at once for an error no retry fixes.
 */
export type DeliveryStatus = 'pending' | 'delivering' | 'delivered' | 'failed';

/** One attempt, as kept in the delivery's log. */
export interface DeliveryAttempt {
  readonly attempt: number;
  /** Epoch ms when the attempt started. */
  readonly at: number;
  readonly duration_ms: number;
  readonly ok: boolean;
  /** What the destination answered (`HTTP 200`, `250 OK`, an S3 ETag) or why it failed. */
  readonly detail: string;
}

/** A delivery as the API shows it: the configuration with its secrets redacted. */
export interface DeliveryRecord {
  readonly id: string;
  readonly kind: DeliveryKind;
  readonly run_id: string;
  readonly step_name: string | null;
  readonly subscription_id: string | null;
  /** URL, channel, bucket, recipient or emitter the delivery goes to. */
  readonly target: string;
  readonly config: Record<string, unknown>;
  readonly status: DeliveryStatus;
  readonly attempts: number;
  readonly max_attempts: number;
  readonly last_error: string | null;
  /** Epoch ms of the next attempt while pending, else null. */
  readonly next_attempt_at: number | null;
  readonly created_at: number;
  readonly delivered_at: number | null;
  readonly log: DeliveryAttempt[];
}

/** A job as the worker reads it: the configuration in clear. */
export interface DeliveryJob {
  readonly id: string;
  readonly kind: DeliveryKind;
  readonly owner: string;
  readonly runId: string;
  readonly stepName: string | null;
  readonly subscriptionId: string | null;
  readonly target: string;
  readonly config: Record<string, unknown>;
  readonly attempts: number;
  readonly maxAttempts: number;
  /** The end of this claim's lease: finishing after another claim took the job is ignored. */
  readonly leaseUntil: number;
}

/** Where a run's deliveries come from: who owns it, which run and which step. */
export interface DeliveryContext {
  readonly owner: string;
  readonly runId: string;
  readonly stepName?: string;
  /**
   * The emitter `$.send.emit` speaks for (a workflow's `p_` id): its subscribers get the event.
   * Absent (a standalone action run), an emit has no subscribers and is delivered to nobody.
   */
  readonly emitterId?: string;
}

/** The outcome of one attempt: `retry: false` for an error no later attempt can fix (HTTP 4xx). */
export type AttemptOutcome =
  | { readonly ok: true; readonly detail: string }
  | { readonly ok: false; readonly detail: string; readonly retry: boolean };
