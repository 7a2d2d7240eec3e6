/**
 * Files and secrets at rest on the embedded backend (issue 14): a private data directory, the
 * master key from a variable or a file, key ids and row binding on sealed values, their upgrade
 * from the format before, rotation, and API keys stored as keyed hashes. Real SQLite files; the
 * database is read and tampered with through a connection of its own, as someone with a copy would.
 */
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isAppError } from '@tributary/contracts';
import SqliteDatabase from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine, rotateKeys, type EngineOptions } from '../src/index.js';
import { keyIdOf, parseKeys } from '../src/secrets/master-keyring.js';

const FIXTURES = path.join(import.meta.dirname, '../../../fixtures/components');
const scratch = mkdtempSync(path.join(os.tmpdir(), 'tributary-secrets-at-rest-'));
// Sandbox workers run as another user when tests run as root: they must reach the cache inside.
chmodSync(scratch, 0o755);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let dirs = 0;
const newDataDir = (): string => path.join(scratch, `data-${(dirs += 1)}`);
const modeOf = (file: string): number => statSync(file).mode & 0o777;
const sqlite = (dataDir: string): SqliteDatabase.Database => new SqliteDatabase(path.join(dataDir, 'tributary.db'));
const quiet = (): undefined => undefined;

async function open(dataDir: string, extra: Partial<EngineOptions> = {}): Promise<{ engine: Engine; lines: string[] }> {
  const lines: string[] = [];
  const engine = await Engine.create({
    dataDir,
    cacheDir: path.join(scratch, 'cache'),
    publicUrl: 'http://127.0.0.1:9',
    allowPrivateUrls: true,
    concurrency: 1,
    sourceTimeoutMs: 30_000,
    log: (line) => lines.push(line),
    env: {},
    ...extra,
  });
  return { engine, lines };
}

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (isAppError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}

/** A value sealed as versions before issue 14 sealed it: `v1:iv:tag:body`, no key id, no binding. */
function sealV1(key: Buffer, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join(':');
}

/** Runs a deployed source once and gives the event it emitted. */
async function runOnce(engine: Engine, sourceId: string, n: number): Promise<Record<string, unknown>> {
  await engine.runner.enqueue({ sourceId, trigger: 'manual', event: { n } });
  for (let attempt = 0; attempt < 600; attempt += 1) {
    const events = await engine.events.list(sourceId, { limit: 10 });
    const found = events.data.find((event) => (event.event as { n?: number }).n === n);
    if (found) return found.event as Record<string, unknown>;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`source ${sourceId} emitted nothing for run ${n}`);
}

describe('the data directory', () => {
  it('is created 0700, with the database, its WAL files, the master key and saved code 0600', async () => {
    const dataDir = newDataDir();
    const { engine, lines } = await open(dataDir);
    await engine.components.save({ code: readFileSync(path.join(FIXTURES, 'engine/secret-echo.mjs'), 'utf8') });
    expect(modeOf(dataDir)).toBe(0o700);
    for (const file of ['tributary.db', 'tributary.db-wal', 'tributary.db-shm', 'master.key'])
      expect([file, modeOf(path.join(dataDir, file))]).toEqual([file, 0o600]);
    const code = path.join(dataDir, 'code');
    expect(modeOf(code)).toBe(0o700);
    expect(readdirSync(code).length).toBeGreaterThan(0);
    for (const file of readdirSync(code)) expect([file, modeOf(path.join(code, file))]).toEqual([file, 0o600]);
    // The default key works, with a warning that it sits beside the data it protects.
    expect(lines.filter((line) => line.includes('the master key is in the data directory'))).toHaveLength(1);
    await engine.stop();
  });

  it('tightens a directory and files an older version left open, saying so in the log', async () => {
    const dataDir = newDataDir();
    await (await open(dataDir)).engine.stop();
    chmodSync(dataDir, 0o755);
    chmodSync(path.join(dataDir, 'tributary.db'), 0o644);
    chmodSync(path.join(dataDir, 'master.key'), 0o644);
    const { engine, lines } = await open(dataDir);
    expect(modeOf(dataDir)).toBe(0o700);
    expect(modeOf(path.join(dataDir, 'tributary.db'))).toBe(0o600);
    expect(modeOf(path.join(dataDir, 'master.key'))).toBe(0o600);
    expect(lines).toContain(`${dataDir} was mode 0755: now 0700, readable by this user only`);
    expect(lines).toContain(
      `${path.join(dataDir, 'tributary.db')} was mode 0644: now 0600, readable by this user only`,
    );
    await engine.stop();
  });
});

describe('the master key', () => {
  it('comes from TRIBUTARY_MASTER_KEY (base64 or hex): no key file is written, and secrets open across restarts', async () => {
    for (const text of [randomBytes(32).toString('base64'), randomBytes(32).toString('hex')]) {
      const dataDir = newDataDir();
      const env = { TRIBUTARY_MASTER_KEY: text };
      const first = await open(dataDir, { env });
      await first.engine.oauthClients.put('github', { client_id: 'id-1', client_secret: 'from-env' });
      await first.engine.stop();
      expect(existsSync(path.join(dataDir, 'master.key'))).toBe(false);
      expect(first.lines.some((line) => line.includes('master key is in the data directory'))).toBe(false);
      const second = await open(dataDir, { env });
      expect((await second.engine.oauthClients.resolve('github'))?.clientSecret).toBe('from-env');
      await second.engine.stop();
    }
  });

  it('comes from TRIBUTARY_MASTER_KEY_FILE outside the data directory', async () => {
    const dataDir = newDataDir();
    const keyFile = path.join(scratch, 'elsewhere.key');
    writeFileSync(keyFile, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
    const env = { TRIBUTARY_MASTER_KEY_FILE: keyFile };
    const { engine } = await open(dataDir, { env });
    await engine.oauthClients.put('github', { client_id: 'id-1', client_secret: 'from-file' });
    await engine.stop();
    expect(existsSync(path.join(dataDir, 'master.key'))).toBe(false);
    const sealed = sqlite(dataDir).prepare('SELECT client_secret_sealed AS s FROM oauth_clients').get() as {
      s: string;
    };
    const [key] = parseKeys(readFileSync(keyFile, 'utf8'), 'test');
    expect(sealed.s.split(':').slice(0, 2)).toEqual(['v2', key?.id]);
  });

  it('is refused with MASTER_KEY_INVALID, naming the variable and never the value, before anything is created', async () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ TRIBUTARY_MASTER_KEY: 'too-short' }, /^TRIBUTARY_MASTER_KEY: key 1 of 1 is not a 256-bit key/],
      [
        { TRIBUTARY_MASTER_KEY: `${randomBytes(32).toString('base64')},${randomBytes(16).toString('hex')}` },
        /^TRIBUTARY_MASTER_KEY: key 2 of 2 is not a 256-bit key/,
      ],
      [{ TRIBUTARY_MASTER_KEY: ' , ' }, /^TRIBUTARY_MASTER_KEY holds no key/],
      [{ TRIBUTARY_MASTER_KEY_FILE: path.join(scratch, 'missing.key') }, /missing\.key does not exist/],
      [{ TRIBUTARY_MASTER_KEY: randomBytes(32).toString('hex'), TRIBUTARY_MASTER_KEY_FILE: '/x' }, /not both/],
    ];
    for (const [env, message] of cases) {
      const dataDir = newDataDir();
      const refused = await refusal(open(dataDir, { env }));
      expect(refused.code).toBe('MASTER_KEY_INVALID');
      expect(refused.message).toMatch(message);
      expect(refused.message).not.toContain('too-short');
      expect(existsSync(dataDir)).toBe(false);
    }
  });
});

describe('sealed values', () => {
  it('record the key id and are bound to their row: one copied to another row does not open, naming where', async () => {
    const dataDir = newDataDir();
    const { engine } = await open(dataDir);
    const a = await engine.accounts.create({ app: 'acme', name: 'a', fields: { api_key: 'key-of-a' } });
    const b = await engine.accounts.create({ app: 'acme', name: 'b', fields: { api_key: 'key-of-b' } });
    const db = sqlite(dataDir);
    const sealedOf = (id: string): string =>
      (db.prepare('SELECT fields_sealed AS s FROM accounts WHERE id = ?').get(id) as { s: string }).s;
    const keyId = keyIdOf(parseKeys(readFileSync(path.join(dataDir, 'master.key'), 'utf8'), 'test')[0]!.key);
    expect(sealedOf(a.id)).toMatch(new RegExp(`^v2:${keyId}:`));
    expect(sealedOf(a.id)).not.toContain('key-of-a');
    // Only a is read before the tampering: a run's accounts are cached (SQLite has one owner), and
    // b must be read from the file to show what the file holds.
    expect(await engine.accounts.credentialsFor({ acme: { authProvisionId: a.id } })).toEqual({
      acme: { api_key: 'key-of-a' },
    });
    // Someone who can write the database moves a's credentials onto b, hoping b's users run with them.
    db.prepare('UPDATE accounts SET fields_sealed = ? WHERE id = ?').run(sealedOf(a.id), b.id);
    const refused = await refusal(engine.accounts.credentialsFor({ acme: { authProvisionId: b.id } }));
    expect(refused).toEqual({
      code: 'SECRET_UNREADABLE',
      message: `the secret in accounts "${b.id}" fields_sealed does not decrypt: it was changed, or copied there from another row or column`,
    });
    db.close();
    await engine.stop();
  });

  it('sealed before issue 14 (v1, no key id) are upgraded at start, and keep working', async () => {
    const dataDir = newDataDir();
    const { engine } = await open(dataDir);
    const source = await engine.sources.deploy({
      componentCode: readFileSync(path.join(FIXTURES, 'engine/secret-echo.mjs'), 'utf8'),
      name: 'echo',
      configuredProps: { token: 'tok-123' },
    });
    const account = await engine.accounts.create({ app: 'acme', fields: { api_key: 'old-key' } });
    const { key: apiKey } = await engine.apiKeys.create('ci');
    await engine.stop();
    // The database as the version before left it: v1 values, SHA-256 API keys, no migration 0011
    // (nor any later one).
    const key = parseKeys(readFileSync(path.join(dataDir, 'master.key'), 'utf8'), 'test')[0]!.key;
    const db = sqlite(dataDir);
    db.prepare('UPDATE accounts SET fields_sealed = ? WHERE id = ?').run(
      sealV1(key, JSON.stringify({ api_key: 'old-key' })),
      account.id,
    );
    db.prepare('UPDATE sources SET configured_props = ? WHERE id = ?').run(
      JSON.stringify({ token: { $sealed: sealV1(key, 'tok-123') } }),
      source.id,
    );
    const legacyHash = createHash('sha256').update(apiKey).digest('hex');
    db.prepare("UPDATE api_keys SET key_hash = ? WHERE name = 'ci'").run(legacyHash);
    db.exec(
      `DROP TABLE instance_secrets; ALTER TABLE workflow_runs DROP COLUMN event_packing;
       DELETE FROM kysely_migration WHERE name IN ('0011-instance-secrets', '0012-run-event-packing')`,
    );
    db.close();

    const again = await open(dataDir);
    const check = sqlite(dataDir);
    const sealed = (
      check.prepare('SELECT fields_sealed AS s FROM accounts WHERE id = ?').get(account.id) as { s: string }
    ).s;
    expect(sealed).toMatch(new RegExp(`^v2:${keyIdOf(key)}:`));
    const props = (
      check.prepare('SELECT configured_props AS p FROM sources WHERE id = ?').get(source.id) as { p: string }
    ).p;
    expect(props).toMatch(new RegExp(`^\\{"token":\\{"\\$sealed":"v2:${keyIdOf(key)}:`));
    expect(await again.engine.accounts.credentialsFor({ acme: { authProvisionId: account.id } })).toEqual({
      acme: { api_key: 'old-key' },
    });
    await again.engine.start();
    expect(await runOnce(again.engine, source.id, 1)).toEqual({ n: 1, token: 'tok-123' });
    // The old API key still signs in, and is stored as a keyed hash from its first use on.
    expect((await again.engine.apiKeys.verify(apiKey))?.name).toBe('ci');
    const stored = (check.prepare("SELECT key_hash AS h FROM api_keys WHERE name = 'ci'").get() as { h: string }).h;
    expect(stored).toMatch(/^hmac:[0-9a-f]{64}$/);
    expect(stored).not.toContain(legacyHash);
    expect((await again.engine.apiKeys.verify(apiKey))?.name).toBe('ci');
    check.close();
    await again.engine.stop();
  });
});

describe('API keys', () => {
  it('are stored as HMAC-SHA-256 with a pepper only the master key opens: a copy of the database does not check them', async () => {
    const dataDir = newDataDir();
    const { engine } = await open(dataDir);
    const { key } = await engine.apiKeys.create('admin');
    expect((await engine.apiKeys.verify(key))?.name).toBe('admin');
    expect(await engine.apiKeys.verify(`${key}x`)).toBeNull();
    await engine.stop();
    const db = sqlite(dataDir);
    const { h } = db.prepare('SELECT key_hash AS h FROM api_keys').get() as { h: string };
    db.close();
    expect(h).toMatch(/^hmac:[0-9a-f]{64}$/);
    expect(h).not.toContain(createHash('sha256').update(key).digest('hex'));
    // The database copied without its key: the pepper does not open, so nothing can be checked.
    const thief = newDataDir();
    mkdirSync(thief, { recursive: true });
    copyFileSync(path.join(dataDir, 'tributary.db'), path.join(thief, 'tributary.db'));
    const refused = await refusal(open(thief));
    expect(refused.code).toBe('SECRET_UNREADABLE');
    expect(refused.message).toMatch(
      /instance_secrets "api_key_pepper" value_sealed was sealed with master key [0-9a-f]{16}, which is not among the keys given/,
    );
  });
});

describe('keys rotate (in process)', () => {
  it('re-seals every secret under a new key, retires the old one, and everything still opens', async () => {
    const dataDir = newDataDir();
    const { engine } = await open(dataDir);
    const source = await engine.sources.deploy({
      componentCode: readFileSync(path.join(FIXTURES, 'engine/secret-echo.mjs'), 'utf8'),
      name: 'echo',
      configuredProps: { token: 'tok-rotated' },
    });
    const account = await engine.accounts.create({ app: 'acme', fields: { api_key: 'acct' } });
    await engine.oauthClients.put('github', { client_id: 'id', client_secret: 'client-secret' });
    const { key: apiKey } = await engine.apiKeys.create('ci');
    await engine.components.publish('wf-greet', {
      code: readFileSync(path.join(FIXTURES, 'workflows/greet-action.mjs'), 'utf8'),
    });
    const workflow = await engine.workflows.create({
      name: 'greet',
      trigger: { type: 'manual' },
      steps: [{ name: 'greet', action: 'wf-greet', props: { name: 'Ada', token: 'wf-secret' } }],
    });
    await engine.stop();
    const before = parseKeys(readFileSync(path.join(dataDir, 'master.key'), 'utf8'), 'test');

    const report = await rotateKeys({ dataDir, env: {}, log: quiet });
    const after = parseKeys(readFileSync(path.join(dataDir, 'master.key'), 'utf8'), 'test');
    expect(after).toHaveLength(1);
    expect(report).toMatchObject({
      activeKeyId: after[0]?.id,
      retiredKeyIds: [before[0]?.id],
      started: true,
      resealed: { accounts: 1, oauth_clients: 1, sources: 1, workflow_versions: 1, instance_secrets: 1 },
    });
    expect(after[0]?.id).not.toBe(before[0]?.id);
    expect(modeOf(path.join(dataDir, 'master.key'))).toBe(0o600);
    const db = sqlite(dataDir);
    const texts = [
      (db.prepare('SELECT fields_sealed AS s FROM accounts').get() as { s: string }).s,
      (db.prepare('SELECT client_secret_sealed AS s FROM oauth_clients').get() as { s: string }).s,
      (db.prepare('SELECT configured_props AS s FROM sources').get() as { s: string }).s,
      (db.prepare('SELECT value_sealed AS s FROM instance_secrets').get() as { s: string }).s,
      (db.prepare('SELECT plan AS s FROM workflow_versions').get() as { s: string }).s,
    ];
    db.close();
    for (const text of texts) expect(text).toContain(`v2:${after[0]?.id}:`);
    for (const text of texts) expect(text).not.toContain(`v2:${before[0]?.id}:`);

    const again = await open(dataDir);
    expect(await again.engine.accounts.credentialsFor({ acme: { authProvisionId: account.id } })).toEqual({
      acme: { api_key: 'acct' },
    });
    expect((await again.engine.oauthClients.resolve('github'))?.clientSecret).toBe('client-secret');
    // API key hashes use the pepper, which was re-sealed, not replaced: the key still signs in.
    expect((await again.engine.apiKeys.verify(apiKey))?.name).toBe('ci');
    await again.engine.start();
    expect(await runOnce(again.engine, source.id, 7)).toEqual({ n: 7, token: 'tok-rotated' });
    // A workflow step's secret opens for its run (a value that did not would fail the step).
    const runId = await again.engine.workflows.trigger(workflow.id, 'manual', {});
    let run = await again.engine.workflows.getRun(runId);
    while (run.status === 'queued' || run.status === 'running') {
      await new Promise((resolve) => setTimeout(resolve, 25));
      run = await again.engine.workflows.getRun(runId);
    }
    expect(run.steps[0]).toMatchObject({ status: 'succeeded', props: { name: 'Ada', token: '[REDACTED]' } });
    await again.engine.stop();
  });

  it('a running server follows a rotation of its key file: it seals with the new key and opens re-sealed values', async () => {
    const dataDir = newDataDir();
    const { engine, lines } = await open(dataDir);
    await engine.oauthClients.put('github', { client_id: 'id', client_secret: 'before' });
    const report = await rotateKeys({ dataDir, env: {}, log: quiet });
    expect((await engine.oauthClients.resolve('github'))?.clientSecret).toBe('before');
    await engine.oauthClients.put('slack', { client_id: 'id', client_secret: 'after' });
    const db = sqlite(dataDir);
    const rows = db.prepare('SELECT app, client_secret_sealed AS s FROM oauth_clients ORDER BY app').all() as {
      app: string;
      s: string;
    }[];
    db.close();
    expect(rows.map((row) => [row.app, row.s.split(':')[1]])).toEqual([
      ['github', report.activeKeyId],
      ['slack', report.activeKeyId],
    ]);
    expect((await engine.oauthClients.resolve('slack'))?.clientSecret).toBe('after');
    // A key file half edited does not stop it: it keeps the keys it read, and says so once.
    const keyFile = path.join(dataDir, 'master.key');
    const good = readFileSync(keyFile, 'utf8');
    writeFileSync(keyFile, 'half-writ');
    expect((await engine.oauthClients.resolve('github'))?.clientSecret).toBe('before');
    expect((await engine.oauthClients.resolve('slack'))?.clientSecret).toBe('after');
    expect(lines.filter((line) => line.startsWith(`${keyFile} cannot be read again (`))).toHaveLength(1);
    writeFileSync(keyFile, good);
    await engine.stop();
  });

  it('with TRIBUTARY_MASTER_KEY holding one key is refused with KEY_ROTATION_REFUSED; with new,old it re-seals under the new one', async () => {
    const dataDir = newDataDir();
    const oldKey = randomBytes(32).toString('base64');
    const newKey = randomBytes(32).toString('hex');
    const { engine } = await open(dataDir, { env: { TRIBUTARY_MASTER_KEY: oldKey } });
    await engine.oauthClients.put('github', { client_id: 'id', client_secret: 'env-rotated' });
    await engine.stop();
    const refused = await refusal(rotateKeys({ dataDir, env: { TRIBUTARY_MASTER_KEY: oldKey }, log: quiet }));
    expect(refused.code).toBe('KEY_ROTATION_REFUSED');
    expect(refused.message).toMatch(/^TRIBUTARY_MASTER_KEY holds one key: put the new key first/);
    const both = `${newKey},${oldKey}`;
    const report = await rotateKeys({ dataDir, env: { TRIBUTARY_MASTER_KEY: both }, log: quiet });
    const [fresh, stale] = parseKeys(both, 'test');
    expect(report).toMatchObject({ activeKeyId: fresh?.id, retiredKeyIds: [stale?.id], started: false });
    // The new key alone opens everything now.
    const again = await open(dataDir, { env: { TRIBUTARY_MASTER_KEY: newKey } });
    expect((await again.engine.oauthClients.resolve('github'))?.clientSecret).toBe('env-rotated');
    await again.engine.stop();
  });
});
