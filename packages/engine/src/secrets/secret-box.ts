import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { AppError } from '@tributary/contracts';
import type { MasterKey, MasterKeyring } from './master-keyring.js';

/** Where a sealed value is stored: it opens only there (AES-GCM additional authenticated data). */
export interface SealedAt {
  readonly table: string;
  /** The row's key (for a composite key, the part that names the owner). */
  readonly row: string;
  /** The column, with the path inside a JSON column (`configured_props.api_key`). */
  readonly column: string;
}

/** `v2:<key id>:<iv>:<tag>:<ciphertext>`, bound to its place; `v1:<iv>:<tag>:<ciphertext>` came before, unbound. */
const CURRENT = 'v2';
const LEGACY = 'v1';

const describe = (at: SealedAt): string => `${at.table} "${at.row}" ${at.column}`;
const detailsOf = (at: SealedAt): { table: string; row: string; field: string } => ({
  table: at.table,
  row: at.row,
  field: at.column,
});
const aad = (at: SealedAt): Buffer =>
  Buffer.from(['tributary', CURRENT, at.table, at.row, at.column].join('\0'), 'utf8');

/** The key id a sealed value names, or null for a value sealed before key ids were recorded. */
export function sealedKeyId(sealed: string): string | null {
  if (!sealed.startsWith(`${CURRENT}:`)) return null;
  return sealed.split(':')[1] ?? null;
}

/**
 * AES-256-GCM sealing of secrets at rest: prop values marked secret, connected-account credentials,
 * OAuth client secrets and verifiers, webhook secrets, delivery configs. Each value gets a random
 * IV, records the id of the master key that sealed it (so keys can rotate), and is bound to the
 * table, row and column it is stored in: the auth tag fails if the text is changed or copied
 * elsewhere.
 */
export class SecretBox {
  constructor(readonly keyring: MasterKeyring) {}

  seal(plain: string, at: SealedAt): string {
    return sealWith(this.keyring.active(), plain, at);
  }

  open(sealed: string, at: SealedAt): string {
    if (sealed.startsWith(`${LEGACY}:`))
      throw new AppError(
        'SECRET_UNREADABLE',
        `the secret in ${describe(at)} was sealed by an older version and not upgraded; restart the server to upgrade it`,
        detailsOf(at),
      );
    return this.openAny(sealed, at);
  }

  /** Whether a value is sealed with the active key in the current format (nothing to re-seal). */
  isCurrent(sealed: string): boolean {
    return sealedKeyId(sealed) === this.keyring.active().id;
  }

  /**
   * Opens a value in any format this version knew, and seals it again under the active key: the
   * step of a rotation and of the upgrade from unbound `v1` values (which were in `at` already).
   */
  reseal(sealed: string, at: SealedAt): string {
    return this.seal(this.openAny(sealed, at), at);
  }

  private openAny(sealed: string, at: SealedAt): string {
    const parts = sealed.split(':');
    const [version] = parts;
    switch (version) {
      case LEGACY: {
        const [, iv, tag, body] = parts;
        if (parts.length !== 4 || iv === undefined || tag === undefined || body === undefined) break;
        // v1 values name no key: the one key of that time is whichever of the keyring's opens it.
        const keys = this.keyring.all();
        for (const key of keys.slice(0, -1)) {
          try {
            return decrypt(key.key, iv, tag, body, null, at);
          } catch {
            // The auth tag says it was another key.
          }
        }
        const last = keys.at(-1);
        if (!last) break;
        return decrypt(last.key, iv, tag, body, null, at);
      }
      case CURRENT: {
        const [, keyId, iv, tag, body] = parts;
        if (parts.length !== 5 || !keyId || iv === undefined || tag === undefined || body === undefined) break;
        const key = this.keyring.find(keyId);
        if (!key)
          throw new AppError(
            'SECRET_UNREADABLE',
            `the secret in ${describe(at)} was sealed with master key ${keyId}, which is not among the keys given (${sourceName(this.keyring)}); give that key too`,
            { ...detailsOf(at), key_id: keyId },
          );
        return decrypt(key.key, iv, tag, body, aad(at), at);
      }
    }
    throw new AppError('SECRET_UNREADABLE', `the secret in ${describe(at)} is not in a known format`, detailsOf(at));
  }
}

function sealWith(key: MasterKey, plain: string, at: SealedAt): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key.key, iv);
  cipher.setAAD(aad(at));
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return [CURRENT, key.id, iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join(
    ':',
  );
}

function decrypt(key: Buffer, iv: string, tag: string, body: string, bound: Buffer | null, at: SealedAt): string {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
    if (bound) decipher.setAAD(bound);
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
  } catch {
    throw new AppError(
      'SECRET_UNREADABLE',
      `the secret in ${describe(at)} does not decrypt: it was changed, or copied there from another row or column`,
      detailsOf(at),
    );
  }
}

function sourceName(keyring: MasterKeyring): string {
  const source = keyring.source;
  switch (source.kind) {
    case 'env':
      return source.variable;
    case 'file':
      return source.file;
  }
}
