/**
 * The HTTP endpoints' rate limit (contract §10: 10 requests/s, bursts of 50, then 429) and the
 * server's request log, against a real engine and server on temporary folders, and through the
 * real `tributary start` binary for the flags and TRIBUTARY_* variables.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Engine, MemoryRateLimiter, type RateLimit } from '@tributary/engine';
import { createServer } from '@tributary/server';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, queuedInvocations, REPO, waitFor, waitForEvents, type DeployedSource } from './ingress-harness.js';
import { freePort } from '../../../tools/test-support/tributary-server.js';

const CAPTURE = 'server/http-capture.mjs';
const BIN = path.join(REPO, 'packages/cli/bin/tributary.js');
const ADMIN_KEY = 'trb_limits_test_admin_key_0123456789';

// The token bucket itself is the engine's RateLimiter port: packages/engine/test/contracts.

/** An engine and server on temporary folders with the given endpoint rate limit. */
async function startLimitedServer(rateLimit: RateLimit): Promise<{
  engine: Engine;
  dbFile: string;
  app: FastifyInstance;
  api: ApiClient;
  base: string;
  close: () => Promise<void>;
}> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tributary-limits-data-'));
  const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'tributary-limits-cache-'));
  const engine = await Engine.create({
    dataDir,
    cacheDir,
    publicUrl: 'http://endpoints.test.invalid',
    allowPrivateUrls: false,
    concurrency: 4,
    sourceTimeoutMs: 20_000,
    log: () => undefined,
    endpointLimiter: new MemoryRateLimiter({ limit: rateLimit }),
  });
  const { key } = await engine.apiKeys.create('test');
  const app = await createServer({ engine, version: '0.0.0-test', log: () => undefined });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  await engine.start();
  return {
    engine,
    dbFile: path.join(dataDir, 'tributary.db'),
    app,
    api: new ApiClient(base, key),
    base,
    async close() {
      await app.close();
      await engine.stop();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(cacheDir, { recursive: true, force: true });
    },
  };
}

describe('HTTP endpoint rate limit (in-process server, real HTTP)', () => {
  // One token per 100 s after the burst: the test's requests cannot earn another one meanwhile.
  const limit = { ratePerSecond: 0.01, burst: 50 };
  let server: Awaited<ReturnType<typeof startLimitedServer>>;
  let limited: DeployedSource;
  let other: DeployedSource;

  beforeAll(async () => {
    server = await startLimitedServer(limit);
    limited = await server.api.deploy(CAPTURE, { name: 'limited' });
    other = await server.api.deploy(CAPTURE, { name: 'other' });
  });
  afterAll(() => server?.close());

  const url = (source: DeployedSource): string => `${server.base}${new URL(source.endpoint_url ?? '').pathname}`;
  const post = (source: DeployedSource, n: number): Promise<Response> =>
    fetch(url(source), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ n }),
    });

  it('answers the 51st request of a burst with 429, Retry-After and RATE_LIMITED, and queues nothing for it', async () => {
    const statuses: number[] = [];
    for (let n = 1; n <= 50; n += 1) {
      const response = await post(limited, n);
      await response.text();
      statuses.push(response.status);
    }
    expect(statuses.every((status) => status === 200)).toBe(true);
    const refused = await post(limited, 51);
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(100);
    const body = (await refused.json()) as {
      error: { code: string; message: string; details: { retry_after_seconds: number } };
    };
    expect(body.error.code).toBe('RATE_LIMITED');
    expect(body.error.details.retry_after_seconds).toBe(retryAfter);
    expect(body.error.message).toMatch(/bursts of 50/);
    // Exactly the 50 acknowledged requests run; the refused one was never queued.
    const events = await waitForEvents(server.api, limited.id, 50);
    const queued = queuedInvocations(server, limited.id);
    expect(queued).toEqual([]);
    expect(events.map((record) => (record.event as { body: { n: number } }).body.n)).toEqual(
      Array.from({ length: 50 }, (_, index) => index + 1),
    );
  });

  it('limits each endpoint on its own, answers CORS preflights without a token, and 404s unknown endpoints', async () => {
    const response = await post(other, 1);
    expect(response.status).toBe(200);
    await response.text();
    const preflight = await fetch(url(limited), { method: 'OPTIONS' });
    expect(preflight.status).toBeLessThan(300);
    const unknown = await fetch(`${server.base}/e/not-an-endpoint`, { method: 'POST', body: 'x' });
    expect(unknown.status).toBe(404);
    expect((await post(limited, 52)).status).toBe(429);
  });
});

function logEntries(stderr: readonly string[]): Record<string, unknown>[] {
  return stderr.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** `tributary start` with extra flags and variables; resolves once it printed its ready line. */
async function startBinary(
  args: string[],
  env: Record<string, string>,
): Promise<{ child: ChildProcess; base: string; stderr: string[]; stop: () => Promise<void> }> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tributary-limits-bin-data-'));
  const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'tributary-limits-bin-cache-'));
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'start', '--port', String(port), '--data-dir', dataDir, ...args], {
    cwd: REPO,
    env: { ...process.env, TRIBUTARY_ADMIN_KEY: ADMIN_KEY, TRIBUTARY_CACHE_DIR: cacheDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stderr: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (line) => stderr.push(line));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready after 30 s: ${stderr.join('\n')}`)), 30_000);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (/ ready: API /.test(line)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before ready: ${stderr.join('\n')}`));
    });
  });
  return {
    child,
    base: `http://127.0.0.1:${port}`,
    stderr,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(cacheDir, { recursive: true, force: true });
    },
  };
}

describe('tributary start: rate-limit settings and the request log (real binary)', () => {
  it('takes the limit from TRIBUTARY_ENDPOINT_* and logs one JSON line per request at debug, 429 at warn, without bodies or keys', async () => {
    const server = await startBinary([], {
      TRIBUTARY_ENDPOINT_RATE_PER_S: '0.01',
      TRIBUTARY_ENDPOINT_BURST: '3',
      TRIBUTARY_LOG_LEVEL: 'debug',
    });
    try {
      const api = new ApiClient(server.base, ADMIN_KEY);
      const source = await api.deploy(CAPTURE);
      const endpoint = `${server.base}${new URL(source.endpoint_url ?? '').pathname}`;
      const statuses: number[] = [];
      for (let n = 0; n < 4; n += 1) {
        const response = await fetch(`${endpoint}?token=query-secret`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ secret: 'body-secret' }),
        });
        await response.text();
        statuses.push(response.status);
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
      const endpointId = new URL(source.endpoint_url ?? '').pathname.split('/')[2] ?? '';
      // A line is written once its response is sent, so the last one may still be on its way.
      const entries = await waitFor(() => {
        const parsed = logEntries(server.stderr);
        return parsed.some((entry) => entry['status'] === 429) ? parsed : undefined;
      }, 'the 429 log line');
      const ingress = entries.filter(
        (entry) => typeof entry['route'] === 'string' && (entry['route'] as string).startsWith('/e/'),
      );
      expect(ingress.map((entry) => [entry['level'], entry['status']])).toEqual([
        [20, 200],
        [20, 200],
        [20, 200],
        [40, 429],
      ]);
      expect(ingress[0]).toMatchObject({ method: 'POST', route: '/e/:endpointId', msg: 'request' });
      expect(typeof ingress[0]?.['ms']).toBe('number');
      const deploy = entries.find((entry) => entry['route'] === '/v1/sources');
      expect(deploy).toMatchObject({ method: 'POST', status: 200, level: 20 });
      const all = server.stderr.join('\n');
      for (const secret of ['body-secret', 'query-secret', ADMIN_KEY, endpointId, endpointId.slice(0, 6)]) {
        expect(all).not.toContain(secret);
      }
    } finally {
      await server.stop();
    }
  });

  it('--endpoint-rate-per-s 0 turns the limit off; at the default level successes are not logged', async () => {
    const server = await startBinary(['--endpoint-rate-per-s', '0', '--endpoint-burst', '1'], {});
    try {
      const api = new ApiClient(server.base, ADMIN_KEY);
      const source = await api.deploy(CAPTURE);
      const endpoint = `${server.base}${new URL(source.endpoint_url ?? '').pathname}`;
      const statuses = await Promise.all(
        Array.from({ length: 60 }, async () => {
          const response = await fetch(endpoint, { method: 'POST', body: 'x' });
          await response.text();
          return response.status;
        }),
      );
      expect(statuses.every((status) => status === 200)).toBe(true);
      const missing = await fetch(`${server.base}/v1/sources/dc_missing`, {
        headers: { authorization: `Bearer ${ADMIN_KEY}` },
      });
      expect(missing.status).toBe(404);
      await missing.text();
      const entries = await waitFor(() => {
        const parsed = logEntries(server.stderr);
        return parsed.some((entry) => entry['status'] === 404) ? parsed : undefined;
      }, 'the 404 log line');
      expect(entries.filter((entry) => entry['status'] === 200)).toEqual([]);
      expect(entries.find((entry) => entry['status'] === 404)).toMatchObject({
        level: 40,
        method: 'GET',
        route: '/v1/sources/:id',
      });
    } finally {
      await server.stop();
    }
  });

  it('refuses a bad setting with one usage line', async () => {
    const child = spawn(process.execPath, [BIN, 'start', '--endpoint-burst', '0', '--log-level', 'loud'], {
      cwd: REPO,
      env: { ...process.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // 'close', not 'exit': the usage line written before exiting may still be in the pipe at 'exit'.
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(code).toBe(2);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/USAGE_ERROR: invalid configuration: .*endpointBurst.*logLevel/);
  });
});
