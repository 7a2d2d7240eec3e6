import type { Redis } from 'ioredis';
import { RedisPubSub } from '../pubsub/redis-pubsub.js';
import type { RateLimit } from '../ratelimit/rate-limiter.js';
import { RedisRateLimiter } from '../ratelimit/redis-rate-limiter.js';
import { BullmqDispatch } from './bullmq-dispatch.js';
import { BullmqTimerJobs } from './bullmq-timer-jobs.js';
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
  /** Wake-ups of worker processes, as BullMQ jobs under `<prefix>bull`. */
  readonly dispatch: BullmqDispatch;
  /** Timer sources' job schedulers and the worker that fires them, under `<prefix>bull`. */
  readonly timerJobs: BullmqTimerJobs;
  /** Closes all of them (the engine does this itself once they are handed to it). */
  close(): Promise<void>;
}

/**
 * Connects the ports that Redis carries for `tributary start`: pub/sub (a command and a
 * subscriber connection), the shared endpoint rate limit (a connection of its own, failing
 * fast so a request gets its answer rather than hanging while Redis is away) and the workers'
 * wake-ups and the timers' job schedulers on BullMQ (a connection each that waits out outages, as
 * BullMQ needs). An unreachable
 * Redis fails with REDIS_UNREACHABLE and leaves no connection open.
 */
export async function openRedisPorts(options: RedisPortsOptions): Promise<RedisPorts> {
  const { url, log } = options;
  const opened: Redis[] = [];
  try {
    for (const name of ['tributary-publisher', 'tributary-subscriber'] as const)
      opened.push(await connectRedis({ url, name, log }));
    opened.push(await connectRedis({ url, name: 'tributary-rate-limit', log, maxRetriesPerRequest: 1 }));
    for (const name of ['tributary-bullmq', 'tributary-bullmq-timers'] as const)
      opened.push(await connectRedis({ url, name, log, maxRetriesPerRequest: null }));
    const [publisher, subscriber, limiterConnection, bullConnection, timerConnection] = opened as [
      Redis,
      Redis,
      Redis,
      Redis,
      Redis,
    ];
    const pubsub = await RedisPubSub.open({ publisher, subscriber, prefix: options.prefix, log });
    const endpointLimiter = new RedisRateLimiter({
      redis: limiterConnection,
      prefix: options.prefix,
      limit: options.endpointLimit,
    });
    const dispatch = new BullmqDispatch({ redis: bullConnection, prefix: `${options.prefix}bull`, log });
    const timerJobs = new BullmqTimerJobs({ redis: timerConnection, prefix: `${options.prefix}bull`, log });
    return {
      pubsub,
      endpointLimiter,
      dispatch,
      timerJobs,
      close: async () => {
        await Promise.all([pubsub.close(), endpointLimiter.close(), dispatch.close(), timerJobs.close()]);
      },
    };
  } catch (error) {
    for (const redis of opened) redis.disconnect();
    throw error;
  }
}
