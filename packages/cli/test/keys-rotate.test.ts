/**
 * `tributary keys rotate` as an operator runs it, in a child process of the real binary: killed
 * with SIGKILL part way (after the new key is written, and in the middle of re-sealing), then run
 * again, it finishes the same rotation and every secret still opens. On a real SQLite file and on
 * a PostgreSQL database of its own (tools/test-support/postgres.ts).
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Engine } from '@tributary/engine';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../tools/test-support/postgres.js';
import { BIN, tributaryJson } from './cli-process.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'tributary-keys-rotate-'));
// Sandbox workers run as another user when tests run as root: they must reach the cache inside.
chmodSync(scratch, 0o755);
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
}, 60_000);
afterAll(async () => {
  await database?.drop();
  rmSync(scratch, { recursive: true, force: true });
});

const ACCOUNTS = 40;
/** The key ids of a key file, the active one first (the id is the 2nd field of every sealed value). */
const keyLines = (dataDir: string): string[] =>
  readFileSync(path.join(dataDir, 'master.key'), 'utf8').trim().split('\n').filter(Boolean);

async function engineOn(dataDir: string, databaseUrl?: string): Promise<Engine> {
  mkdirSync(dataDir, { recursive: true });
  return Engine.create({
    dataDir,
    ...(databaseUrl ? { databaseUrl } : {}),
    cacheDir: path.join(scratch, 'cache'),
    publicUrl: 'http://127.0.0.1:9',
    allowPrivateUrls: true,
    concurrency: 1,
    sourceTimeoutMs: 30_000,
    log: () => undefined,
    env: {},
  });
}

/** Accounts whose credentials name them, an OAuth client and an API key: what must survive. */
async function seed(engine: Engine, accounts = ACCOUNTS): Promise<{ ids: string[]; apiKey: string }> {
  const ids: string[] = [];
  for (let n = 0; n < accounts; n += 1)
    ids.push((await engine.accounts.create({ app: 'acme', fields: { api_key: `key-${n}` } })).id);
  await engine.oauthClients.put('github', { client_id: 'id', client_secret: 'client-secret' });
  const { key } = await engine.apiKeys.create('ci');
  return { ids, apiKey: key };
}

async function expectAllOpen(engine: Engine, seeded: { ids: string[]; apiKey: string }): Promise<void> {
  // Every account as one prop of a single component, as a run would ask for them.
  const configured = Object.fromEntries(seeded.ids.map((id, n) => [`acme${n}`, { authProvisionId: id }]));
  const opened = await engine.accounts.credentialsFor(configured);
  expect(opened).toEqual(Object.fromEntries(seeded.ids.map((_id, n) => [`acme${n}`, { api_key: `key-${n}` }])));
  expect((await engine.oauthClients.resolve('github'))?.clientSecret).toBe('client-secret');
  expect((await engine.apiKeys.verify(seeded.apiKey))?.name).toBe('ci');
}

/** Starts `keys rotate`; `killWhen` is polled until true, then the child is killed with SIGKILL. */
async function rotateAndKill(
  args: readonly string[],
  killWhen: () => Promise<boolean>,
): Promise<NodeJS.Signals | null> {
  const child = spawn(process.execPath, [BIN, 'keys', 'rotate', ...args], { stdio: 'ignore' });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  let done = false;
  void exited.then(() => (done = true));
  while (!done && !(await killWhen())) await new Promise((resolve) => setTimeout(resolve, 5));
  child.kill('SIGKILL');
  return exited;
}

describe('tributary keys rotate, killed and run again', () => {
  it('SQLite: killed after writing the new key, the next run finishes with that key, not another', async () => {
    const dataDir = path.join(scratch, 'sqlite');
    const engine = await engineOn(dataDir);
    const seeded = await seed(engine);
    await engine.stop();
    const [oldKey] = keyLines(dataDir);
    // A writer holds the database, so the rotation cannot re-seal a row before it is killed.
    const holder = new SqliteDatabase(path.join(dataDir, 'tributary.db'));
    holder.exec('BEGIN IMMEDIATE');
    const signal = await rotateAndKill(['--data-dir', dataDir], () => Promise.resolve(keyLines(dataDir).length === 2));
    holder.exec('ROLLBACK');
    holder.close();
    expect(signal).toBe('SIGKILL');
    const [newKey, kept] = keyLines(dataDir);
    expect(kept).toBe(oldKey);

    const finished = await tributaryJson<Record<string, unknown>>(['keys', 'rotate', '--data-dir', dataDir, '--json']);
    expect(finished.code).toBe(0);
    expect(finished.json).toMatchObject({ ok: true, started: false, resealed: { accounts: ACCOUNTS } });
    expect(keyLines(dataDir)).toEqual([newKey]);
    const check = new SqliteDatabase(path.join(dataDir, 'tributary.db'), { readonly: true });
    const ids = check.prepare('SELECT fields_sealed AS s FROM accounts').all() as { s: string }[];
    check.close();
    expect(new Set(ids.map((row) => row.s.split(':')[1]))).toEqual(new Set([finished.json['active_key_id']]));
    const again = await engineOn(dataDir);
    await expectAllOpen(again, seeded);
    await again.stop();
  }, 120_000);

  it('SQLite: killed in the middle of re-sealing, the next run re-seals the rest', async () => {
    const dataDir = path.join(scratch, 'sqlite-middle');
    const engine = await engineOn(dataDir);
    const many = 1000;
    const seeded = await seed(engine, many);
    await engine.stop();
    const file = path.join(dataDir, 'tributary.db');
    const reader = new SqliteDatabase(file, { readonly: true });
    onTestFinished(() => void reader.close());
    const keyIdsOf = (): string[] =>
      (reader.prepare('SELECT fields_sealed AS s FROM accounts').all() as { s: string }[]).map(
        (row) => row.s.split(':')[1] ?? '',
      );
    const [oldId] = keyIdsOf();
    const resealed = (): number => keyIdsOf().filter((id) => id !== oldId).length;
    // Once the rotation has re-sealed a row, a writer takes the database (after the write in
    // flight): the rotation waits for it, part way through, and is killed there.
    const holder = new SqliteDatabase(file);
    holder.pragma('busy_timeout = 30000');
    const signal = await rotateAndKill(['--data-dir', dataDir], () => {
      if (resealed() === 0) return Promise.resolve(false);
      holder.exec('BEGIN IMMEDIATE');
      return Promise.resolve(true);
    });
    const done = resealed();
    holder.exec('ROLLBACK');
    holder.close();
    expect(signal).toBe('SIGKILL');
    expect(done).toBeGreaterThan(0);
    expect(done).toBeLessThan(many);
    expect(keyLines(dataDir)).toHaveLength(2);

    const finished = await tributaryJson<Record<string, unknown>>(['keys', 'rotate', '--data-dir', dataDir, '--json']);
    expect(finished.code).toBe(0);
    expect(finished.json).toMatchObject({ ok: true, started: false, resealed: { accounts: many - done } });
    expect(new Set(keyIdsOf())).toEqual(new Set([finished.json['active_key_id']]));
    expect(keyLines(dataDir)).toHaveLength(1);
    const again = await engineOn(dataDir);
    await expectAllOpen(again, seeded);
    await again.stop();
  }, 180_000);

  it('PostgreSQL: killed in the middle of re-sealing, the next run re-seals the rest', async () => {
    const dataDir = path.join(scratch, 'pg');
    const engine = await engineOn(dataDir, database.url);
    const seeded = await seed(engine);
    await engine.stop();
    const [oldKey] = keyLines(dataDir);
    // The last account is locked: the rotation re-seals every account before it, then waits there.
    const holder = new pg.Client({ connectionString: database.url });
    const reader = new pg.Client({ connectionString: database.url });
    await holder.connect();
    await reader.connect();
    onTestFinished(() => reader.end());
    await holder.query('BEGIN');
    await holder.query('SELECT id FROM accounts ORDER BY id DESC LIMIT 1 FOR UPDATE');
    const keyIdsOf = async (): Promise<string[]> =>
      (await reader.query<{ s: string }>('SELECT fields_sealed AS s FROM accounts')).rows.map(
        (row) => row.s.split(':')[1] ?? '',
      );
    const [oldId] = await keyIdsOf();
    const resealed = async (): Promise<number> => (await keyIdsOf()).filter((id) => id !== oldId).length;
    const signal = await rotateAndKill(['--data-dir', dataDir, '--database-url', database.url, '--json'], async () => {
      if (keyLines(dataDir).length < 2) return false;
      return (await resealed()) === ACCOUNTS - 1;
    });
    expect(signal).toBe('SIGKILL');
    // Killed part way: every account but the locked one is under the new key, and both keys are kept.
    expect(await resealed()).toBe(ACCOUNTS - 1);
    expect(keyLines(dataDir)[1]).toBe(oldKey);
    // The killed process's connection goes with it: its UPDATE waiting on the lock is ended, as
    // PostgreSQL ends it once it notices the closed socket.
    await reader.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
    );
    await holder.query('ROLLBACK');
    await holder.end();

    const finished = await tributaryJson<Record<string, unknown>>([
      'keys',
      'rotate',
      '--data-dir',
      dataDir,
      '--database-url',
      database.url,
      '--json',
    ]);
    expect(finished.code).toBe(0);
    expect(finished.json).toMatchObject({ ok: true, started: false, resealed: { accounts: 1 } });
    expect(new Set(await keyIdsOf())).toEqual(new Set([finished.json['active_key_id']]));
    expect(keyLines(dataDir)).toHaveLength(1);
    const again = await engineOn(dataDir, database.url);
    await expectAllOpen(again, seeded);
    await again.stop();
  }, 120_000);
});

describe('tributary keys rotate, pointed at the wrong place', () => {
  it('refuses a data directory without a database, and creates nothing there', async () => {
    const missing = path.join(scratch, 'no-such-data-dir');
    const refused = await tributaryJson<{ ok: boolean; error: { code: string; message: string } }>([
      'keys',
      'rotate',
      '--data-dir',
      missing,
      '--json',
    ]);
    expect(refused.code).toBe(2);
    expect(refused.json).toMatchObject({ ok: false, error: { code: 'KEY_ROTATION_REFUSED' } });
    expect(refused.json.error.message).toContain('--data-dir');
    expect(existsSync(missing)).toBe(false);
  });
});
