import { existsSync } from 'node:fs';
import path from 'node:path';
import { AppError } from '@tributary/contracts';
import { openBackend } from '../store/open-backend.js';
import { MasterKeyring, newKeyText, writeKeyFile, type KeySource } from './master-keyring.js';
import { makePrivateDir } from './private-files.js';
import { resealAll } from './reseal-all.js';
import { SecretBox } from './secret-box.js';

export interface RotateKeysOptions {
  readonly dataDir: string;
  /** PostgreSQL instead of the SQLite file in `dataDir`, as `tributary start` takes it. */
  readonly databaseUrl?: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly log: (message: string) => void;
  readonly now?: () => number;
}

export interface RotationReport {
  /** The key every secret is sealed with now. */
  readonly activeKeyId: string;
  /** Keys no value is sealed with any more: removed from a key file, to be removed from the variable. */
  readonly retiredKeyIds: readonly string[];
  /** Whether this run made the new key, or finished a rotation an earlier run started. */
  readonly started: boolean;
  readonly resealed: Readonly<Record<string, number>>;
  readonly total: number;
  readonly source: KeySource;
}

/**
 * `tributary keys rotate`. With one key in a key file: a new key is put first in the file (the old
 * one stays, so everything stays readable), every secret is re-sealed under it, then the old key is
 * removed. With several keys given (a key file a crashed rotation left, or TRIBUTARY_MASTER_KEY with
 * the new key first), it re-seals under the first and retires the rest. Running it again after a
 * crash therefore finishes the rotation it started, without making another key.
 */
export async function rotateKeys(options: RotateKeysOptions): Promise<RotationReport> {
  refuseWithoutSqliteData(options);
  const keyring = MasterKeyring.load({ dataDir: options.dataDir, env: options.env, log: options.log });
  makePrivateDir(options.dataDir, options.log);
  const source = keyring.source;
  const started = keyring.all().length === 1;
  if (started) {
    switch (source.kind) {
      case 'env':
        throw new AppError(
          'KEY_ROTATION_REFUSED',
          `${source.variable} holds one key: put the new key first and keep the old one after a comma (${source.variable}=<new>,<old>; make one with \`openssl rand -base64 32\`), restart the servers with it, then run keys rotate`,
          { field: source.variable },
        );
      case 'file':
        try {
          writeKeyFile(source.file, [newKeyText(), ...keyring.all().map((key) => key.key.toString('base64'))]);
        } catch (error) {
          throw new AppError(
            'KEY_ROTATION_REFUSED',
            `cannot write the new key to ${source.file} (${(error as NodeJS.ErrnoException).code ?? String(error)}): rotate with the file writable, or give the keys in a file you can write`,
            { file: source.file },
          );
        }
        keyring.refresh();
        if (keyring.all().length < 2)
          throw new AppError('KEY_ROTATION_REFUSED', `${source.file} does not hold the new key after writing it`, {
            file: source.file,
          });
    }
  }
  const box = new SecretBox(keyring);
  const active = keyring.active();
  options.log(
    started
      ? `new master key ${active.id}: re-sealing every secret under it`
      : `finishing the rotation to master key ${active.id} (the first of ${keyring.all().length} keys)`,
  );
  const backend = await openBackend({
    dataDir: options.dataDir,
    now: options.now ?? Date.now,
    log: options.log,
    ...(options.databaseUrl ? { databaseUrl: options.databaseUrl } : {}),
  });
  let report;
  try {
    await resealAll({ db: backend.db, box, mode: 'legacy' });
    report = await resealAll({ db: backend.db, box, mode: 'rotate' });
  } finally {
    await backend.close();
  }
  const retiredKeyIds = keyring
    .all()
    .filter((key) => key.id !== active.id)
    .map((key) => key.id);
  if (source.kind === 'file') writeKeyFile(source.file, [active.key.toString('base64')]);
  return { activeKeyId: active.id, retiredKeyIds, started, ...report, source };
}

/**
 * A mistyped `--data-dir` would otherwise create an empty database and a fresh master key there,
 * report "0 re-sealed" as a success, and leave the real data untouched under its old key.
 */
function refuseWithoutSqliteData(options: RotateKeysOptions): void {
  if (options.databaseUrl) return;
  const file = path.join(options.dataDir, 'tributary.db');
  if (existsSync(file)) return;
  throw new AppError(
    'KEY_ROTATION_REFUSED',
    `no Tributary database in ${options.dataDir} (${file} does not exist): give the server's data directory with --data-dir or TRIBUTARY_DATA_DIR, or its PostgreSQL database with --database-url`,
    { field: 'data_dir', data_dir: options.dataDir },
  );
}
