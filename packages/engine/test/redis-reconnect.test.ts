/**
 * What the Redis ports do when the connection goes and comes back (needs Redis at 127.0.0.1:6379
 * or TRIBUTARY_TEST_REDIS_URL). The process under test reaches Redis through a TCP relay the test
 * can cut, as a network blip or a Redis restart would; the other side connects directly.
 */
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  connectTestRedis,
  deleteTestKeys,
  TEST_REDIS_URL,
  testRedisPrefix,
} from '../../../tools/test-support/test-redis.js';
import { connectRedis, RedisPubSub, RedisRateLimiter, type SourceMessage } from '../src/index.js';

/** A loopback relay to the test Redis whose connections can be cut and whose port can be closed. */
class Relay {
  private readonly sockets = new Set<net.Socket>();
  private server: net.Server | undefined;
  port = 0;

  async open(port = 0): Promise<void> {
    const target = new URL(TEST_REDIS_URL);
    this.server = net.createServer((client) => {
      const upstream = net.connect(Number(target.port || 6379), target.hostname);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.server?.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Drops every connection; the relay keeps listening, so a reconnect succeeds. */
  cut(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.cut();
    if (server) await new Promise((resolve) => server.close(resolve));
  }
}

const event = (sourceId: string, n: number): SourceMessage => ({
  kind: 'event',
  sourceId,
  record: { id: `evt-${n}`, indexed_at_ms: n, event: { n }, metadata: {} },
});

describe('Redis ports across a lost connection (needs 127.0.0.1:6379 or TRIBUTARY_TEST_REDIS_URL)', () => {
  const prefix = testRedisPrefix();
  const relay = new Relay();
  const logs: string[] = [];
  const log = (line: string): void => void logs.push(line);
  const closers: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    await (await connectTestRedis()).quit();
    await relay.open();
  });

  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close()));
  });

  afterAll(async () => {
    await relay.close();
    const redis = await connectTestRedis();
    await deleteTestKeys(redis, prefix);
    await redis.quit();
  });

  it('resubscribes after a cut: the listener gets messages again, and the log says what happened', async () => {
    const [publisher, subscriber] = await Promise.all([
      connectRedis({ url: relay.url, name: 'relayed-pub', log }),
      connectRedis({ url: relay.url, name: 'relayed-sub', log }),
    ]);
    const relayed = await RedisPubSub.open({ publisher, subscriber, prefix, log });
    const direct = await RedisPubSub.open({
      publisher: await connectTestRedis(),
      subscriber: await connectTestRedis(),
      prefix,
    });
    closers.push(
      () => relayed.close(),
      () => direct.close(),
    );
    const received: SourceMessage[] = [];
    const unsubscribe = await relayed.subscribe('dc_relay', (message) => received.push(message));
    direct.publish(event('dc_relay', 1));
    await vi.waitFor(() => expect(received).toEqual([event('dc_relay', 1)]), { timeout: 20_000 });

    relay.cut();
    // What is published while the subscriber is away is gone (SSE catches up from the event bin);
    // keep publishing until the resubscribed connection delivers again.
    let n = 1;
    await vi.waitFor(
      () => {
        n += 1;
        direct.publish(event('dc_relay', n));
        expect(received.length).toBeGreaterThan(1);
      },
      { timeout: 10_000, interval: 50 },
    );
    expect(logs.some((line) => line.includes('(relayed-sub): connection lost'))).toBe(true);
    await vi.waitFor(() => expect(logs.some((line) => line.includes('(relayed-sub): connected again'))).toBe(true), {
      timeout: 20_000,
    });
    // One line per outage and connection, not one per reconnect attempt.
    expect(logs.filter((line) => line.includes('(relayed-sub): connection lost'))).toHaveLength(1);
    unsubscribe();
  });

  it('refuses takes while Redis is unreachable rather than hanging, and admits again once it is back', async () => {
    const redis = await connectRedis({ url: relay.url, name: 'relayed-limiter', log, maxRetriesPerRequest: 1 });
    const limiter = new RedisRateLimiter({ redis, prefix, limit: { ratePerSecond: 10, burst: 50 } });
    closers.push(() => limiter.close());
    expect(await limiter.take('dc_limited')).toEqual({ ok: true });

    const port = relay.port;
    await relay.close();
    // Refused because the one retry it was allowed is spent (ioredis gives a queued command up after
    // maxRetriesPerRequest failed reconnects), not by a timer and not after an outage's worth of
    // retries: the default connection would fail it only after 20 of them, and maxRetriesPerRequest
    // null (BullMQ's) would hang it until Redis is back. Which limit ended it says so on any machine.
    await expect(limiter.take('dc_limited')).rejects.toMatchObject({
      name: 'MaxRetriesPerRequestError',
      message: expect.stringContaining('(which is 1)'),
    });

    await relay.open(port);
    await vi.waitFor(async () => expect(await limiter.take('dc_limited')).toEqual({ ok: true }), {
      timeout: 10_000,
      interval: 100,
    });
  });
});
