import { DEFAULT_ENDPOINT_RATE_LIMIT, type Admission, type RateLimit, type RateLimiter } from './rate-limiter.js';

export interface MemoryRateLimiterOptions {
  readonly limit?: RateLimit;
  /** Milliseconds clock; tests pass their own to step time. */
  readonly now?: () => number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/** Buckets kept before full ones are dropped: a full bucket is the same as no bucket. */
const PRUNE_ABOVE = 10_000;

/**
 * The rate limiter of one process: one token bucket per key in a Map. Keys are only ever ids of
 * active endpoints (the ingress looks the endpoint up first), so the map is bounded by what is
 * deployed; full buckets are pruned when it grows anyway. Several processes each keeping their
 * own buckets would multiply the limit: they need a shared implementation.
 */
export class MemoryRateLimiter implements RateLimiter {
  readonly limit: RateLimit;
  private readonly now: () => number;
  private readonly buckets = new Map<string, Bucket>();

  constructor(options: MemoryRateLimiterOptions = {}) {
    this.limit = options.limit ?? DEFAULT_ENDPOINT_RATE_LIMIT;
    this.now = options.now ?? Date.now;
  }

  take(key: string): Promise<Admission> {
    return Promise.resolve(this.takeNow(key));
  }

  /** Holds no connection: nothing to close. */
  close(): Promise<void> {
    return Promise.resolve();
  }

  private takeNow(key: string): Admission {
    const { ratePerSecond } = this.limit;
    if (ratePerSecond <= 0) return ADMITTED;
    const now = this.now();
    const capacity = Math.max(1, this.limit.burst);
    const bucket = this.buckets.get(key) ?? { tokens: capacity, at: now };
    bucket.tokens = Math.min(capacity, bucket.tokens + ((now - bucket.at) / 1000) * ratePerSecond);
    bucket.at = now;
    if (!this.buckets.has(key)) {
      if (this.buckets.size >= PRUNE_ABOVE) this.prune(now);
      this.buckets.set(key, bucket);
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return ADMITTED;
    }
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / ratePerSecond)) };
  }

  private prune(now: number): void {
    const capacity = Math.max(1, this.limit.burst);
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + ((now - bucket.at) / 1000) * this.limit.ratePerSecond >= capacity) this.buckets.delete(key);
    }
  }
}

/** One shared object: admitting allocates nothing. */
const ADMITTED: Admission = { ok: true };
