/**
 * Two real `tributary start` processes on one Redis and key prefix (needs Redis at 127.0.0.1:6379
 * or TRIBUTARY_TEST_REDIS_URL). Each has its own SQLite data directory: the store is not shared
 * yet, so the second directory is a copy of the first taken after the deploy, which gives both
 * processes the same source and endpoint ids, as a shared store will. What is shared is what Redis
 * carries today: an event committed by one process reaches an SSE client of the other, and the
 * endpoint's token bucket is one across both.
 */
import { chmodSync, cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectTestRedis,
  deleteTestKeys,
  TEST_REDIS_URL,
  testRedisPrefix,
} from '../../../tools/test-support/test-redis.js';
import { REPO, startTributary, type TributaryServer } from '../../../tools/test-support/tributary-server.js';

const KEY = 'trb_redis_two_processes_0123456789';

interface Deployed {
  readonly id: string;
  readonly endpoint_url: string;
}

/** Reads an SSE response until a frame's data matches, or fails after `timeoutMs`. */
async function readUntil(response: Response, match: (data: string) => boolean, timeoutMs = 60_000): Promise<string> {
  if (!response.body) throw new Error('SSE response without a body');
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const deadline = setTimeout(() => void reader.cancel(), timeoutMs);
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`the stream ended without the frame; it sent:\n${text}`);
      text += decoder.decode(value, { stream: true });
      const frame = text
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice('data: '.length))
        .find(match);
      if (frame !== undefined) return frame;
    }
  } finally {
    clearTimeout(deadline);
  }
}

describe('two tributary start processes sharing Redis (needs 127.0.0.1:6379 or TRIBUTARY_TEST_REDIS_URL)', () => {
  const prefix = testRedisPrefix();
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'tributary-redis-'));
  // Sandbox workers of a root server run as another user and must get through to the cache.
  chmodSync(scratch, 0o755);
  const dataA = path.join(scratch, 'a');
  const dataB = path.join(scratch, 'b');
  // A rate of one token per 100 s: no token comes back while the test runs, so exactly the
  // burst (50) is admitted whatever the machine's speed.
  const env = {
    TRIBUTARY_REDIS_URL: TEST_REDIS_URL,
    TRIBUTARY_REDIS_PREFIX: prefix,
    TRIBUTARY_ENDPOINT_RATE_PER_S: '0.01',
    TRIBUTARY_ENDPOINT_BURST: '50',
    TRIBUTARY_CACHE_DIR: path.join(scratch, 'cache'),
  };
  const servers: TributaryServer[] = [];
  // Slow on a loaded machine (three starts, cold sandbox workers): these are caps, not expectations.
  let a: TributaryServer;
  let b: TributaryServer;
  let source: Deployed;
  let endpointPath: string;

  beforeAll(async () => {
    // Fails here, naming the address, when there is no Redis.
    await (await connectTestRedis()).quit();
    const first = await startTributary({ key: KEY, dataDir: dataA, env });
    const code = readFileSync(path.join(REPO, 'fixtures/components/server/numbered-webhook.mjs'), 'utf8');
    const deployed = await first.api<{ data: Deployed }>('POST', '/v1/sources', { component_code: code });
    expect(deployed.status).toBe(200);
    source = deployed.body.data;
    endpointPath = new URL(source.endpoint_url).pathname;
    await first.stop();
    cpSync(dataA, dataB, { recursive: true });
    [a, b] = await Promise.all([
      startTributary({ key: KEY, dataDir: dataA, env }),
      startTributary({ key: KEY, dataDir: dataB, env }),
    ]);
    servers.push(a, b);
  }, 240_000);

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    const redis = await connectTestRedis();
    await deleteTestKeys(redis, prefix);
    await redis.quit();
    rmSync(scratch, { recursive: true, force: true });
  });

  const post = (server: TributaryServer, n: number): Promise<Response> =>
    fetch(`${server.base}${endpointPath}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ n }),
    });

  it('both say Redis carries their pub/sub and rate limit', () => {
    for (const server of [a, b])
      expect(server.lines.some((line) => line.includes(`(prefix ${prefix}) carries pub/sub`))).toBe(true);
  });

  it('streams an event committed by one process to an SSE client of the other', async () => {
    const stream = await fetch(`${b.base}/sources/${source.id}/sse`, {
      headers: { authorization: `Bearer ${KEY}` },
    });
    expect(stream.status).toBe(200);
    // The first frame is the handshake, sent once B's subscription is acknowledged by Redis.
    const received = readUntil(stream, (data) => data.includes('"n":1}'));
    const sent = await post(a, 1);
    expect(sent.status).toBe(200);
    const record = JSON.parse(await received) as { event: unknown; metadata: { emitter_id: string } };
    expect(record.event).toEqual({ n: 1 });
    expect(record.metadata.emitter_id).toBe(source.id);
    // A ran and stored it; B's own store never saw it, so the frame came through Redis.
    const onB = await b.api<{ data: unknown[] }>('GET', `/v1/sources/${source.id}/event_summaries`);
    expect(onB.body.data).toEqual([]);
  }, 90_000);

  it('admits one burst across both processes: the 51st request gets 429 on either', async () => {
    // The request of the test above took the first token (on A); 49 more, alternating.
    const statuses: number[] = [];
    for (let n = 2; n <= 50; n += 1) statuses.push((await post(n % 2 === 0 ? b : a, n)).status);
    expect(statuses.every((status) => status === 200)).toBe(true);
    // B admitted about half the burst itself: only a shared bucket refuses it now.
    for (const server of [b, a]) {
      const refused = await post(server, 51);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('RATE_LIMITED');
    }
  }, 90_000);
});
