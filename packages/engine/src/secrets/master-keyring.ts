import { createHash, randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { AppError, errorMessage } from '@tributary/contracts';
import { makePrivateDir, tightenFile } from './private-files.js';

/** One 256-bit master key and the id recorded beside every value sealed with it. */
export interface MasterKey {
  readonly id: string;
  readonly key: Buffer;
}

/** Where the keys came from: a variable, the operator's file, or the file generated in the data directory. */
export type KeySource =
  | { readonly kind: 'env'; readonly variable: string }
  | { readonly kind: 'file'; readonly file: string; readonly inDataDir: boolean };

export const MASTER_KEY_VARIABLE = 'TRIBUTARY_MASTER_KEY';
export const MASTER_KEY_FILE_VARIABLE = 'TRIBUTARY_MASTER_KEY_FILE';
export const DEFAULT_KEY_FILE = 'master.key';

/**
 * The id is a digest of the key, so the same key has the same id in every process and in every
 * copy of the key file, whatever order the keys are listed in; it reveals nothing of the key.
 */
export const keyIdOf = (key: Buffer): string =>
  createHash('sha256').update('tributary master key id\0').update(key).digest('hex').slice(0, 16);

/** A fresh key, as a key file or TRIBUTARY_MASTER_KEY holds it. */
export const newKeyText = (): string => randomBytes(32).toString('base64');

const HEX_KEY = /^[0-9a-fA-F]{64}$/;
const BASE64_KEY = /^[A-Za-z0-9+/]{43}=?$/;

/** Parses a list of keys (one a line, or comma-separated), the active one first; never echoes a value. */
export function parseKeys(text: string, where: string): MasterKey[] {
  const items = text
    .split(/[\s,]+/)
    .map((item) => item.trim())
    .filter((item) => item.length > 0 && !item.startsWith('#'));
  if (items.length === 0)
    throw new AppError('MASTER_KEY_INVALID', `${where} holds no key: give 32 random bytes as base64 or hex`, {
      field: where,
    });
  const keys: MasterKey[] = [];
  items.forEach((item, index) => {
    const key = HEX_KEY.test(item)
      ? Buffer.from(item, 'hex')
      : BASE64_KEY.test(item)
        ? Buffer.from(item, 'base64')
        : null;
    if (key === null || key.length !== 32)
      throw new AppError(
        'MASTER_KEY_INVALID',
        `${where}: key ${index + 1} of ${items.length} is not a 256-bit key; give 32 random bytes as base64 (44 characters) or hex (64 characters), such as the output of \`openssl rand -base64 32\``,
        { field: where },
      );
    const id = keyIdOf(key);
    if (!keys.some((known) => known.id === id)) keys.push({ id, key });
  });
  return keys;
}

/** Writes a key file whole or not at all (a crash leaves the old one), readable by its owner only. */
export function writeKeyFile(file: string, keys: readonly string[]): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${keys.join('\n')}\n`, { mode: 0o600 });
  const handle = openSync(temporary, 'r');
  try {
    fsyncSync(handle);
  } finally {
    closeSync(handle);
  }
  renameSync(temporary, file);
  const folder = openSync(path.dirname(file), 'r');
  try {
    fsyncSync(folder);
  } finally {
    closeSync(folder);
  }
}

export interface KeyringOptions {
  readonly dataDir: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly log: (message: string) => void;
}

/**
 * The master keys: the first one seals, every one opens. Rotation (`tributary keys rotate`) puts a
 * new key first, re-seals every value under it, then drops the others. A keyring read from a file
 * reads it again when the file changes, so a server that runs through a rotation seals with the new
 * key and opens values sealed with it.
 */
export class MasterKeyring {
  private keys: MasterKey[];
  private stamp: string;

  private constructor(
    readonly source: KeySource,
    private readonly read: () => MasterKey[],
    private readonly log: (message: string) => void,
  ) {
    this.stamp = this.fileStamp();
    this.keys = read();
  }

  /** TRIBUTARY_MASTER_KEY, TRIBUTARY_MASTER_KEY_FILE, or `master.key` in the data directory (made on first start). */
  static load(options: KeyringOptions): MasterKeyring {
    const inline = options.env[MASTER_KEY_VARIABLE];
    const file = options.env[MASTER_KEY_FILE_VARIABLE];
    if (inline && file)
      throw new AppError(
        'MASTER_KEY_INVALID',
        `set ${MASTER_KEY_VARIABLE} or ${MASTER_KEY_FILE_VARIABLE}, not both: which keys to use would be a guess`,
        { field: MASTER_KEY_VARIABLE },
      );
    if (inline)
      return new MasterKeyring(
        { kind: 'env', variable: MASTER_KEY_VARIABLE },
        () => parseKeys(inline, MASTER_KEY_VARIABLE),
        options.log,
      );
    if (file) {
      const resolved = path.resolve(file);
      if (!existsSync(resolved))
        throw new AppError(
          'MASTER_KEY_INVALID',
          `${MASTER_KEY_FILE_VARIABLE}: ${resolved} does not exist; create it with \`openssl rand -base64 32 > ${resolved}\` (mode 0600), or unset the variable`,
          { field: MASTER_KEY_FILE_VARIABLE },
        );
      if ((statSync(resolved).mode & 0o077) !== 0)
        options.log(`master key file ${resolved} can be read by other users: chmod 600 it`);
      return new MasterKeyring(
        { kind: 'file', file: resolved, inDataDir: false },
        () => parseKeys(readFileSync(resolved, 'utf8'), `${MASTER_KEY_FILE_VARIABLE} (${resolved})`),
        options.log,
      );
    }
    const local = path.join(options.dataDir, DEFAULT_KEY_FILE);
    // Callers load the keyring before they make the data directory, so a bad key in the
    // environment creates nothing; only this default needs the directory.
    makePrivateDir(options.dataDir, options.log);
    try {
      // `wx`: two processes starting at once on a new data directory keep the first one's key.
      writeFileSync(local, `${newKeyText()}\n`, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    tightenFile(local, options.log);
    return new MasterKeyring(
      { kind: 'file', file: local, inDataDir: true },
      () => parseKeys(readFileSync(local, 'utf8'), local),
      options.log,
    );
  }

  /** A warning for the log when the key sits beside the data it protects, else null. */
  placementWarning(): string | null {
    if (this.source.kind !== 'file' || !this.source.inDataDir) return null;
    return `the master key is in the data directory (${this.source.file}), so a copy of the directory holds the key beside the secrets it protects: move it elsewhere and set ${MASTER_KEY_FILE_VARIABLE}, or give it in ${MASTER_KEY_VARIABLE} (docs/operations.md#master-key)`;
  }

  /** The key new values are sealed with. */
  active(): MasterKey {
    this.refresh();
    const [first] = this.keys;
    if (!first) throw new AppError('MASTER_KEY_INVALID', 'the keyring is empty');
    return first;
  }

  /** Every key, the active one first. */
  all(): readonly MasterKey[] {
    this.refresh();
    return this.keys;
  }

  find(id: string): MasterKey | undefined {
    this.refresh();
    return this.keys.find((key) => key.id === id);
  }

  /** Reads a key file again when it changed since it was read (nothing to do for a variable). */
  refresh(): void {
    if (this.source.kind !== 'file') return;
    let stamp: string;
    let keys: MasterKey[];
    try {
      stamp = this.fileStamp();
      if (stamp === this.stamp) return;
      keys = this.read();
    } catch (error) {
      // A file moved away or half edited must not stop a running server: it keeps the keys it has
      // and reads the file again at the next use.
      const failure = `${this.source.file} cannot be read again (${errorMessage(error)}): keeping the keys read before`;
      if (failure !== this.lastFailure) this.log(failure);
      this.lastFailure = failure;
      return;
    }
    this.keys = keys;
    this.stamp = stamp;
    this.lastFailure = null;
  }

  private lastFailure: string | null = null;

  private fileStamp(): string {
    if (this.source.kind !== 'file') return '';
    const stat = statSync(this.source.file, { bigint: true });
    return `${stat.ino}:${stat.size}:${stat.mtimeNs}`;
  }
}
