/** Limits of the HTTP endpoints: a token bucket per endpoint (contract §10). */
export interface RateLimit {
  /** Tokens added per second: the sustained rate. 0 turns the limit off. */
  readonly ratePerSecond: number;
  /** Size of the bucket: the burst allowed after a quiet spell. */
  readonly burst: number;
}

/** Pipedream's documented limit: 10 requests per second on average, bursts of 50. */
export const DEFAULT_ENDPOINT_RATE_LIMIT: RateLimit = { ratePerSecond: 10, burst: 50 };

export type Admission = { readonly ok: true } | { readonly ok: false; readonly retryAfterSeconds: number };

/**
 * The endpoint rate limiter port: one token bucket per key (an endpoint id), refilled
 * continuously at `limit.ratePerSecond` up to `limit.burst` tokens (at least 1).
 *
 * Guarantees every implementation keeps (test/contracts/rate-limiter.contract.ts checks them):
 * - A `take` that resolves `{ ok: true }` consumed one token of that key; a refused one consumed
 *   nothing, so a client hammering a full bucket does not push its own recovery further out.
 * - Keys are independent: one endpoint's traffic never takes another's tokens.
 * - A refusal says, in whole seconds (at least 1, rounded up), when the next token is there:
 *   the `Retry-After` of the 429.
 * - `ratePerSecond` 0 turns the limit off: every take is admitted.
 * - The bucket is the key's, not the process's: a shared implementation (`RedisRateLimiter`)
 *   admits no more across all processes than the memory one admits in one. That is why `take` is
 *   async: there it is one script run per request (refill and take atomically, the clock passed in).
 * - `take` rejects only when the backing service fails, never for lack of tokens.
 */
export interface RateLimiter {
  /** The limit every key gets (the 429 message quotes it). */
  readonly limit: RateLimit;
  take(key: string): Promise<Admission>;
  /** Lets go of what the implementation holds (a connection); the engine calls it when it stops. */
  close(): Promise<void>;
}
