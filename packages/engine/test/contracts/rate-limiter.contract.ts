/**
 * The contract every RateLimiter implementation runs (src/ratelimit/rate-limiter.ts lists the
 * guarantees). Time is the test's: the factory must build a limiter on the given clock. Keys are
 * unique per test, so an implementation on a shared service needs no cleanup between tests.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { RateLimit, RateLimiter } from '../../src/index.js';

export interface RateLimiterFactoryOptions {
  readonly limit: RateLimit;
  readonly now: () => number;
}

export type RateLimiterFactory = (options: RateLimiterFactoryOptions) => RateLimiter | Promise<RateLimiter>;

/** A limiter on a clock the test moves by hand, and keys unique to this test. */
async function setup(factory: RateLimiterFactory, limit: RateLimit) {
  const clock = { ms: 1_000_000 };
  const limiter = await factory({ limit, now: () => clock.ms });
  const run = randomUUID();
  const key = (name: string): string => `${run}:${name}`;
  /** Takes `count` tokens of `name` in order; the admissions, true for each admitted take. */
  const takeMany = async (name: string, count: number): Promise<boolean[]> => {
    const admitted: boolean[] = [];
    for (let index = 0; index < count; index += 1) admitted.push((await limiter.take(key(name))).ok);
    return admitted;
  };
  return { clock, limiter, key, takeMany };
}

export function rateLimiterContract(name: string, factory: RateLimiterFactory): void {
  describe(`RateLimiter contract: ${name}`, () => {
    it('admits a full burst, then refuses with Retry-After in whole seconds', async () => {
      const { limiter, key, takeMany } = await setup(factory, { ratePerSecond: 10, burst: 50 });
      expect(limiter.limit).toEqual({ ratePerSecond: 10, burst: 50 });
      expect((await takeMany('e1', 50)).every(Boolean)).toBe(true);
      expect(await limiter.take(key('e1'))).toEqual({ ok: false, retryAfterSeconds: 1 });
    });

    it('refills continuously at the rate, never above the burst', async () => {
      const { clock, limiter, key, takeMany } = await setup(factory, { ratePerSecond: 10, burst: 50 });
      await takeMany('e1', 50);
      clock.ms += 100; // one token
      expect((await limiter.take(key('e1'))).ok).toBe(true);
      expect((await limiter.take(key('e1'))).ok).toBe(false);
      clock.ms += 60_000; // far more than the bucket holds
      expect((await takeMany('e1', 51)).filter(Boolean)).toHaveLength(50);
    });

    it('rounds Retry-After up to the next token, and a refused take costs nothing', async () => {
      const { clock, limiter, key } = await setup(factory, { ratePerSecond: 0.25, burst: 1 });
      expect((await limiter.take(key('e'))).ok).toBe(true);
      expect(await limiter.take(key('e'))).toEqual({ ok: false, retryAfterSeconds: 4 });
      clock.ms += 3_000;
      expect(await limiter.take(key('e'))).toEqual({ ok: false, retryAfterSeconds: 1 });
      clock.ms += 1_000;
      // The refusals above took nothing: the token earned over 4 s is there.
      expect((await limiter.take(key('e'))).ok).toBe(true);
    });

    it('keeps each key on its own bucket', async () => {
      const { limiter, key, takeMany } = await setup(factory, { ratePerSecond: 1, burst: 3 });
      expect(await takeMany('a', 4)).toEqual([true, true, true, false]);
      expect(await takeMany('b', 3)).toEqual([true, true, true]);
      expect((await limiter.take(key('a'))).ok).toBe(false);
    });

    it('treats a burst below 1 as 1', async () => {
      const { takeMany } = await setup(factory, { ratePerSecond: 1, burst: 0 });
      expect(await takeMany('e', 2)).toEqual([true, false]);
    });

    it('admits everything when the rate is 0', async () => {
      const { takeMany } = await setup(factory, { ratePerSecond: 0, burst: 1 });
      expect((await takeMany('e', 200)).every(Boolean)).toBe(true);
    });

    it('admits no more than the burst when takes race', async () => {
      const { limiter, key } = await setup(factory, { ratePerSecond: 0.001, burst: 20 });
      const results = await Promise.all(Array.from({ length: 60 }, () => limiter.take(key('e'))));
      expect(results.filter((result) => result.ok)).toHaveLength(20);
    });
  });
}
