import type SqliteDatabase from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { DeadLetter, DeadLetterList, DeadLetterQuery } from '../ports/dead-letter-list.js';
import type { Trigger } from '../ports/invocation-queue.js';
import type { Database } from '../store/schema.js';
import { settle } from '../store/settle.js';
import type { SqliteWrites } from '../store/sqlite-writes.js';
import { deleteDeadLetter, getDeadLetter, listDeadLetters } from './dead-letter-queries.js';

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

/**
 * The dead-letter list in the `dead_letters` table, newest failure first (by rowid). Moving rows in
 * and out of the queue is a synchronous transaction on the file; reads and deletes are shared.
 */
export class SqliteDeadLetters implements DeadLetterList {
  private readonly statements;

  constructor(
    private readonly options: {
      readonly raw: SqliteDatabase.Database;
      /** The same file through Kysely, for the reads the dialects share (dead-letter-queries.ts). */
      readonly db: Kysely<Database>;
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
    return listDeadLetters(this.options.db, 'rowid', query);
  }

  get(id: string): Promise<DeadLetter | null> {
    return getDeadLetter(this.options.db, id);
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
    return deleteDeadLetter(this.options.db, id);
  }
}
