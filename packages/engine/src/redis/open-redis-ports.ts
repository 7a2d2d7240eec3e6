import type { Redis } from 'ioredis';
import { RedisPubSub } from '../pubsub/redis-pubsub.js';
import type { RateLimit } from '../ratelimit/rate-limiter.js';
import { RedisRateLimiter } from '../ratelimit/redis-rate-limiter.js';
import { connectRedis } from './connect-redis.js';

export interface RedisPortsOptions {
  readonly url: string;
  /** Put before every key and channel (e.g. `tributary:`); processes sharing it share the work. */
  readonly prefix: string;
  readonly endpointLimit: RateLimit;
  readonly log: (message: string) => void;
}

export interface RedisPorts {
  readonly pubsub: RedisPubSub;
  readonly endpointLimiter: RedisRateLimiter;
  /** Closes both (the engine does this itself once they are handed to it). */
  close(): Promise<void>;
}

/**
 * Connects the ports that Redis carries today for `tributary start`: pub/sub (a command and a
 * subscriber connection) and the shared endpoint rate limit (a connection of its own, failing
 * fast so a request gets its answer rather than hanging while Redis is away). An unreachable
 * Redis fails with REDIS_UNREACHABLE and leaves no connection open.
 */
export async function openRedisPorts(options: RedisPortsOptions): Promise<RedisPorts> {
  const { url, log } = options;
  const opened: Redis[] = [];
  try {
    for (const name of ['tributary-publisher', 'tributary-subscriber'] as const)
      opened.push(await connectRedis({ url, name, log }));
    opened.push(await connectRedis({ url, name: 'tributary-rate-limit', log, maxRetriesPerRequest: 1 }));
    const [publisher, subscriber, limiterConnection] = opened as [Redis, Redis, Redis];
    const pubsub = await RedisPubSub.open({ publisher, subscriber, prefix: options.prefix, log });
    const endpointLimiter = new RedisRateLimiter({
      redis: limiterConnection,
      prefix: options.prefix,
      limit: options.endpointLimit,
    });
    return {
      pubsub,
      endpointLimiter,
      close: async () => {
        await Promise.all([pubsub.close(), endpointLimiter.close()]);
      },
    };
  } catch (error) {
    for (const redis of opened) redis.disconnect();
    throw error;
  }
}
