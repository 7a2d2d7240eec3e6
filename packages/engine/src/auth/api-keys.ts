import { createHash } from 'node:crypto';
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

const hashOf = (key: string): string => createHash('sha256').update(key).digest('hex');

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

/** API keys: shown once when created, stored only as SHA-256 hashes; revoked, never deleted. */
export class ApiKeys {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: () => number,
  ) {}

  /** Creates a key and returns it in clear; this is the only time it exists in clear. */
  async create(
    name: string,
    plain: string = `${API_KEY_PREFIX}${newSecretToken()}${newSecretToken()}`,
  ): Promise<{ key: string; record: ApiKeyRecord }> {
    const record = {
      id: newId('key'),
      name,
      key_hash: hashOf(plain),
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
    const row = await this.db
      .selectFrom('api_keys')
      .selectAll()
      .where('key_hash', '=', hashOf(plain))
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    if (!row) return null;
    const now = this.now();
    if (row.last_used_at === null || now - row.last_used_at >= LAST_USED_RESOLUTION_MS) {
      await this.db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', row.id).execute();
      return toRecord({ ...row, last_used_at: now });
    }
    return toRecord(row);
  }
}
