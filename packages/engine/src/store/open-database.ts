import { mkdirSync } from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect, type MigrationProvider } from 'kysely';
import { MIGRATIONS } from './migrations.js';
import type { Database } from './schema.js';

export interface OpenDatabaseOptions {
  /** The SQLite file; created (with its folder) when missing. */
  readonly file: string;
}

/**
 * Opens the embedded SQLite database and brings its schema up to date. WAL with synchronous=NORMAL:
 * a committed transaction survives the process being killed (only an OS crash could lose the last
 * ones), which is the durability the ingress acknowledges.
 */
export async function openDatabase(
  options: OpenDatabaseOptions,
): Promise<{ db: Kysely<Database>; raw: SqliteDatabase.Database }> {
  mkdirSync(path.dirname(options.file), { recursive: true });
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
