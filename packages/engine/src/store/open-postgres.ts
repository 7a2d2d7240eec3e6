import { AppError } from '@tributary/contracts';
import { Kysely, Migrator, PostgresDialect, sql, type MigrationProvider } from 'kysely';
import pg from 'pg';
import { describeDatabaseUrl } from './database-url.js';
import { migrationsFor } from './migrations.js';
import type { Database } from './schema.js';

export interface OpenPostgresOptions {
  /** `postgres://user:password@host:port/database` */
  readonly url: string;
  /** Connections in this process's pool. */
  readonly poolSize?: number;
  /** Where a connection that breaks while idle is reported (the pool replaces it). */
  readonly log: (message: string) => void;
}

/**
 * `bigint` (int8) columns as JS numbers: times in epoch milliseconds and `seq` ids. A number is
 * exact up to 2^53, which epoch milliseconds reach in the year 287396 and a sequence growing a
 * million a second in 285 years; past it the parser throws rather than round silently.
 * Set on this pool only, so other users of `pg` in the process keep its default (strings).
 */
function parseInt8(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value))
    throw new Error(`a bigint value ${text} is beyond 2^53, what the store reads exactly`);
  return value;
}

const TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.INT8 && format !== 'binary'
      ? parseInt8
      : pg.types.getTypeParser(oid, format ?? 'text')) as pg.CustomTypesConfig['getTypeParser'],
};

/**
 * Opens the store on PostgreSQL (a `pg` pool under Kysely) and brings its schema up to date with
 * the migrations SQLite gets (Kysely's migrator holds an advisory lock, so processes starting
 * together migrate once). A database that cannot be reached is `DATABASE_UNREACHABLE`, naming the
 * host and never the password.
 */
export async function openPostgres(options: OpenPostgresOptions): Promise<Kysely<Database>> {
  const pool = new pg.Pool({ connectionString: options.url, max: options.poolSize ?? 10, types: TYPES });
  // An idle connection the server dropped emits 'error' on the pool; unhandled, that would end the
  // process. The pool discards it and connects anew on the next query.
  pool.on('error', (error) => options.log(`a PostgreSQL connection broke while idle: ${error.message}`));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  try {
    await sql`select 1`.execute(db);
  } catch (error) {
    await db.destroy();
    const reason = reasonOf(error);
    throw new AppError(
      'DATABASE_UNREACHABLE',
      `cannot reach PostgreSQL at ${describeDatabaseUrl(options.url)}: ${reason}`,
      { database: describeDatabaseUrl(options.url) },
      { cause: error },
    );
  }
  const provider: MigrationProvider = { getMigrations: () => Promise.resolve(migrationsFor('postgres')) };
  const { error } = await new Migrator({ db, provider }).migrateToLatest();
  if (error) {
    await db.destroy();
    // 42501 insufficient_privilege: typically PostgreSQL 15+, where a user that does not own the
    // database may no longer create tables in `public`. The operator's to fix, not a bug.
    if ((error as { code?: unknown }).code === '42501') {
      throw new AppError(
        'DATABASE_NOT_WRITABLE',
        `the PostgreSQL user may not create the tables in ${describeDatabaseUrl(options.url)}: ${reasonOf(error)}; make it the database's owner or grant it CREATE on the schema`,
        { database: describeDatabaseUrl(options.url) },
        { cause: error },
      );
    }
    throw error instanceof Error ? error : new Error(String(error));
  }
  return db;
}

/** Node reports a refused connection to a name with several addresses as an AggregateError with no message. */
function reasonOf(error: unknown): string {
  if (error instanceof AggregateError && !error.message) return error.errors.map(reasonOf).join('; ');
  if (error instanceof Error) return error.message || ((error as { code?: string }).code ?? error.name);
  return String(error);
}
