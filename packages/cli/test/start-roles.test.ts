/**
 * `tributary start --role` with real processes on one PostgreSQL database and one Redis (needs
 * both: tools/test-support/postgres.ts and test-redis.ts): two api processes, two workers and two
 * schedulers. The api processes only queue and serve; the workers run, in order per source; each
 * timer tick fires once although two schedulers take its BullMQ jobs; an SSE client of one api
 * process sees the events a worker committed; a customResponse answers on the api process holding
 * the request; a delete answered by an api process stops the source's run on a worker, and an
 * update waits for it, stops it and runs its invocation again with the update applied.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../tools/test-support/postgres.js';
import {
  connectTestRedis,
  deleteTestKeys,
  TEST_REDIS_URL,
  testRedisPrefix,
} from '../../../tools/test-support/test-redis.js';
import {
  REPO,
  startTributary,
  TRIBUTARY_BIN,
  type TributaryServer,
} from '../../../tools/test-support/tributary-server.js';

const KEY = 'trb_roles_processes_0123456789';

interface Deployed {
  readonly id: string;
  readonly endpoint_url: string | null;
}

interface Summary {
  readonly event: { readonly n?: number; readonly at?: number };
}

/** A worker or scheduler process, with its output so far, line by line. */
interface Background {
  readonly child: ChildProcess;
  readonly lines: readonly string[];
}

/** A worker or scheduler process: it listens on no port, so it is ready when it says so. */
async function startBackground(role: 'worker' | 'scheduler', env: NodeJS.ProcessEnv): Promise<Background> {
  const child = spawn(process.execPath, [TRIBUTARY_BIN, 'start', '--role', role], {
    cwd: REPO,
    env: { ...process.env, NO_COLOR: '1', ...env },
  });
  const lines: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (line) => lines.push(line));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ready line from ${role}:\n${lines.join('\n')}`)), 90_000);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      if (line.includes(`ready (role ${role})`)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', () => reject(new Error(`${role} exited before it was ready:\n${lines.join('\n')}`)));
  });
  return { child, lines };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(killer);
}

async function until<T>(read: () => Promise<T | undefined>, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Reads an SSE stream until a `data:` line satisfies `test`. */
async function sseUntil(response: Response, test: (data: string) => boolean): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const timer = setTimeout(() => void reader.cancel(), 60_000);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`the SSE stream ended; it sent:\n${buffer}`);
      buffer += decoder.decode(value, { stream: true });
      const frame = buffer
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice('data: '.length))
        .find(test);
      if (frame !== undefined) return frame;
    }
  } finally {
    clearTimeout(timer);
  }
}

describe('tributary start --role: api, worker and scheduler processes on PostgreSQL and Redis', () => {
  const prefix = testRedisPrefix();
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'tributary-roles-'));
  // Sandbox workers of a root server run as another user and must get through to the cache.
  chmodSync(scratch, 0o755);
  let database: TestDatabase;
  const apis: TributaryServer[] = [];
  const background: Background[] = [];
  const dataDir = (name: string): string => path.join(scratch, name);

  beforeAll(async () => {
    await (await connectTestRedis()).quit();
    database = await createTestDatabase();
    const env = {
      TRIBUTARY_DATABASE_URL: database.url,
      TRIBUTARY_REDIS_URL: TEST_REDIS_URL,
      TRIBUTARY_REDIS_PREFIX: prefix,
      TRIBUTARY_CACHE_DIR: path.join(scratch, 'cache'),
      TRIBUTARY_ENDPOINT_RATE_PER_S: '0',
    };
    const first = await startTributary({ key: KEY, dataDir: dataDir('api-a'), env: { ...env, TRIBUTARY_ROLE: 'api' } });
    apis.push(first);
    // Every process gets the first one's master key (docs/deployment.md).
    for (const name of ['api-b', 'worker-a', 'worker-b', 'scheduler-a', 'scheduler-b']) {
      mkdirSync(dataDir(name));
      copyFileSync(path.join(dataDir('api-a'), 'master.key'), path.join(dataDir(name), 'master.key'));
    }
    apis.push(await startTributary({ key: KEY, dataDir: dataDir('api-b'), env: { ...env, TRIBUTARY_ROLE: 'api' } }));
    background.push(
      ...(await Promise.all([
        startBackground('worker', { ...env, TRIBUTARY_DATA_DIR: dataDir('worker-a') }),
        startBackground('worker', { ...env, TRIBUTARY_DATA_DIR: dataDir('worker-b') }),
        startBackground('scheduler', { ...env, TRIBUTARY_DATA_DIR: dataDir('scheduler-a') }),
        startBackground('scheduler', { ...env, TRIBUTARY_DATA_DIR: dataDir('scheduler-b') }),
      ])),
    );
  }, 300_000);

  afterAll(async () => {
    await Promise.all([...apis.map((api) => api.stop()), ...background.map(({ child }) => stopChild(child))]);
    await database?.drop();
    const redis = await connectTestRedis();
    await deleteTestKeys(redis, prefix);
    await redis.quit();
    rmSync(scratch, { recursive: true, force: true });
  });

  const deploy = async (file: string, props: Record<string, unknown> = {}): Promise<Deployed> => {
    const code = readFileSync(path.join(REPO, 'fixtures/components', file), 'utf8');
    const deployed = await apis[0]!.api<{ data: Deployed }>('POST', '/v1/sources', {
      component_code: code,
      configured_props: props,
    });
    expect(deployed.status, JSON.stringify(deployed.body)).toBe(200);
    return deployed.body.data;
  };

  const summaries = async (sourceId: string): Promise<Summary[]> =>
    (await apis[1]!.api<{ data: Summary[] }>('GET', `/v1/sources/${sourceId}/event_summaries?limit=100`)).body.data;

  it('runs events posted to either api process in order on the workers, and streams them from the other', async () => {
    const [a, b] = apis as [TributaryServer, TributaryServer];
    const source = await deploy('server/numbered-webhook.mjs');
    const endpoint = new URL(source.endpoint_url ?? '').pathname;
    const stream = await fetch(`${b.base}/sources/${source.id}/sse`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(stream.status).toBe(200);
    const last = sseUntil(stream, (data) => data.includes('"n":40}'));
    for (let n = 1; n <= 40; n += 1) {
      const sent = await fetch(`${(n % 2 === 0 ? a : b).base}${endpoint}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ n }),
      });
      expect(sent.status).toBe(200);
    }
    expect(JSON.parse(await last)).toMatchObject({ event: { n: 40 } });
    const events = await until(async () => {
      const listed = await summaries(source.id);
      return listed.length === 40 ? listed : undefined;
    }, 'the 40 events');
    // Newest first: the bin holds them in the order the api processes acknowledged them.
    expect(events.map((summary) => summary.event.n)).toEqual(Array.from({ length: 40 }, (_, index) => 40 - index));
  }, 120_000);

  it('answers a customResponse request on the api process that holds it, from the run on a worker', async () => {
    const source = await deploy('server/slow-respond.mjs', { delayMs: 50 });
    for (const api of apis) {
      const response = await fetch(`${api.base}${new URL(source.endpoint_url ?? '').pathname}`, { method: 'POST' });
      expect(response.status).toBe(202);
      expect(await response.text()).toBe('late');
    }
  }, 90_000);

  it('stops the run on a worker when an api process deletes its source, and keeps nothing of it', async () => {
    const source = await deploy('server/stuck-run.mjs');
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const count = async (table: string): Promise<number> => {
      const result = await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${table} WHERE source_id = $1`, [
        source.id,
      ]);
      return Number(result.rows[0]?.n ?? 0);
    };
    try {
      // Queued by one api process; only the workers run invocations. The run hangs until its
      // deadline, 300 s away (TRIBUTARY_SOURCE_TIMEOUT_MS's default).
      const sent = await fetch(`${apis[0]!.base}${new URL(source.endpoint_url ?? '').pathname}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ stuck: true }),
      });
      expect(sent.status).toBe(200);
      await until(async () => ((await count('queue_claims')) === 1 ? true : undefined), 'a worker to claim the run');

      const started = Date.now();
      const deleted = await apis[1]!.api('DELETE', `/v1/sources/${source.id}`);
      expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
      expect(Date.now() - started).toBeLessThan(20_000);

      const stopped = `the run of ${source.id} in flight was stopped: the source is being deleted`;
      const workers = background.slice(0, 2);
      await until(
        async () => (workers.some(({ lines }) => lines.some((line) => line.includes(stopped))) ? true : undefined),
        'a worker to say it stopped the run',
        20_000,
      );
      // The run ended: its worker gave the source's claim back, long before the deadline.
      await until(async () => ((await count('queue_claims')) === 0 ? true : undefined), 'the claim to go', 20_000);
      expect((await apis[0]!.api('GET', `/v1/sources/${source.id}`)).status).toBe(404);
      for (const table of ['events', 'logs', 'source_state', 'invocations', 'dead_letters'])
        expect(await count(table), table).toBe(0);
    } finally {
      await client.end();
    }
  }, 120_000);

  it('makes an update answered by an api process wait for the run on a worker, stop it, and run it again updated', async () => {
    // A customResponse source whose run hangs a minute; updated with `hangMs: 0`, it answers at once.
    const source = await deploy('server/hang-until-updated.mjs');
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const endpoint = new URL(source.endpoint_url ?? '').pathname;
      const answer = fetch(`${apis[0]!.base}${endpoint}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ seq: 1 }),
      });
      await until(async () => {
        const claims = await client.query('SELECT 1 FROM queue_claims WHERE source_id = $1', [source.id]);
        return claims.rowCount === 1 ? true : undefined;
      }, 'a worker to claim the run');

      // The update waits for the run (10 s, the default), then asks the worker to stop it.
      const started = Date.now();
      const updated = await apis[1]!.api('PUT', `/v1/sources/${source.id}`, { configured_props: { hangMs: 0 } });
      expect(updated.status, JSON.stringify(updated.body)).toBe(200);
      expect(Date.now() - started).toBeLessThan(25_000);
      const stopped = `the run of ${source.id} in flight was stopped: the source is being updated`;
      await until(
        async () =>
          background.slice(0, 2).some(({ lines }) => lines.some((line) => line.includes(stopped))) ? true : undefined,
        'a worker to say it stopped the run for the update',
        10_000,
      );

      // The caller waited on; the invocation ran again on a worker, with the update's props, once.
      const answered = await answer;
      expect(answered.status).toBe(200);
      expect(await answered.json()).toEqual({ hungMs: 0, seq: 1 });
      const events = await until(async () => {
        const listed = await summaries(source.id);
        return listed.length > 0 ? listed : undefined;
      }, 'the event of the run again');
      expect(events.map((summary) => summary.event)).toEqual([{ hungMs: 0, seq: 1 }]);
    } finally {
      await client.end();
    }
  }, 120_000);

  it('fires each timer tick once from BullMQ job schedulers although two schedulers take the jobs', async () => {
    const deployedAt = Date.now();
    const ticks: Deployed[] = [];
    for (let index = 0; index < 4; index += 1)
      ticks.push(await deploy('f03-tick.mjs', { timer: { intervalSeconds: 15 } }));
    // A timer workflow saved on an api process: its job scheduler comes from there too.
    const saved = await apis[0]!.api<{ data: { id: string } }>('POST', '/v1/workflows', {
      name: 'quarter minute',
      trigger: { type: 'timer', interval_seconds: 15 },
      steps: [
        { name: 'echo', code: readFileSync(path.join(REPO, 'fixtures/components/workflows/echo-step.mjs'), 'utf8') },
      ],
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(201);
    const workflowRuns = async (): Promise<{ event: { timestamp: number } }[]> =>
      (
        await apis[1]!.api<{ data: { event: { timestamp: number } }[] }>(
          'GET',
          `/v1/workflows/${saved.body.data.id}/runs`,
        )
      ).body.data;
    for (const tick of ticks)
      await until(async () => ((await summaries(tick.id)).length >= 2 ? true : undefined), `two ticks of ${tick.id}`);
    await until(async () => ((await workflowRuns()).length >= 2 ? true : undefined), 'two runs of the timer workflow');
    // A moment for a second firing of a slot to land, had one been queued.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const slots = Math.floor((Date.now() - deployedAt) / 15_000);
    for (const tick of ticks) {
      const fired = (await summaries(tick.id)).map((summary) => summary.event.at);
      expect(new Set(fired).size).toBe(fired.length);
      expect(fired.length).toBeLessThanOrEqual(slots);
    }
    const runs = (await workflowRuns()).map((run) => run.event.timestamp);
    expect(new Set(runs).size).toBe(runs.length);
    expect(runs.length).toBeLessThanOrEqual(slots);
  }, 180_000);
});
