import { insertInvocations } from '../invocations/queue-queries.js';
import type { NewInvocation } from '../ports/invocation-queue.js';
import type { Kysely } from 'kysely';
import type { SourceCommit, SourceState, Store, StoredSource } from '../ports/store.js';
import { EventLogReads } from './event-log-reads.js';
import type { Database } from './schema.js';
import { sourceGone } from './source-gone.js';
import {
  deleteSourceRows,
  dequeue,
  findEndpoint,
  getSource,
  insertSourceRow,
  readState,
  updateSourceRow,
  writeCommit,
} from './source-writes.js';

export interface PostgresStoreOptions {
  readonly db: Kysely<Database>;
  readonly eventBinSize: number;
  readonly logSize: number;
}

/**
 * The `Store` on PostgreSQL: every multi-statement write is one transaction (READ COMMITTED is
 * enough: a source's writes are serialised by the queue's claim, and a commit whose queue entries
 * another process already removed fails on the delete and rolls back whole).
 */
export class PostgresStore extends EventLogReads implements Store {
  private lastLookup: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: PostgresStoreOptions) {
    super(options.db);
  }

  getSource(id: string): Promise<StoredSource | undefined> {
    return getSource(this.options.db, id);
  }

  /**
   * Lookups run side by side on the pool but answer in the order they were asked: the ingress
   * looks the endpoint up as a request arrives, and requests to one source then reach the queue in
   * the order they arrived (on SQLite the lookup is synchronous and keeps that order by itself).
   */
  findEndpoint(endpointId: string): Promise<{ id: string; customResponse: boolean } | null> {
    const lookup = findEndpoint(this.options.db, endpointId);
    const inOrder = this.lastLookup.then(
      () => lookup,
      () => lookup,
    );
    this.lastLookup = inOrder.catch(() => undefined);
    return inOrder;
  }

  readState(sourceId: string): Promise<SourceState> {
    return readState(this.options.db, sourceId);
  }

  commit(
    commit: SourceCommit,
    options: { readonly dequeue?: readonly string[]; readonly enqueue?: readonly NewInvocation[] } = {},
  ): Promise<number[]> {
    return this.options.db.transaction().execute(async (trx) => {
      await holdSource(trx, commit.sourceId);
      await dequeue(trx, options.dequeue ?? []);
      await insertInvocations(trx, options.enqueue ?? []);
      return writeCommit(trx, commit, this.options);
    });
  }

  insertSource(row: StoredSource, commit: SourceCommit): Promise<number[]> {
    return this.options.db.transaction().execute(async (trx) => {
      await insertSourceRow(trx, row);
      return writeCommit(trx, commit, this.options);
    });
  }

  updateSource(row: StoredSource, commit: SourceCommit): Promise<number[]> {
    return this.options.db.transaction().execute(async (trx) => {
      await updateSourceRow(trx, row);
      return writeCommit(trx, commit, this.options);
    });
  }

  deleteSource(sourceId: string): Promise<void> {
    return this.options.db.transaction().execute((trx) => deleteSourceRows(trx, sourceId));
  }
}

/**
 * Refuses the commit when its source is gone, and keeps a delete from removing it until the commit
 * ends. Taken first, as the delete takes the source's row first (deleteSourceRows): of a commit and
 * a delete that overlap, the delete either waits and then removes what the commit wrote, or goes
 * first and the commit finds no row; both lock the row before the queue entries, so neither waits
 * for the other in a cycle. KEY SHARE does not wait for updates of the row (timers, `update`).
 */
async function holdSource(trx: Kysely<Database>, sourceId: string): Promise<void> {
  const row = await trx.selectFrom('sources').select('id').where('id', '=', sourceId).forKeyShare().executeTakeFirst();
  if (!row) throw sourceGone(sourceId);
}
