/**
 * `tributary start` with TRIBUTARY_DATABASE_URL, end to end (needs PostgreSQL:
 * tools/test-support/postgres.ts; TRIBUTARY_TEST_DATABASE_URL names another server): a fresh
 * database, an HTTP source deployed and posted to, its event read from the API and from SSE, a
 * restart that keeps state and events, a timer that fires, and a workflow whose runs are stored there.
 */
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describeDatabaseUrl } from '@tributary/engine';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../tools/test-support/postgres.js';
import { startTributary, type TributaryServer } from '../../../tools/test-support/tributary-server.js';

const KEY = 'trb_postgres_e2e_tests_0123456789';

const COUNTER = `export default {
  key: 'pg-counter', name: 'Postgres counter', version: '0.0.1', type: 'source',
  props: { http: '$.interface.http', db: '$.service.db' },
  async run(event) {
    const n = (this.db.get('n') ?? 0) + 1;
    this.db.set('n', n);
    this.$emit({ n, body: event.body }, { id: 'n' + n, summary: 'n=' + n });
  },
};`;

const TICK = `export default {
  key: 'pg-tick', name: 'Postgres tick', version: '0.0.1', type: 'source',
  props: { timer: { type: '$.interface.timer', default: { intervalSeconds: 60 } } },
  async run(event) { this.$emit({ at: event.timestamp }); },
};`;

interface Deployed {
  readonly id: string;
  readonly endpoint_url: string | null;
}

interface Summary {
  readonly id: string;
  readonly event: { readonly n?: number; readonly at?: number };
}

/**
 * Reads an SSE stream: `connected` once the server's handshake comment came (its subscription is in
 * place, so what is committed from then on is sent), `found` at the first `data:` line that
 * satisfies `test`.
 */
function sseUntil(
  url: string,
  key: string,
  test: (data: unknown) => boolean,
): { readonly connected: Promise<void>; readonly found: Promise<unknown> } {
  let markConnected = (): void => undefined;
  const connected = new Promise<void>((resolve) => (markConnected = resolve));
  const found = (async () => {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 60_000);
    try {
      const response = await fetch(url, { headers: { authorization: `Bearer ${key}` }, signal: controller.signal });
      expect(response.status).toBe(200);
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let buffer = '';
      for (;;) {
        const { done, value } = await reader.read();
        if (done) throw new Error('the SSE stream ended');
        buffer += decoder.decode(value, { stream: true });
        for (const line of buffer.split('\n')) {
          if (line === ':sse-handshake') markConnected();
          if (!line.startsWith('data:')) continue;
          const data = JSON.parse(line.slice(5)) as unknown;
          if (test(data)) return data;
        }
      }
    } finally {
      clearTimeout(timer);
      controller.abort();
    }
  })();
  return { connected, found };
}

async function until<T>(read: () => Promise<T | undefined>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('tributary start on PostgreSQL', () => {
  let database: TestDatabase;
  let server: TributaryServer | undefined;

  beforeAll(async () => {
    database = await createTestDatabase();
    server = await startTributary({ key: KEY, env: { TRIBUTARY_DATABASE_URL: database.url } });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  const summaries = async (sourceId: string): Promise<Summary[]> => {
    const response = await server!.api<{ data: Summary[] }>('GET', `/v1/sources/${sourceId}/event_summaries`);
    expect(response.status).toBe(200);
    return response.body.data;
  };

  it('keeps sources, state and events in the database across a restart, and fires a timer', async () => {
    const running = server!;
    expect(running.lines.find((line) => line.includes('ready:'))).toContain(
      `state in postgres ${describeDatabaseUrl(database.url)}`,
    );
    // The data directory keeps the master key; the state is in PostgreSQL, not in a SQLite file.
    expect(existsSync(path.join(running.scratch ?? '', 'data', 'master.key'))).toBe(true);
    expect(existsSync(path.join(running.scratch ?? '', 'data', 'tributary.db'))).toBe(false);

    const deployed = await running.api<{ data: Deployed }>('POST', '/v1/sources', {
      component_code: COUNTER,
      name: 'counter',
    });
    expect(deployed.status).toBe(200);
    const counter = deployed.body.data;
    const endpoint = `${running.base}${new URL(counter.endpoint_url ?? '').pathname}`;
    const seen = sseUntil(
      `${running.base}/sources/${counter.id}/sse`,
      KEY,
      (data) => (data as { event?: { n?: number } }).event?.n === 1,
    );
    // Posted once the stream is subscribed: an event committed before that is not sent live.
    await Promise.race([seen.connected, seen.found]);
    const posted = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ hello: 'postgres' }),
    });
    expect(posted.status).toBe(200);
    expect(await seen.found).toMatchObject({ event: { n: 1, body: { hello: 'postgres' } } });
    expect((await summaries(counter.id)).map((summary) => summary.event.n)).toEqual([1]);

    const tick = await running.api<{ data: Deployed }>('POST', '/v1/sources', {
      component_code: TICK,
      name: 'tick',
      configured_props: { timer: { intervalSeconds: 60 } },
    });
    expect(tick.status).toBe(200);

    // While the server is down its tick falls due: it fires once at the next start.
    await running.restart({ pauseMs: 0 });
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query('UPDATE sources SET next_fire_at = $1 WHERE id = $2', [
        Date.now() - 120_000,
        tick.body.data.id,
      ]);
    } finally {
      await client.end();
    }
    await running.restart();

    const sources = await running.api<{ data: { id: string }[] }>('GET', '/v1/users/me/sources');
    expect(sources.body.data.map((source) => source.id).sort()).toEqual([counter.id, tick.body.data.id].sort());
    expect((await summaries(counter.id)).map((summary) => summary.event.n)).toEqual([1]);
    const again = await fetch(endpoint, { method: 'POST', body: 'second' });
    expect(again.status).toBe(200);
    // The count went on from the stored state: db survived the restart.
    await until(
      async () => ((await summaries(counter.id)).length === 2 ? true : undefined),
      'the second event of the counter',
    );
    expect((await summaries(counter.id)).map((summary) => summary.event.n)).toEqual([2, 1]);
    // Up to 75 s: under load a stop may outlast the harness's 10 s SIGTERM grace, and a process killed
    // while holding a claim leaves it leased for 15 s before the new one runs that source.
    const fired = await until(async () => (await summaries(tick.body.data.id))[0], 'the timer tick', 75_000);
    expect(fired.event.at).toEqual(expect.any(Number));
  }, 150_000);

  it('stores workflows and their durable runs in the database: an HTTP trigger answered by a code step, across a restart', async () => {
    const running = server!;
    const created = await running.api<{ data: { id: string; endpoint_url: string; version: number } }>(
      'POST',
      '/v1/workflows',
      {
        name: 'on postgres',
        trigger: { type: 'http', custom_response: true },
        steps: [
          {
            name: 'double',
            code: 'export default defineComponent({ async run({ steps, $ }) { const n = steps.trigger.event.body.n * 2; await $.respond({ status: 200, body: { n } }); return n; } })',
          },
        ],
      },
    );
    expect(created.status).toBe(201);
    const workflow = created.body.data;
    const answer = await fetch(`${running.base}${new URL(workflow.endpoint_url).pathname}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ n: 21 }),
    });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ n: 42 });

    await running.restart();
    const runs = await running.api<{ data: { id: string; status: string; version: number }[] }>(
      'GET',
      `/v1/workflows/${workflow.id}/runs`,
    );
    expect(runs.body.data.map((run) => [run.status, run.version])).toEqual([['succeeded', 1]]);
    const run = await running.api<{ data: { steps: { name: string; return_value: unknown }[] } }>(
      'GET',
      `/v1/workflow-runs/${runs.body.data[0]!.id}`,
    );
    expect(run.body.data.steps.map((step) => [step.name, step.return_value])).toEqual([['double', 42]]);

    // RUN NOW after the restart: the run is queued in PostgreSQL and runs to the end.
    const started = await running.api<{ data: { run_id: string } }>('POST', `/v1/workflows/${workflow.id}/run`, {
      event: { body: { n: 5 } },
    });
    expect(started.status).toBe(202);
    const finished = await until(async () => {
      const read = await running.api<{ data: { status: string; steps: { return_value: unknown }[] } }>(
        'GET',
        `/v1/workflow-runs/${started.body.data.run_id}`,
      );
      return read.body.data.status === 'succeeded' ? read.body.data : undefined;
    }, 'the RUN NOW run');
    expect(finished.steps[0]?.return_value).toBe(10);
  });
});

describe('two tributary start processes on one PostgreSQL database', () => {
  let database: TestDatabase;
  let first: TributaryServer | undefined;
  let second: TributaryServer | undefined;
  let scratch: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    first = await startTributary({ key: KEY, env: { TRIBUTARY_DATABASE_URL: database.url } });
    // The second process has a data directory of its own with the same master key.
    scratch = mkdtempSync(path.join(os.tmpdir(), 'tributary-second-'));
    chmodSync(scratch, 0o755);
    mkdirSync(path.join(scratch, 'data'));
    copyFileSync(path.join(first.scratch ?? '', 'data', 'master.key'), path.join(scratch, 'data', 'master.key'));
    second = await startTributary({
      key: KEY,
      dataDir: path.join(scratch, 'data'),
      env: { TRIBUTARY_DATABASE_URL: database.url, TRIBUTARY_CACHE_DIR: path.join(scratch, 'cache') },
    });
  }, 180_000);
  afterAll(async () => {
    await second?.stop();
    await first?.stop();
    rmSync(scratch, { recursive: true, force: true });
    await database?.drop();
  });

  it('deploys one component many times at once on both processes, each under a slug of its own', async () => {
    const deploys = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        (index % 2 === 0 ? first : second)!.api<{ data: { name_slug: string } }>('POST', '/v1/sources', {
          component_code: COUNTER,
          name: 'Same name',
        }),
      ),
    );
    expect(deploys.map((deployed) => deployed.status)).toEqual(Array.from({ length: 8 }, () => 200));
    const slugs = deploys.map((deployed) => deployed.body.data.name_slug).sort();
    expect(slugs).toEqual(['same-name', ...Array.from({ length: 7 }, (_, index) => `same-name-${index + 2}`)].sort());
  }, 60_000);

  it('runs one source in the order its requests were acknowledged, whichever process took them', async () => {
    const deployed = await first!.api<{ data: Deployed }>('POST', '/v1/sources', {
      component_code: COUNTER,
      name: 'shared counter',
    });
    expect(deployed.status).toBe(200);
    const pathname = new URL(deployed.body.data.endpoint_url ?? '').pathname;
    for (let i = 1; i <= 12; i += 1) {
      const server = i % 2 === 0 ? second! : first!;
      const response = await fetch(`${server.base}${pathname}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ i }),
      });
      expect(response.status).toBe(200);
    }
    const events = await until(async () => {
      const page = await second!.api<{ data: { event: { n: number; body: { i: number } } }[] }>(
        'GET',
        `/v1/sources/${deployed.body.data.id}/event_summaries?limit=50`,
      );
      return page.body.data.length === 12 ? page.body.data : undefined;
    }, 'twelve events');
    // n counts runs (the db state), i the order of acknowledgement: they match one for one.
    expect(events.map((record) => [record.event.n, record.event.body.i]).reverse()).toEqual(
      Array.from({ length: 12 }, (_, k) => [k + 1, k + 1]),
    );
  });

  it('fires a due tick once with both schedulers running', async () => {
    const tick = await second!.api<{ data: Deployed }>('POST', '/v1/sources', {
      component_code: TICK,
      name: 'shared tick',
      configured_props: { timer: { intervalSeconds: 60 } },
    });
    expect(tick.status).toBe(200);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query('UPDATE sources SET next_fire_at = $1 WHERE id = $2', [Date.now() - 1000, tick.body.data.id]);
      await until(async () => (await summariesOf(first!, tick.body.data.id))[0], 'the tick');
      // Both schedulers check at least once a second: give the other one time to (wrongly) fire too.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      expect(await summariesOf(first!, tick.body.data.id)).toHaveLength(1);
      const { rows } = await client.query<{ next_fire_at: string }>('SELECT next_fire_at FROM sources WHERE id = $1', [
        tick.body.data.id,
      ]);
      expect(Number(rows[0]?.next_fire_at)).toBeGreaterThan(Date.now());
    } finally {
      await client.end();
    }
  });
});

async function summariesOf(server: TributaryServer, sourceId: string): Promise<Summary[]> {
  const response = await server.api<{ data: Summary[] }>('GET', `/v1/sources/${sourceId}/event_summaries`);
  expect(response.status).toBe(200);
  return response.body.data;
}
