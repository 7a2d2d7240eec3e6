import type { NewInvocation } from '../ports/invocation-queue.js';
import type { Kysely } from 'kysely';
import type { SourceCommit, SourceState, Store, StoredSource } from '../ports/store.js';
import { EventLogReads } from './event-log-reads.js';
import type { Database } from './schema.js';
import { settle } from './settle.js';
import { sourceGone } from './source-gone.js';
import type { SqliteWrites } from './sqlite-writes.js';

export interface SqliteStoreOptions {
  readonly db: Kysely<Database>;
  readonly writes: SqliteWrites;
}

/**
 * The `Store` on the embedded SQLite file: commits and source writes are synchronous prepared
 * statements in one better-sqlite3 transaction (the hot path), reads go through Kysely.
 */
export class SqliteStore extends EventLogReads implements Store {
  constructor(private readonly options: SqliteStoreOptions) {
    super(options.db);
  }

  getSource(id: string): Promise<StoredSource | undefined> {
    return settle(() => this.options.writes.getSource(id));
  }

  findEndpoint(endpointId: string): Promise<{ id: string; customResponse: boolean } | null> {
    return settle(() => {
      const row = this.options.writes.findEndpoint(endpointId);
      return row ? { id: row.id, customResponse: row.custom_response === 1 } : null;
    });
  }

  readState(sourceId: string): Promise<SourceState> {
    return settle(() => this.options.writes.readState(sourceId));
  }

  commit(
    commit: SourceCommit,
    options: { readonly dequeue?: readonly string[]; readonly enqueue?: readonly NewInvocation[] } = {},
  ): Promise<number[]> {
    const writes = this.options.writes;
    return settle(() =>
      writes.commit(commit, () => {
        if (!writes.hasSource(commit.sourceId)) throw sourceGone(commit.sourceId);
        for (const id of options.dequeue ?? []) {
          // Throwing rolls the whole transaction back: results of an invocation someone else
          // already committed are not stored a second time.
          if (!writes.deleteInvocation(id)) throw new Error(`invocation ${id} is no longer queued`);
        }
        for (const item of options.enqueue ?? []) writes.enqueue(item);
      }),
    );
  }

  insertSource(row: StoredSource, commit: SourceCommit): Promise<number[]> {
    return settle(() => this.options.writes.insertSource(row, commit));
  }

  updateSource(row: StoredSource, commit: SourceCommit): Promise<number[]> {
    return settle(() => this.options.writes.updateSource(row, commit));
  }

  deleteSource(sourceId: string): Promise<void> {
    return settle(() => this.options.writes.deleteSource(sourceId));
  }
}
