import { AppError } from '@tributary/contracts';
import type SqliteDatabase from 'better-sqlite3';
import type { DeadLetter, DeadLetterList, DeadLetterQuery } from '../ports/dead-letter-list.js';
import type { Trigger } from '../ports/invocation-queue.js';
import { settle } from '../store/settle.js';
import type { SqliteWrites } from '../store/sqlite-writes.js';

interface Row {
  id: string;
  source_id: string;
  trigger: Trigger;
  event: string;
  attempts: number;
  last_error: string;
  created_at: number;
  failed_at: number;
}

/** The dead-letter list in the `dead_letters` table, newest failure first (by rowid). */
export class SqliteDeadLetters implements DeadLetterList {
  private readonly statements;

  constructor(
    private readonly options: {
      readonly raw: SqliteDatabase.Database;
      readonly writes: SqliteWrites;
      readonly now: () => number;
    },
  ) {
    const prepare = (text: string) => options.raw.prepare(text);
    this.statements = {
      insert: prepare(
        'INSERT INTO dead_letters (id, source_id, trigger, event, attempts, last_error, created_at, failed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      get: prepare('SELECT * FROM dead_letters WHERE id = ?'),
      rowidOf: prepare('SELECT rowid FROM dead_letters WHERE id = ?'),
      remove: prepare('DELETE FROM dead_letters WHERE id = ?'),
      deleteInvocation: prepare('DELETE FROM invocations WHERE id = ?'),
    };
  }

  /** Moves a queued invocation here (inside the caller's transaction). */
  bury(row: Omit<Row, 'failed_at'>, failedAt: number): void {
    this.statements.deleteInvocation.run(row.id);
    this.statements.insert.run(
      row.id,
      row.source_id,
      row.trigger,
      row.event,
      row.attempts,
      row.last_error,
      row.created_at,
      failedAt,
    );
  }

  list(query: DeadLetterQuery): Promise<{ data: DeadLetter[]; total: number }> {
    return settle(() => {
      const where: string[] = [];
      const params: (string | number)[] = [];
      if (query.sourceId !== undefined) {
        where.push('source_id = ?');
        params.push(query.sourceId);
      }
      const filter = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
      const total = (
        this.options.raw.prepare(`SELECT count(*) AS n FROM dead_letters ${filter}`).get(...params) as { n: number }
      ).n;
      if (query.before !== undefined) {
        const cursor = this.statements.rowidOf.get(query.before) as { rowid: number } | undefined;
        if (!cursor)
          throw new AppError('NOT_FOUND', `query.before: no dead letter "${query.before}"`, {
            field: 'query.before',
          });
        where.push('rowid < ?');
        params.push(cursor.rowid);
      }
      const page = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
      const rows = this.options.raw
        .prepare(`SELECT * FROM dead_letters ${page} ORDER BY rowid DESC LIMIT ?`)
        .all(...params, query.limit) as Row[];
      return { data: rows.map(toDeadLetter), total };
    });
  }

  get(id: string): Promise<DeadLetter | null> {
    return settle(() => {
      const row = this.statements.get.get(id) as Row | undefined;
      return row ? toDeadLetter(row) : null;
    });
  }

  retry(id: string): Promise<boolean> {
    return settle(() =>
      this.options.raw.transaction(() => {
        const row = this.statements.get.get(id) as Row | undefined;
        if (!row) return false;
        this.statements.remove.run(id);
        // Back at the end of its source's queue, attempts from zero: an operator's retry is a new start.
        this.options.writes.enqueue({
          id: row.id,
          sourceId: row.source_id,
          trigger: row.trigger,
          event: row.event,
          createdAt: this.options.now(),
        });
        return true;
      })(),
    );
  }

  delete(id: string): Promise<boolean> {
    return settle(() => this.statements.remove.run(id).changes > 0);
  }
}

function toDeadLetter(row: Row): DeadLetter {
  return {
    id: row.id,
    sourceId: row.source_id,
    trigger: row.trigger,
    event: JSON.parse(row.event) as unknown,
    attempts: row.attempts,
    lastError: row.last_error,
    createdAt: row.created_at,
    failedAt: row.failed_at,
  };
}
