import type SqliteDatabase from 'better-sqlite3';
import type { Selectable } from 'kysely';
import type { DedupeState, Json } from '@tributary/runtime';
import type { SourceCommit } from '../ports/store.js';
import type { Database } from './schema.js';
import { sourceGone } from './source-gone.js';

type SourceRow = Selectable<Database['sources']>;
type InvocationRow = Selectable<Database['invocations']>;

export type { EventInsert, LogInsert, SourceCommit } from '../ports/store.js';

const SOURCE_COLUMNS = [
  'id',
  'component_id',
  'name',
  'name_slug',
  'active',
  'configured_props',
  'endpoint_id',
  'custom_response',
  'timer',
  'next_fire_at',
  'created_at',
  'updated_at',
] as const;

/**
 * Every multi-statement write of the engine, as prepared statements run in synchronous
 * better-sqlite3 transactions. A synchronous transaction cannot interleave with anything else on
 * the connection (an async one could absorb another request's statements), and prepared statements
 * skip per-call query building on the hot paths: the ingress, the queue and commits.
 * Kysely remains for reads and single-statement writes.
 */
export class SqliteWrites {
  private readonly statements;

  constructor(
    private readonly raw: SqliteDatabase.Database,
    private readonly eventBinSize: number,
    private readonly logSize: number,
  ) {
    const prepare = (text: string) => raw.prepare(text);
    this.statements = {
      findEndpoint: prepare('SELECT id, custom_response FROM sources WHERE endpoint_id = ? AND active = 1'),
      getSource: prepare('SELECT * FROM sources WHERE id = ?'),
      hasSource: prepare('SELECT 1 FROM sources WHERE id = ?'),
      readState: prepare('SELECT db, dedupe FROM source_state WHERE source_id = ?'),
      insertInvocation: prepare(
        "INSERT INTO invocations (id, source_id, trigger, event, status, attempts, created_at, started_at, not_before) VALUES (?, ?, ?, ?, 'queued', 0, ?, NULL, 0)",
      ),
      sourcesWithWork: prepare(
        "SELECT source_id FROM invocations WHERE status = 'queued' GROUP BY source_id ORDER BY min(rowid)",
      ),
      oldestOfSource: prepare(
        "SELECT * FROM invocations WHERE status = 'queued' AND source_id = ? ORDER BY created_at, rowid LIMIT ?",
      ),
      deleteInvocation: prepare('DELETE FROM invocations WHERE id = ?'),
      insertEvent: prepare('INSERT INTO events (source_id, id, indexed_at_ms, event, metadata) VALUES (?, ?, ?, ?, ?)'),
      trimEvents: prepare(
        'DELETE FROM events WHERE source_id = ? AND seq <= (SELECT seq FROM events WHERE source_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)',
      ),
      insertLog: prepare('INSERT INTO logs (source_id, invocation_id, ts, level, message) VALUES (?, ?, ?, ?, ?)'),
      trimLogs: prepare(
        'DELETE FROM logs WHERE source_id = ? AND seq <= (SELECT seq FROM logs WHERE source_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)',
      ),
      upsertState: prepare(
        'INSERT INTO source_state (source_id, db, dedupe) VALUES (?, ?, ?) ON CONFLICT(source_id) DO UPDATE SET db = excluded.db, dedupe = excluded.dedupe',
      ),
      insertSource: prepare(
        `INSERT INTO sources (${SOURCE_COLUMNS.join(', ')}) VALUES (${SOURCE_COLUMNS.map(() => '?').join(', ')})`,
      ),
      updateSource: prepare(
        `UPDATE sources SET ${SOURCE_COLUMNS.slice(1)
          .map((column) => `${column} = ?`)
          .join(', ')} WHERE id = ?`,
      ),
      moveNextFire: prepare('UPDATE sources SET next_fire_at = ? WHERE id = ? AND next_fire_at = ?'),
      hasTimerTick: prepare("SELECT 1 FROM invocations WHERE source_id = ? AND trigger = 'timer' LIMIT 1"),
      deleteSourceRows: ['events', 'logs', 'invocations', 'source_state', 'dead_letters'].map((table) =>
        prepare(`DELETE FROM ${table} WHERE source_id = ?`),
      ),
      deleteSource: prepare('DELETE FROM sources WHERE id = ?'),
    };
  }

  findEndpoint(endpointId: string): { id: string; custom_response: number } | undefined {
    return this.statements.findEndpoint.get(endpointId) as { id: string; custom_response: number } | undefined;
  }

  getSource(id: string): SourceRow | undefined {
    return this.statements.getSource.get(id) as SourceRow | undefined;
  }

  hasSource(id: string): boolean {
    return this.statements.hasSource.get(id) !== undefined;
  }

  /** A source's db and dedupe state (empty when it has none yet). */
  readState(sourceId: string): { db: Record<string, Json>; dedupe: DedupeState | null } {
    const row = this.statements.readState.get(sourceId) as { db: string; dedupe: string | null } | undefined;
    return row
      ? {
          db: JSON.parse(row.db) as Record<string, Json>,
          dedupe: row.dedupe ? (JSON.parse(row.dedupe) as DedupeState) : null,
        }
      : { db: {}, dedupe: null };
  }

  /** Queues an invocation; when this returns, the row is committed (WAL) and survives a crash. */
  enqueue(row: { id: string; sourceId: string; trigger: string; event: string; createdAt: number }): void {
    this.statements.insertInvocation.run(row.id, row.sourceId, row.trigger, row.event, row.createdAt);
  }

  /** Queues several invocations in one transaction: all are committed when this returns, or none. */
  enqueueAll(
    rows: readonly { id: string; sourceId: string; trigger: string; event: string; createdAt: number }[],
  ): void {
    if (rows.length === 1 && rows[0]) {
      this.enqueue(rows[0]);
      return;
    }
    this.raw.transaction(() => {
      for (const row of rows) this.enqueue(row);
    })();
  }

  /** Sources with queued invocations, the one waiting longest first (read once, at start). */
  sourcesWithWork(): string[] {
    return (this.statements.sourcesWithWork.all() as { source_id: string }[]).map((row) => row.source_id);
  }

  /** Up to `limit` oldest queued invocations of one source, oldest first (an index range, whatever the backlog). */
  oldestOfSource(sourceId: string, limit: number): InvocationRow[] {
    return this.statements.oldestOfSource.all(sourceId, limit) as InvocationRow[];
  }

  /** Removes a queued invocation; false when it was not queued. */
  deleteInvocation(id: string): boolean {
    return this.statements.deleteInvocation.run(id).changes > 0;
  }

  /** Appends events and logs, trims both to their size, replaces the state; returns the log ids. */
  commit(commit: SourceCommit, extra: () => void = () => undefined): number[] {
    return this.raw.transaction(() => {
      extra();
      return this.write(commit);
    })();
  }

  /** Creates a source and commits its hooks' results, in one transaction. */
  insertSource(row: SourceRow, commit: SourceCommit): number[] {
    return this.commit(commit, () => this.statements.insertSource.run(...SOURCE_COLUMNS.map((column) => row[column])));
  }

  /**
   * Replaces a source's row and commits its hooks' results, in one transaction; refused whole when
   * the source is gone (deleted meanwhile by another process): its hooks' results are not stored.
   */
  updateSource(row: SourceRow, commit: SourceCommit): number[] {
    return this.commit(commit, () => {
      const updated = this.statements.updateSource.run(...SOURCE_COLUMNS.slice(1).map((column) => row[column]), row.id);
      if (updated.changes === 0) throw sourceGone(row.id);
    });
  }

  /** Removes a source with its events, logs, queued invocations and state. */
  deleteSource(sourceId: string): void {
    this.raw.transaction(() => {
      for (const statement of this.statements.deleteSourceRows) statement.run(sourceId);
      this.statements.deleteSource.run(sourceId);
    })();
  }

  /**
   * Queues the due ticks and moves each source's next fire time, in one transaction; returns the
   * sources whose tick was queued and those whose tick was merged into their previous one (still
   * queued or running: entries stay in the table until their results commit). A tick is queued
   * only if the fire time is still the one it was read at, so two checks that overlap never queue
   * the same tick twice.
   */
  queueTicks(
    ticks: readonly {
      invocation: { id: string; sourceId: string; event: string; createdAt: number };
      firedAt: number;
      nextFireAt: number;
    }[],
  ): { queued: string[]; merged: string[] } {
    return this.raw.transaction(() => {
      const queued: string[] = [];
      const merged: string[] = [];
      for (const tick of ticks) {
        const moved = this.statements.moveNextFire.run(tick.nextFireAt, tick.invocation.sourceId, tick.firedAt);
        if (moved.changes === 0) continue;
        if (this.statements.hasTimerTick.get(tick.invocation.sourceId) !== undefined) {
          merged.push(tick.invocation.sourceId);
          continue;
        }
        this.enqueue({ ...tick.invocation, trigger: 'timer' });
        queued.push(tick.invocation.sourceId);
      }
      return { queued, merged };
    })();
  }

  private write(commit: SourceCommit): number[] {
    const s = this.statements;
    // Only the bin's worth can survive the trim below: a run of 100,000 emits writes 100 rows, not
    // 100,000 rows to delete again in the same transaction on the server's thread.
    for (const event of commit.events.slice(-this.eventBinSize))
      s.insertEvent.run(commit.sourceId, event.id, event.indexedAtMs, event.event, event.metadata);
    if (commit.events.length > 0) s.trimEvents.run(commit.sourceId, commit.sourceId, this.eventBinSize);
    const logIds = commit.logs.map((log) =>
      Number(s.insertLog.run(commit.sourceId, log.invocationId, log.ts, log.level, log.message).lastInsertRowid),
    );
    if (commit.logs.length > 0) s.trimLogs.run(commit.sourceId, commit.sourceId, this.logSize);
    s.upsertState.run(commit.sourceId, commit.db, commit.dedupe);
    return logIds;
  }
}
