/**
 * The Redis that tests needing one use: 127.0.0.1:6379 (as on CI), or TRIBUTARY_TEST_REDIS_URL.
 * Each suite works under its own key prefix and deletes its keys afterwards. An unreachable
 * Redis fails the suite with a message saying where it looked: CI has one, so no silent skip.
 */
import { randomUUID } from 'node:crypto';
import { connectRedis } from '@tributary/engine';

type Redis = Awaited<ReturnType<typeof connectRedis>>;

export const TEST_REDIS_URL = process.env['TRIBUTARY_TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';

/** A prefix no other run uses: `tributary-test-<uuid>:`. */
export function testRedisPrefix(): string {
  return `tributary-test-${randomUUID()}:`;
}

export async function connectTestRedis(name = 'tributary-test'): Promise<Redis> {
  try {
    return await connectRedis({ url: TEST_REDIS_URL, name });
  } catch (error) {
    throw new Error(
      `this test needs Redis at ${TEST_REDIS_URL} (set TRIBUTARY_TEST_REDIS_URL to use another; the default is ` +
        `redis://127.0.0.1:6379): ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

/** Deletes every key under the prefix; returns how many there were. */
export async function deleteTestKeys(redis: Redis, prefix: string): Promise<number> {
  let deleted = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    cursor = next;
    if (keys.length > 0) deleted += await redis.del(...keys);
  } while (cursor !== '0');
  return deleted;
}
