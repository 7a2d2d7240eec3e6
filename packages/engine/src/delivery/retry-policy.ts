import { backoffMs, type RetryPolicy } from '../ports/invocation-queue.js';

/**
 * How deliveries are retried (docs/destinations.md, "Retries"): the invocation queue's policy and
 * backoff (`maxAttempts` in all, `baseDelayMs` doubled after each failure, capped at
 * `maxDelayMs`), with other defaults. Deliveries talk to other people's servers, so the defaults
 * ride out a few minutes of downtime, not a second.
 */
export type DeliveryRetryPolicy = RetryPolicy;

export const DEFAULT_DELIVERY_RETRY: DeliveryRetryPolicy = { maxAttempts: 5, baseDelayMs: 2000, maxDelayMs: 300_000 };

/** The wait before the next attempt once `failures` attempts failed: 2 s, 4 s, 8 s, 16 s by default. */
export const deliveryBackoffMs: (policy: DeliveryRetryPolicy, failures: number) => number = backoffMs;
