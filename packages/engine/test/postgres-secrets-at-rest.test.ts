/**
 * Secrets at rest on PostgreSQL (issue 14), on a database of its own
 * (tools/test-support/postgres.ts): the key from TRIBUTARY_MASTER_KEY, row binding, the upgrade of
 * values sealed before key ids, and API keys stored as keyed hashes, rehashed from SHA-256 at first use.
 */
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isAppError } from '@tributary/contracts';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../tools/test-support/postgres.js';
import { Engine } from '../src/index.js';
import { parseKeys } from '../src/secrets/master-keyring.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'tributary-pg-secrets-'));
// Sandbox workers run as another user when tests run as root: they must reach the cache inside.
chmodSync(scratch, 0o755);
const KEY = randomBytes(32).toString('base64');
const env = { TRIBUTARY_MASTER_KEY: KEY };
let database: TestDatabase;
let client: pg.Client;

beforeAll(async () => {
  database = await createTestDatabase();
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
}, 60_000);
afterAll(async () => {
  await client?.end();
  await database?.drop();
  rmSync(scratch, { recursive: true, force: true });
});

const open = (): Promise<Engine> =>
  Engine.create({
    dataDir: path.join(scratch, 'data'),
    databaseUrl: database.url,
    cacheDir: path.join(scratch, 'cache'),
    publicUrl: 'http://127.0.0.1:9',
    allowPrivateUrls: true,
    concurrency: 1,
    sourceTimeoutMs: 30_000,
    log: () => undefined,
    env,
  });

const one = async (text: string, values: unknown[] = []): Promise<Record<string, unknown>> =>
  (await client.query<Record<string, unknown>>(text, values)).rows[0] ?? {};

function sealV1(plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', Buffer.from(KEY, 'base64'), iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join(':');
}

describe('secrets at rest on PostgreSQL', () => {
  it('bind each sealed value to its row, upgrade v1 values and SHA-256 API keys, with the key from TRIBUTARY_MASTER_KEY', async () => {
    const engine = await open();
    expect(existsSync(path.join(scratch, 'data', 'master.key'))).toBe(false);
    const a = await engine.accounts.create({ app: 'acme', name: 'a', fields: { api_key: 'key-of-a' } });
    const b = await engine.accounts.create({ app: 'acme', name: 'b', fields: { api_key: 'key-of-b' } });
    const { key: apiKey } = await engine.apiKeys.create('ci');
    const keyId = parseKeys(KEY, 'test')[0]?.id ?? '';
    const sealedA = String((await one('SELECT fields_sealed FROM accounts WHERE id = $1', [a.id]))['fields_sealed']);
    expect(sealedA.startsWith(`v2:${keyId}:`)).toBe(true);
    const stored = String((await one("SELECT key_hash FROM api_keys WHERE name = 'ci'"))['key_hash']);
    expect(stored).toMatch(/^hmac:[0-9a-f]{64}$/);

    // a's credentials copied onto b do not open as b's.
    await client.query('UPDATE accounts SET fields_sealed = $1 WHERE id = $2', [sealedA, b.id]);
    const refused = await engine.accounts
      .credentialsFor({ acme: { authProvisionId: b.id } })
      .catch((error: unknown) => error);
    expect(isAppError(refused) && refused.code).toBe('SECRET_UNREADABLE');
    expect((refused as Error).message).toBe(
      `the secret in accounts "${b.id}" fields_sealed does not decrypt: it was changed, or copied there from another row or column`,
    );
    await engine.stop();

    // As the version before left the database: a v1 value and a bare SHA-256 API key hash.
    await client.query('UPDATE accounts SET fields_sealed = $1 WHERE id = $2', [
      sealV1(JSON.stringify({ api_key: 'key-of-b' })),
      b.id,
    ]);
    const legacy = createHash('sha256').update(apiKey).digest('hex');
    await client.query("UPDATE api_keys SET key_hash = $1 WHERE name = 'ci'", [legacy]);
    const again = await open();
    const upgraded = String((await one('SELECT fields_sealed FROM accounts WHERE id = $1', [b.id]))['fields_sealed']);
    expect(upgraded.startsWith(`v2:${keyId}:`)).toBe(true);
    expect(await again.accounts.credentialsFor({ acme: { authProvisionId: b.id } })).toEqual({
      acme: { api_key: 'key-of-b' },
    });
    expect((await again.apiKeys.verify(apiKey))?.name).toBe('ci');
    expect((await one("SELECT key_hash FROM api_keys WHERE name = 'ci'"))['key_hash']).toBe(stored);
    // Given again (TRIBUTARY_ADMIN_KEY at each start), a key is not stored twice.
    await again.apiKeys.create('ci', apiKey);
    expect((await one("SELECT count(*)::int AS n FROM api_keys WHERE name = 'ci'"))['n']).toBe(1);
    await again.stop();
  }, 60_000);
});
