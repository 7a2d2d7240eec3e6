import type { Redis } from 'ioredis';
import { DEFAULT_ENDPOINT_RATE_LIMIT, type Admission, type RateLimit, type RateLimiter } from './rate-limiter.js';

export interface RedisRateLimiterOptions {
  /** A command connection (not one in subscriber mode). Closed by `close()`. */
  readonly redis: Redis;
  /** Put before every key, so several installations can share one Redis. */
  readonly prefix: string;
  readonly limit?: RateLimit;
  /** Milliseconds clock; tests pass their own to step time. */
  readonly now?: () => number;
}

/**
 * Refill and take, atomically: the same arithmetic as MemoryRateLimiter, on a hash per key.
 * KEYS[1] the bucket; ARGV: now (ms), tokens per second, capacity.
 * Returns { 1 } when admitted, { 0, retryAfterSeconds } when refused (nothing taken then).
 *
 * Why a script and not rate-limiter-flexible: its RateLimiterRedis (and BurstyRateLimiter on top)
 * counts points in fixed windows, so a token does not come back 100 ms after a full burst at 10/s,
 * a refused request still consumes a point, and its clock is Redis's: the port's continuous
 * refill, free refusals and injected clock (the contract suite checks all three) cannot be had.
 * @fastify/rate-limit is no better fit: its Redis store is a fixed window too (INCR, then PEXPIRE
 * on the first hit), it counts refused requests, and as a route hook it limits before the ingress
 * has resolved the endpoint, whose id is the key (an unknown endpoint is a 404, not a bucket).
 *
 * The time comes from the caller (processes keep their clocks in step with NTP); a clock behind
 * the stored one refills nothing rather than going backwards. Numbers go to Redis formatted
 * explicitly (17 digits for the bucket, a plain integer for the TTL) rather than left to how a
 * Redis version converts Lua numbers: a fractional token or a century-long TTL must survive
 * intact. The key expires once the bucket would be full again (plus a second), since a full
 * bucket is the same as none: Redis holds only busy endpoints.
 */
const TAKE_TOKEN = `
local rate = tonumber(ARGV[2])
local capacity = tonumber(ARGV[3])
local now = tonumber(ARGV[1])
local stored = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(stored[1]) or capacity
local at = tonumber(stored[2]) or now
if now > at then
  tokens = math.min(capacity, tokens + ((now - at) / 1000) * rate)
  at = now
end
local admitted = tokens >= 1
if admitted then tokens = tokens - 1 end
redis.call('HSET', KEYS[1], 'tokens', string.format('%.17g', tokens), 'at', string.format('%.17g', at))
redis.call('PEXPIRE', KEYS[1], string.format('%.0f', math.ceil(((capacity - tokens) / rate) * 1000) + 1000))
if admitted then return { 1 } end
return { 0, math.max(1, math.ceil((1 - tokens) / rate)) }
`;

/**
 * The endpoint rate limiter shared by every process on one Redis: a token bucket per key, one
 * script run per take, so the limit holds across processes as it does in one.
 */
export class RedisRateLimiter implements RateLimiter {
  readonly limit: RateLimit;
  private readonly redis: Redis;
  private readonly prefix: string;
  private readonly now: () => number;

  constructor(options: RedisRateLimiterOptions) {
    this.limit = options.limit ?? DEFAULT_ENDPOINT_RATE_LIMIT;
    this.redis = options.redis;
    this.prefix = options.prefix;
    this.now = options.now ?? Date.now;
  }

  async take(key: string): Promise<Admission> {
    const { ratePerSecond } = this.limit;
    if (ratePerSecond <= 0) return ADMITTED;
    const capacity = Math.max(1, this.limit.burst);
    const result = (await this.redis.eval(
      TAKE_TOKEN,
      1,
      `${this.prefix}ratelimit:${key}`,
      String(this.now()),
      String(ratePerSecond),
      String(capacity),
    )) as [number, number?];
    if (result[0] === 1) return ADMITTED;
    return { ok: false, retryAfterSeconds: result[1] ?? 1 };
  }

  async close(): Promise<void> {
    try {
      await this.redis.quit();
    } catch {
      this.redis.disconnect();
    }
  }
}

/** One shared object: admitting allocates nothing. */
const ADMITTED: Admission = { ok: true };
