import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { newId, newSecretToken } from '../ids.js';
import type { Database } from '../store/schema.js';
import type { ApiKeyRecord, ApiKeys } from './api-keys.js';

/** How long a browser stays signed in without signing in again (docs/rest-api.md#browser-sessions). */
export const BROWSER_SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export interface BrowserSession {
  readonly id: string;
  readonly apiKey: Pick<ApiKeyRecord, 'id' | 'name' | 'prefix'>;
  readonly createdAt: number;
  readonly expiresAt: number;
}

export interface BrowserSessionsOptions {
  readonly db: Kysely<Database>;
  readonly apiKeys: ApiKeys;
  readonly now: () => number;
  readonly ttlMs?: number;
}

// A plain SHA-256, not the API keys' keyed HMAC: a session token is about 285 random bits
// made here, never chosen by a person, so a copy of the table gives nothing to test guesses
// against; the HMAC's pepper guards API keys an operator may set by hand (TRIBUTARY_ADMIN_KEY).
const hashOf = (token: string): string => createHash('sha256').update(token).digest('hex');

/**
 * Sign-in sessions of the web app: a browser trades an API key for a session token it keeps in an
 * HttpOnly cookie, so the key itself never sits in page storage. Only the token's SHA-256 is
 * stored; a session ends when it expires, is signed out, or its API key is revoked.
 */
export class BrowserSessions {
  private readonly ttlMs: number;

  constructor(private readonly options: BrowserSessionsOptions) {
    this.ttlMs = options.ttlMs ?? BROWSER_SESSION_TTL_MS;
  }

  /** A new session for a valid API key, with its token in clear (the only time it exists so); null for a bad key. */
  async create(apiKey: string): Promise<{ token: string; session: BrowserSession } | null> {
    const record = await this.options.apiKeys.verify(apiKey);
    if (!record) return null;
    const now = this.options.now();
    // Expired sessions are never valid again; dropping them here keeps the table to live ones.
    await this.options.db.deleteFrom('browser_sessions').where('expires_at', '<=', now).execute();
    const token = `${newSecretToken()}${newSecretToken()}`;
    const row = {
      id: newId('ses'),
      token_hash: hashOf(token),
      api_key_id: record.id,
      created_at: now,
      expires_at: now + this.ttlMs,
      revoked_at: null,
    };
    await this.options.db.insertInto('browser_sessions').values(row).execute();
    return {
      token,
      session: {
        id: row.id,
        apiKey: { id: record.id, name: record.name, prefix: record.prefix },
        createdAt: row.created_at,
        expiresAt: row.expires_at,
      },
    };
  }

  /** The session of a token while it is live and its API key is not revoked, else null. */
  async verify(token: string): Promise<BrowserSession | null> {
    const row = await this.options.db
      .selectFrom('browser_sessions as s')
      .innerJoin('api_keys as k', 'k.id', 's.api_key_id')
      .select(['s.id', 's.created_at', 's.expires_at', 'k.id as key_id', 'k.name as key_name', 'k.key_prefix'])
      .where('s.token_hash', '=', hashOf(token))
      .where('s.revoked_at', 'is', null)
      .where('s.expires_at', '>', this.options.now())
      .where('k.revoked_at', 'is', null)
      .executeTakeFirst();
    if (!row) return null;
    return {
      id: row.id,
      apiKey: { id: row.key_id, name: row.key_name, prefix: row.key_prefix },
      createdAt: row.created_at,
      expiresAt: row.expires_at,
    };
  }

  /** Signs a session out: its token gets 401 from now on. Unknown or ended tokens are ignored. */
  async revoke(token: string): Promise<void> {
    await this.options.db
      .updateTable('browser_sessions')
      .set({ revoked_at: this.options.now() })
      .where('token_hash', '=', hashOf(token))
      .where('revoked_at', 'is', null)
      .execute();
  }
}
