import { closeSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect, type MigrationProvider } from 'kysely';
import { MIGRATIONS } from './migrations.js';
import type { Database } from './schema.js';
import { tightenFile } from '../secrets/private-files.js';

export interface OpenDatabaseOptions {
  /** The SQLite file; created (with its folder) when missing. */
  readonly file: string;
  /** Where a line goes when an existing file was readable by others and is tightened. */
  readonly log?: (message: string) => void;
}

/**
 * Opens the embedded SQLite database and brings its schema up to date. WAL with synchronous=NORMAL:
 * a committed transaction survives the process being killed (only an OS crash could lose the last
 * ones), which is the durability the ingress acknowledges.
 */
export async function openDatabase(
  options: OpenDatabaseOptions,
): Promise<{ db: Kysely<Database>; raw: SqliteDatabase.Database }> {
  mkdirSync(path.dirname(options.file), { recursive: true, mode: 0o700 });
  // SQLite gives its -wal and -shm files the mode of the database file: made 0600 first, all are.
  closeSync(openSync(options.file, 'a', 0o600));
  for (const suffix of ['', '-wal', '-shm', '-journal'])
    tightenFile(`${options.file}${suffix}`, options.log ?? (() => {}));
  const raw = new SqliteDatabase(options.file);
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = NORMAL');
  raw.pragma('foreign_keys = ON');
  raw.pragma('busy_timeout = 5000');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: raw }) });
  const provider: MigrationProvider = { getMigrations: () => Promise.resolve(MIGRATIONS) };
  const { error } = await new Migrator({ db, provider }).migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return { db, raw };
}
