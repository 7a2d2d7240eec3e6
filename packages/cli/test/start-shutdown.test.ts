/**
 * Issue 14, "Shutdown": on SIGTERM a real `tributary start` takes no new work, gives the run in
 * flight its grace (TRIBUTARY_SHUTDOWN_GRACE_MS), stops it when the grace runs out, and exits 0,
 * leaving every unfinished invocation queued as it was. The next start runs them.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { REPO } from './cli-process.js';
import { killStartedProcesses, startProcess, type StartedProcess } from './start-process.js';

const KEY = 'trb_shutdown_tests_key_0123456789';
const scratch = mkdtempSync(path.join(os.tmpdir(), 'tributary-shutdown-test-'));
// With bubblewrap and a root server, workers run as uid 65534 and must be able to enter the cache.
chmodSync(scratch, 0o755);
const dataDir = path.join(scratch, 'data');
afterEach(killStartedProcesses);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const openSqlite = (() => {
  const require = createRequire(path.join(REPO, 'packages/engine/package.json'));
  const Database = require('better-sqlite3') as new (
    file: string,
    options: { readonly readonly: boolean },
  ) => { prepare(sql: string): { all(...params: unknown[]): unknown[] }; close(): void };
  return (file: string) => new Database(file, { readonly: true });
})();

function rows<T>(query: string, ...params: unknown[]): T[] {
  const sqlite = openSqlite(path.join(dataDir, 'tributary.db'));
  try {
    return sqlite.prepare(query).all(...params) as T[];
  } finally {
    sqlite.close();
  }
}

const start = (env: Record<string, string>): Promise<StartedProcess> =>
  startProcess(dataDir, {
    TRIBUTARY_CACHE_DIR: path.join(scratch, 'cache'),
    TRIBUTARY_ADMIN_KEY: KEY,
    TRIBUTARY_LOG_FORMAT: 'json',
    ...env,
  });

/** A parsed JSON body whose shape each test asserts on. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyJson = any;

async function api(
  base: string,
  method: string,
  route: string,
  body?: unknown,
): Promise<{ status: number; body: AnyJson }> {
  const response = await fetch(`${base}${route}`, {
    method,
    headers: { authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? null : JSON.parse(text) };
}

async function until<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const stuckRun = readFileSync(path.join(REPO, 'fixtures/components/server/stuck-run.mjs'), 'utf8');

describe('tributary start on SIGTERM', () => {
  it('stops the hanging run after the grace, exits 0, and leaves every unfinished invocation queued for the next start', async () => {
    // One slot and no long-run slot, so the second source's event waits behind the hanging run.
    const first = await start({
      TRIBUTARY_SHUTDOWN_GRACE_MS: '1500',
      TRIBUTARY_SOURCE_TIMEOUT_MS: '600000',
      TRIBUTARY_CONCURRENCY: '1',
      TRIBUTARY_LONG_RUN_SLOTS: '0',
    });
    const deploy = async (name: string) => {
      const deployed = await api(first.base, 'POST', '/v1/sources', { component_code: stuckRun, name });
      expect(deployed.status, JSON.stringify(deployed.body)).toBe(200);
      return { id: deployed.body.data.id as string, url: deployed.body.data.endpoint_url as string };
    };
    const hangs = await deploy('hangs');
    const waits = await deploy('waits');
    const send = (url: string, body: unknown) =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await send(hangs.url, { stuck: true })).status).toBe(200);
    expect((await send(hangs.url, { stuck: false })).status).toBe(200);
    await until(async () => {
      const status = await api(first.base, 'GET', '/v1/status');
      return status.body.data.pool.busy > 0 ? true : undefined;
    }, 'the hanging run to start');
    expect((await send(waits.url, { stuck: false })).status).toBe(200);

    first.child.kill('SIGTERM');
    expect(await first.exit).toBe(0);
    const log = first.lines.join('\n');
    expect(log).toContain('SIGTERM: stopping; taking no new work');
    expect(log).toMatch(/1 run still in flight after the 1500 ms shutdown grace: stopped/);

    // Nothing ran to a result, and nothing counts as a failure: three entries queued as they were.
    const queued = rows<{ source_id: string; attempts: number }>(
      'SELECT source_id, attempts FROM invocations ORDER BY created_at, rowid',
    );
    expect(queued).toEqual([
      { source_id: hangs.id, attempts: 0 },
      { source_id: hangs.id, attempts: 0 },
      { source_id: waits.id, attempts: 0 },
    ]);
    expect(rows('SELECT id FROM events')).toEqual([]);
    expect(rows('SELECT id FROM dead_letters')).toEqual([]);

    // The next start runs them (the hanging one until its now short deadline).
    const second = await start({ TRIBUTARY_SOURCE_TIMEOUT_MS: '2000' });
    await until(
      async () => (rows('SELECT id FROM invocations').length === 0 ? true : undefined),
      'the queued invocations to run after the restart',
    );
    expect(rows<{ source_id: string }>('SELECT source_id FROM events ORDER BY source_id')).toHaveLength(2);
    second.child.kill('SIGTERM');
    expect(await second.exit).toBe(0);
  }, 180_000);
});
