/**
 * The Redis implementations of the engine's ports run the shared contract suites. Needs Redis at
 * 127.0.0.1:6379 or TRIBUTARY_TEST_REDIS_URL; everything lives under a prefix of this run, and
 * the keys left (stored replies, rate-limit buckets) are deleted at the end.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTestRedis, deleteTestKeys, testRedisPrefix } from '../../../tools/test-support/test-redis.js';
import { BullmqDispatch, connectRedis, RedisPubSub, RedisRateLimiter } from '../src/index.js';
import { TEST_REDIS_URL } from '../../../tools/test-support/test-redis.js';
import { pubSubContract } from './contracts/pubsub.contract.js';
import { rateLimiterContract } from './contracts/rate-limiter.contract.js';
import { workDispatchContract } from './contracts/work-dispatch.contract.js';

const prefix = testRedisPrefix();
let shared: Awaited<ReturnType<typeof connectTestRedis>> | undefined;

beforeAll(async () => {
  shared = await connectTestRedis('tributary-test-contracts');
});

afterAll(async () => {
  if (!shared) return;
  await deleteTestKeys(shared, prefix);
  await shared.quit();
});

/** One handle per process: its own publisher and subscriber connections. */
async function openPeer(): Promise<RedisPubSub> {
  const [publisher, subscriber] = await Promise.all([connectTestRedis(), connectTestRedis()]);
  return RedisPubSub.open({ publisher, subscriber, prefix });
}

describe('Redis (needs 127.0.0.1:6379 or TRIBUTARY_TEST_REDIS_URL)', () => {
  pubSubContract('RedisPubSub, two processes', async () => {
    const [a, b] = await Promise.all([openPeer(), openPeer()]);
    return { a, b, close: async () => void (await Promise.all([a.close(), b.close()])) };
  });

  // Each test gets a BullMQ prefix of its own: a wake-up one test leaves is no other test's.
  workDispatchContract('BullmqDispatch, two processes', async () => {
    const bullPrefix = `${prefix}bull-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const peer = async (): Promise<BullmqDispatch> =>
      new BullmqDispatch({
        redis: await connectRedis({ url: TEST_REDIS_URL, name: 'tributary-test-bullmq', maxRetriesPerRequest: null }),
        prefix: bullPrefix,
        log: () => undefined,
      });
    const [a, b] = await Promise.all([peer(), peer()]);
    return { a, b, close: async () => void (await Promise.all([a.close(), b.close()])) };
  });

  pubSubContract('RedisPubSub, one process', async () => {
    const pubsub = await openPeer();
    return { a: pubsub, b: pubsub, close: () => pubsub.close() };
  });

  // The script takes the time from the caller, so the suite's hand-moved clock drives it as it
  // drives the memory limiter. Closing is left to afterAll: the limiters share one connection.
  rateLimiterContract('RedisRateLimiter', ({ limit, now }) => {
    if (!shared) throw new Error('no Redis connection');
    return new RedisRateLimiter({ redis: shared, prefix, limit, now });
  });

  it('shares one bucket between limiters on separate connections, as between processes', async () => {
    const connections = await Promise.all([connectTestRedis(), connectTestRedis()]);
    const limit = { ratePerSecond: 0.001, burst: 10 };
    const clock = (): number => 5_000_000;
    const limiters = connections.map((redis) => new RedisRateLimiter({ redis, prefix, limit, now: clock }));
    const key = `shared-${Date.now()}`;
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, index) => (limiters[index % 2] as RedisRateLimiter).take(key)),
    );
    expect(results.filter((result) => result.ok)).toHaveLength(10);
    await Promise.all(limiters.map((limiter) => limiter.close()));
  });

  it('keeps a bucket whose refill takes longer than Lua writes as a plain number', async () => {
    if (!shared) throw new Error('no Redis connection');
    const limiter = new RedisRateLimiter({ redis: shared, prefix, limit: { ratePerSecond: 1e-12, burst: 10 } });
    const key = `slow-${Date.now()}`;
    expect(await limiter.take(key)).toEqual({ ok: true });
    expect(await shared.pttl(`${prefix}ratelimit:${key}`)).toBeGreaterThan(1e14);
  });

  it('carries a reply whose body is bytes unchanged', async () => {
    const [a, b] = await Promise.all([openPeer(), openPeer()]);
    const body = Buffer.from([0, 255, 1, 254]);
    const invocation = `inv_bytes_${Date.now()}`;
    const waiting = b.awaitReply(invocation);
    a.publishReply(invocation, { status: 200, headers: {}, body });
    const reply = await waiting;
    expect(Buffer.isBuffer(reply?.body) && reply.body.equals(body)).toBe(true);
    await Promise.all([a.close(), b.close()]);
  });
});
