/**
 * `GET /readyz` (docs/operations.md) fails with its reason while the database is away, the runner
 * is stuck with work queued, or timer ticks are overdue, and recovers when the cause goes: each
 * brought about for real (PostgreSQL refusing connections, a run that never ends, a stopped
 * scheduler), while `/healthz` keeps answering.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testServerUrl, type TestDatabase } from '../../../tools/test-support/postgres.js';
import { fixture, openSqlite, startHarness, waitFor, type Harness } from './server-harness.js';

const harnesses: Harness[] = [];
const databases: TestDatabase[] = [];

afterAll(async () => {
  for (const harness of harnesses) await harness.close({ remove: true });
  for (const database of databases) await database.drop();
});

interface Readyz {
  readonly status: number;
  readonly body: { status: string; reason?: string; failures?: { check: string; message: string }[] };
}

async function readyz(harness: Harness): Promise<Readyz> {
  const response = await harness.request('GET', '/readyz', { key: null });
  return { status: response.status, body: response.body as Readyz['body'] };
}

/** `/readyz` fails with `scheduler`, naming an overdue tick against the 1 s limit the tests set. */
async function expectSchedulerBehind(harness: Harness): Promise<void> {
  const behind = await readyz(harness);
  expect(behind.status).toBe(503);
  expect(behind.body).toMatchObject({ status: 'not_ready', reason: 'scheduler' });
  expect(behind.body.failures?.[0]?.message).toMatch(/a timer tick is \d+ ms overdue \(limit 1000 ms\)/);
}

function until(harness: Harness, status: number, what: string, timeoutMs = 20_000): Promise<Readyz> {
  return waitFor(
    async () => {
      const answer = await readyz(harness);
      return answer.status === status ? answer : undefined;
    },
    what,
    timeoutMs,
  );
}

async function onServer(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: testServerUrl() });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

describe('GET /readyz', () => {
  it('fails while the runner finishes nothing with work queued, and recovers once it does', async () => {
    const harness = await startHarness({ sourceTimeoutMs: 3000, readiness: { runnerStallMs: 1000 } });
    harnesses.push(harness);
    expect(await readyz(harness)).toEqual({ status: 200, body: { status: 'ready' } });
    const deployed = await harness.request('POST', '/v1/sources', {
      body: { component_code: fixture('server/stuck-run.mjs') },
    });
    expect(deployed.status).toBe(200);
    const url = `${harness.base}${harness.endpoint(deployed.body.data.endpoint_url as string)}`;
    const send = (body: unknown) =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    // The first run hangs until its deadline; the second waits behind it.
    expect((await send({ stuck: true })).status).toBe(200);
    expect((await send({ stuck: false })).status).toBe(200);

    const stuck = await until(harness, 503, 'the runner to count as stuck');
    expect(stuck.body).toMatchObject({ status: 'not_ready', reason: 'runner' });
    expect(stuck.body.failures?.[0]?.message).toMatch(/the runner has finished nothing for \d+ ms \(limit 1000 ms\)/);
    // Liveness is another question: the process still answers.
    expect((await harness.request('GET', '/healthz', { key: null })).status).toBe(200);

    // The deadline stops the stuck run, the queued one runs, and readiness comes back.
    expect(await until(harness, 200, 'readiness to come back')).toEqual({ status: 200, body: { status: 'ready' } });
  });

  it('fails while a timer tick is overdue, and recovers once the scheduler queues it', async () => {
    const harness = await startHarness({ readiness: { schedulerLagMs: 1000 } });
    harnesses.push(harness);
    const deployed = await harness.request('POST', '/v1/sources', {
      body: { component_code: fixture('f03-tick.mjs'), configured_props: { timer: { intervalSeconds: 60 } } },
    });
    expect(deployed.status).toBe(200);
    await harness.engine.scheduler.stop();
    const sqlite = openSqlite(harness.dbFile);
    try {
      sqlite.prepare('UPDATE sources SET next_fire_at = ? WHERE id = ?').run(Date.now() - 5000, deployed.body.data.id);
    } finally {
      sqlite.close();
    }
    await expectSchedulerBehind(harness);

    harness.engine.scheduler.start();
    expect(await until(harness, 200, 'the scheduler to catch up')).toEqual({ status: 200, body: { status: 'ready' } });
  });

  // Timer workflows have fire times of their own (`workflows.next_fire_at`), moved by the same
  // scheduler role; one overdue is as much a scheduler behind as a source's.
  it.each(['sqlite', 'postgres'] as const)(
    'fails while a timer workflow is overdue, and recovers once the scheduler runs it (%s)',
    async (backend) => {
      const database = backend === 'postgres' ? await createTestDatabase() : undefined;
      if (database) databases.push(database);
      // The scheduler role is left off until the overdue fire time is in place.
      const harness = await startHarness({
        startEngine: false,
        readiness: { schedulerLagMs: 1000 },
        ...(database ? { databaseUrl: database.url } : {}),
      });
      harnesses.push(harness);
      await harness.engine.start('worker');
      const created = await harness.request('POST', '/v1/workflows', {
        body: {
          name: 'every minute',
          trigger: { type: 'timer', interval_seconds: 60 },
          steps: [{ name: 'double', code: fixture('workflows/double-step.mjs') }],
        },
      });
      expect(created.status).toBe(201);
      expect(await readyz(harness)).toEqual({ status: 200, body: { status: 'ready' } });
      const overdue = Date.now() - 5000;
      if (database) {
        const client = new pg.Client({ connectionString: database.url });
        await client.connect();
        try {
          await client.query('UPDATE workflows SET next_fire_at = $1 WHERE id = $2', [overdue, created.body.data.id]);
        } finally {
          await client.end();
        }
      } else {
        const sqlite = openSqlite(harness.dbFile);
        try {
          sqlite.prepare('UPDATE workflows SET next_fire_at = ? WHERE id = ?').run(overdue, created.body.data.id);
        } finally {
          sqlite.close();
        }
      }

      await expectSchedulerBehind(harness);
      const status = await harness.request('GET', '/v1/status');
      expect(status.body.data.ready).toBe(false);
      expect(status.body.data.not_ready).toEqual([expect.objectContaining({ check: 'scheduler' })]);

      await harness.engine.start('scheduler');
      expect(await until(harness, 200, 'the scheduler to catch up')).toEqual({
        status: 200,
        body: { status: 'ready' },
      });
      // Readiness came back because the overdue slot was queued as a run, not because it was dropped.
      const runs = await waitFor(async () => {
        const listed = await harness.request('GET', `/v1/workflows/${created.body.data.id}/runs`);
        return listed.body.data.length > 0 ? listed.body.data : undefined;
      }, 'the timer run to be listed');
      expect(runs[0]).toMatchObject({ trigger: 'timer' });
    },
  );

  it('fails while PostgreSQL refuses the connections, and recovers when it takes them again', async () => {
    const database = await createTestDatabase();
    databases.push(database);
    const harness = await startHarness({ databaseUrl: database.url, readiness: { databaseTimeoutMs: 1000 } });
    harnesses.push(harness);
    expect(await readyz(harness)).toEqual({ status: 200, body: { status: 'ready' } });

    // The database stops taking connections and the open ones are cut, as in a failover.
    await onServer(`ALTER DATABASE ${database.name} ALLOW_CONNECTIONS false`);
    await onServer(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${database.name}' AND pid <> pg_backend_pid()`,
    );
    const away = await until(harness, 503, 'the database to count as away');
    expect(away.body).toMatchObject({ status: 'not_ready', reason: 'database' });
    expect(away.body.failures?.[0]?.message).toMatch(/^the database did not answer: /);
    expect((await harness.request('GET', '/healthz', { key: null })).status).toBe(200);

    await onServer(`ALTER DATABASE ${database.name} ALLOW_CONNECTIONS true`);
    expect(await until(harness, 200, 'the database to come back')).toEqual({ status: 200, body: { status: 'ready' } });
  });
});
