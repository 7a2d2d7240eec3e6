import type SqliteDatabase from 'better-sqlite3';

/**
 * Prepares each SQL text once per database and hands back the same statement after that.
 * better-sqlite3 compiles a statement on every `prepare`, which on the hot path of a workflow run
 * (a dozen statements per run) cost more than running them.
 */
export function statementCache(raw: SqliteDatabase.Database): (sql: string) => SqliteDatabase.Statement {
  const statements = new Map<string, SqliteDatabase.Statement>();
  return (sql) => {
    let statement = statements.get(sql);
    if (!statement) {
      statement = raw.prepare(sql);
      statements.set(sql, statement);
    }
    return statement;
  };
}
