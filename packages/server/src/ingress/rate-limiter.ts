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

interface Bucket {
  tokens: number;
  at: number;
}

/** Buckets kept before full ones are dropped: a full bucket is the same as no bucket. */
const PRUNE_ABOVE = 10_000;

/**
 * One token bucket per key (an endpoint id), refilled continuously. Keys are only ever ids of
 * active endpoints (the ingress looks the endpoint up first), so the map is bounded by what is
 * deployed; full buckets are pruned when it grows anyway.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly limit: RateLimit,
    private readonly now: () => number = Date.now,
  ) {}

  get enabled(): boolean {
    return this.limit.ratePerSecond > 0;
  }

  /** Takes one token for `key`, or says how many whole seconds until one is available. */
  take(key: string): Admission {
    if (!this.enabled) return { ok: true };
    const now = this.now();
    const capacity = Math.max(1, this.limit.burst);
    const bucket = this.buckets.get(key) ?? { tokens: capacity, at: now };
    bucket.tokens = Math.min(capacity, bucket.tokens + ((now - bucket.at) / 1000) * this.limit.ratePerSecond);
    bucket.at = now;
    if (!this.buckets.has(key)) {
      if (this.buckets.size >= PRUNE_ABOVE) this.prune(now);
      this.buckets.set(key, bucket);
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { ok: true };
    }
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / this.limit.ratePerSecond)) };
  }

  private prune(now: number): void {
    const capacity = Math.max(1, this.limit.burst);
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + ((now - bucket.at) / 1000) * this.limit.ratePerSecond >= capacity) this.buckets.delete(key);
    }
  }
}
