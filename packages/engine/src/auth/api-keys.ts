import { createHash, createHmac } from 'node:crypto';
import { AppError } from '@tributary/contracts';
import type { Kysely } from 'kysely';
import { newId, newSecretToken } from '../ids.js';
import type { Database } from '../store/schema.js';

export const API_KEY_PREFIX = 'trb_';

export interface ApiKeyRecord {
  readonly id: string;
  readonly name: string;
  readonly prefix: string;
  readonly createdAt: number;
  readonly lastUsedAt: number | null;
  readonly revokedAt: number | null;
}

/** How keys were stored before issue 14: a bare SHA-256, still accepted once and then rehashed. */
const legacyHashOf = (key: string): string => createHash('sha256').update(key).digest('hex');

/** `last_used_at` is written at most this often per key, so reads do not turn into writes. */
const LAST_USED_RESOLUTION_MS = 60_000;

type Row = Database['api_keys'];

const toRecord = (row: Row): ApiKeyRecord => ({
  id: row.id,
  name: row.name,
  prefix: row.key_prefix,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
  revokedAt: row.revoked_at,
});

/**
 * API keys: shown once when created, stored only as HMAC-SHA-256 hashes keyed with the instance's
 * pepper (sealed with the master key, instance-secrets.ts), so a copy of the database alone cannot
 * test a guessed key; revoked, never deleted. Keys are 256-bit random tokens, so a fast keyed hash
 * is enough: there is nothing to brute-force that a slow password hash would protect.
 */
export class ApiKeys {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: () => number,
    private readonly pepper: Buffer,
  ) {}

  private hashOf(key: string): string {
    return `hmac:${createHmac('sha256', this.pepper).update(key).digest('hex')}`;
  }

  /** Creates a key and returns it in clear; this is the only time it exists in clear. */
  async create(
    name: string,
    plain: string = `${API_KEY_PREFIX}${newSecretToken()}${newSecretToken()}`,
  ): Promise<{ key: string; record: ApiKeyRecord }> {
    // A key given again (TRIBUTARY_ADMIN_KEY at each start) that was stored the old way is rehashed, not added twice.
    await this.rehashLegacy(plain);
    const record = {
      id: newId('key'),
      name,
      key_hash: this.hashOf(plain),
      key_prefix: plain.slice(0, 8),
      created_at: this.now(),
      last_used_at: null,
      revoked_at: null,
    };
    await this.db
      .insertInto('api_keys')
      .values(record)
      .onConflict((conflict) => conflict.column('key_hash').doNothing())
      .execute();
    return { key: plain, record: toRecord(record) };
  }

  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** Every key, revoked ones included (so a listing shows when each was revoked), oldest first. */
  async list(): Promise<ApiKeyRecord[]> {
    const rows = await this.db.selectFrom('api_keys').selectAll().orderBy('created_at').orderBy('id').execute();
    return rows.map(toRecord);
  }

  /** Revokes a key: from now on it gets 401. Revoking a revoked key keeps its first revocation time. */
  async revoke(id: string): Promise<ApiKeyRecord> {
    const row = await this.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw new AppError('NOT_FOUND', `no API key "${id}"`, { api_key: id });
    if (row.revoked_at !== null) return toRecord(row);
    // Revoking the last working key would lock everyone out of the API for good.
    if ((await this.count()) <= 1)
      throw new AppError(
        'VALIDATION_FAILED',
        `"${row.name}" (${id}) is the last active API key; create another before revoking it`,
        { api_key: id },
      );
    const revokedAt = this.now();
    await this.db.updateTable('api_keys').set({ revoked_at: revokedAt }).where('id', '=', id).execute();
    return toRecord({ ...row, revoked_at: revokedAt });
  }

  /** The key's record when it is valid, else null; notes when it was last used. */
  async verify(plain: string): Promise<ApiKeyRecord | null> {
    const keyHash = this.hashOf(plain);
    // One indexed lookup finds the key stored either way; one stored the old way is rehashed now.
    const found = await this.db
      .selectFrom('api_keys')
      .selectAll()
      .where('key_hash', 'in', [keyHash, legacyHashOf(plain)])
      .executeTakeFirst();
    const row = found && found.key_hash !== keyHash ? await this.rehash(found, keyHash) : found;
    if (!row || row.revoked_at !== null) return null;
    const now = this.now();
    if (row.last_used_at === null || now - row.last_used_at >= LAST_USED_RESOLUTION_MS) {
      await this.db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', row.id).execute();
      return toRecord({ ...row, last_used_at: now });
    }
    return toRecord(row);
  }

  /** A key stored as a bare SHA-256 (before issue 14) gets its HMAC hash at first use; the row, if any. */
  private async rehashLegacy(plain: string): Promise<Row | undefined> {
    const row = await this.db
      .selectFrom('api_keys')
      .selectAll()
      .where('key_hash', '=', legacyHashOf(plain))
      .executeTakeFirst();
    return row ? this.rehash(row, this.hashOf(plain)) : undefined;
  }

  private async rehash(row: Row, keyHash: string): Promise<Row> {
    await this.db
      .updateTable('api_keys')
      .set({ key_hash: keyHash })
      .where('id', '=', row.id)
      .where('key_hash', '=', row.key_hash)
      .execute();
    return { ...row, key_hash: keyHash };
  }
}
