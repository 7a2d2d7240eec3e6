import { AppError } from '@tributary/contracts';
import type { Kysely, Selectable } from 'kysely';
import type { DeadLetter, DeadLetterList, DeadLetterQuery } from '../ports/dead-letter-list.js';
import type { PostgresTables } from '../store/postgres-schema.js';
import type { Database } from '../store/schema.js';
import { insertInvocations } from './queue-queries.js';

/** The dead-letter list in PostgreSQL's `dead_letters`, newest failure first (by its `seq`). */
export class PostgresDeadLetters implements DeadLetterList {
  private readonly pg;

  constructor(
    private readonly options: {
      readonly db: Kysely<Database>;
      readonly now: () => number;
    },
  ) {
    this.pg = options.db.withTables<PostgresTables>();
  }

  async list(query: DeadLetterQuery): Promise<{ data: DeadLetter[]; total: number }> {
    let count = this.pg.selectFrom('dead_letters').select((eb) => eb.fn.countAll<number>().as('n'));
    let page = this.pg.selectFrom('dead_letters').selectAll();
    if (query.sourceId !== undefined) {
      count = count.where('source_id', '=', query.sourceId);
      page = page.where('source_id', '=', query.sourceId);
    }
    if (query.before !== undefined) {
      const cursor = await this.pg
        .selectFrom('dead_letters')
        .select('seq')
        .where('id', '=', query.before)
        .executeTakeFirst();
      if (!cursor)
        throw new AppError('NOT_FOUND', `query.before: no dead letter "${query.before}"`, { field: 'query.before' });
      page = page.where('seq', '<', cursor.seq);
    }
    const [total, rows] = await Promise.all([
      count.executeTakeFirst(),
      page.orderBy('seq', 'desc').limit(query.limit).execute(),
    ]);
    return { data: rows.map(toDeadLetter), total: Number(total?.n ?? 0) };
  }

  async get(id: string): Promise<DeadLetter | null> {
    const row = await this.options.db.selectFrom('dead_letters').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toDeadLetter(row) : null;
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

  async delete(id: string): Promise<boolean> {
    const result = await this.options.db.deleteFrom('dead_letters').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}

function toDeadLetter(row: Selectable<Database['dead_letters']>): DeadLetter {
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
