import { createHash } from 'node:crypto';
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
}

const hashOf = (key: string): string => createHash('sha256').update(key).digest('hex');

/** API keys: shown once when created, stored only as SHA-256 hashes. */
export class ApiKeys {
  constructor(private readonly db: Kysely<Database>, private readonly now: () => number) {}

  /** Creates a key and returns it in clear; this is the only time it exists in clear. */
  async create(name: string, plain: string = `${API_KEY_PREFIX}${newSecretToken()}${newSecretToken()}`): Promise<{ key: string; record: ApiKeyRecord }> {
    const record = { id: newId('key'), name, key_hash: hashOf(plain), key_prefix: plain.slice(0, 8), created_at: this.now(), last_used_at: null, revoked_at: null };
    await this.db.insertInto('api_keys').values(record).onConflict((conflict) => conflict.column('key_hash').doNothing()).execute();
    return { key: plain, record: { id: record.id, name, prefix: record.key_prefix, createdAt: record.created_at, lastUsedAt: null } };
  }

  async count(): Promise<number> {
    const row = await this.db.selectFrom('api_keys').select((eb) => eb.fn.countAll<number>().as('n')).where('revoked_at', 'is', null).executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** The key's record when it is valid, else null. */
  async verify(plain: string): Promise<ApiKeyRecord | null> {
    const row = await this.db.selectFrom('api_keys').selectAll().where('key_hash', '=', hashOf(plain)).where('revoked_at', 'is', null).executeTakeFirst();
    if (!row) return null;
    return { id: row.id, name: row.name, prefix: row.key_prefix, createdAt: row.created_at, lastUsedAt: row.last_used_at };
  }
}
