import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { AppError } from '@tributary/contracts';

const VERSION = 'v1';

/**
 * AES-256-GCM encryption of secret prop values (and, later, connected-account credentials) with a
 * master key kept in the data directory (mode 0600). Each value gets its own random IV; the
 * auth tag makes any change to the stored text fail to decrypt.
 */
export class SecretBox {
  private constructor(private readonly key: Buffer) {}

  /** Loads the master key file, creating it on first start. */
  static fromKeyFile(file: string): SecretBox {
    if (!existsSync(file)) {
      writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600 });
    }
    chmodSync(file, 0o600);
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new AppError('INTERNAL', `${file} does not hold a 256-bit key`);
    return new SecretBox(key);
  }

  encrypt(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join(':');
  }

  decrypt(sealed: string): string {
    const [version, iv, tag, body] = sealed.split(':');
    if (version !== VERSION || !iv || !tag || body === undefined)
      throw new AppError('INTERNAL', 'a stored secret is not in a known format');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
  }
}
