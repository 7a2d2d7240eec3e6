/**
 * How deliveries are retried (docs/destinations.md, "Retries"): `maxAttempts` attempts in all,
 * waiting `baseDelayMs` doubled after each failure, capped at `maxDelayMs`. Deliveries talk to
 * other people's servers, so the defaults ride out a few minutes of downtime, not a second.
 */
export interface DeliveryRetryPolicy {
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export const DEFAULT_DELIVERY_RETRY: DeliveryRetryPolicy = { maxAttempts: 5, baseDelayMs: 2000, maxDelayMs: 300_000 };

/** The wait before the next attempt once `failures` attempts failed: 2 s, 4 s, 8 s, 16 s by default. */
export function deliveryBackoffMs(policy: DeliveryRetryPolicy, failures: number): number {
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, failures - 1));
}
