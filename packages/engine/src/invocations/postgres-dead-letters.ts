import type { Kysely } from 'kysely';
import type { DeadLetter, DeadLetterList, DeadLetterQuery } from '../ports/dead-letter-list.js';
import type { Database } from '../store/schema.js';
import { deleteDeadLetter, getDeadLetter, listDeadLetters } from './dead-letter-queries.js';
import { insertInvocations } from './queue-queries.js';

/** The dead-letter list in PostgreSQL's `dead_letters`, newest failure first (by its `seq`). */
export class PostgresDeadLetters implements DeadLetterList {
  constructor(
    private readonly options: {
      readonly db: Kysely<Database>;
      readonly now: () => number;
    },
  ) {}

  list(query: DeadLetterQuery): Promise<{ data: DeadLetter[]; total: number }> {
    return listDeadLetters(this.options.db, 'seq', query);
  }

  get(id: string): Promise<DeadLetter | null> {
    return getDeadLetter(this.options.db, id);
  }

  retry(id: string): Promise<boolean> {
    return this.options.db.transaction().execute(async (trx) => {
      // The delete takes the row: of two retries at once, one gets it and the other nothing.
      const row = await trx.deleteFrom('dead_letters').where('id', '=', id).returningAll().executeTakeFirst();
      if (!row) return false;
      // Back at the end of its source's queue, attempts from zero: an operator's retry is a new start.
      await insertInvocations(trx, [
        { id: row.id, sourceId: row.source_id, trigger: row.trigger, event: row.event, createdAt: this.options.now() },
      ]);
      return true;
    });
  }

  delete(id: string): Promise<boolean> {
    return deleteDeadLetter(this.options.db, id);
  }
}
