import type SqliteDatabase from 'better-sqlite3';
import { settle } from '../store/settle.js';
import { GroupCommit } from '../store/group-commit.js';
import { statementCache } from '../store/statement-cache.js';
import { WorkflowReadCache } from './workflow-read-cache.js';
import type {
  Checkpoint,
  NewRun,
  RunError,
  RunRow,
  StepRow,
  TimerRunOutcome,
  TimerWorkflow,
  WorkflowRow,
  WorkflowStore,
  WorkflowVersion,
  RunsPage,
  LastRun,
} from './workflow-store.js';
import {
  EMPTY_RESULT,
  FINISHED_STATUSES,
  createdStatus,
  runEntry,
  toRun,
  toWorkflow,
  type RawRun,
  type RawWorkflow,
} from './workflow-rows.js';

const FINISHED = `(${FINISHED_STATUSES.map((status) => `'${status}'`).join(', ')})`;

/**
 * The workflow store on the embedded SQLite file. A run's queue entry is a row of the invocation
 * queue's table (the same queue and runner as sources), so the run and its entry change in one
 * synchronous transaction.
 */
export class SqliteWorkflowStore implements WorkflowStore {
  private readonly sql: (text: string) => SqliteDatabase.Statement;
  /** Its writes may run twice, the first rolled back (see GroupCommit): they touch only the database. */
  private readonly group: GroupCommit;
  /** Every write to the `workflows` table below empties it (`written`). */
  private readonly reads = new WorkflowReadCache();

  constructor(private readonly raw: SqliteDatabase.Database) {
    this.sql = statementCache(raw);
    this.group = new GroupCommit(raw);
  }

  saveWorkflow(row: WorkflowRow, version: WorkflowVersion): Promise<void> {
    return settle(() =>
      this.raw.transaction(() => {
        this.written();
        this.sql(
          `INSERT INTO workflows (id, name, active, version, trigger_type, endpoint_id, source_id, next_fire_at, runs_dropped, created_at, updated_at)
             VALUES (@id, @name, @active, @version, @triggerType, @endpointId, @sourceId, @nextFireAt, @runsDropped, @createdAt, @updatedAt)
             ON CONFLICT (id) DO UPDATE SET name = excluded.name, active = excluded.active, version = excluded.version,
               trigger_type = excluded.trigger_type, endpoint_id = excluded.endpoint_id, source_id = excluded.source_id,
               next_fire_at = excluded.next_fire_at, updated_at = excluded.updated_at`,
        ).run({ ...row, active: row.active ? 1 : 0 });
        this.sql(
          'INSERT INTO workflow_versions (workflow_id, version, spec, plan, created_at) VALUES (?, ?, ?, ?, ?)',
        ).run(
          version.workflowId,
          version.version,
          JSON.stringify(version.spec),
          JSON.stringify(version.steps),
          version.createdAt,
        );
      })(),
    );
  }

  getWorkflow(id: string): Promise<WorkflowRow | null> {
    return settle(() =>
      this.reads.row(id, () => toWorkflow(this.sql('SELECT * FROM workflows WHERE id = ?').get(id) as RawWorkflow)),
    );
  }

  listWorkflows(): Promise<WorkflowRow[]> {
    return settle(() =>
      (this.sql('SELECT * FROM workflows ORDER BY created_at DESC, id DESC').all() as RawWorkflow[]).map(
        (row) => toWorkflow(row) as WorkflowRow,
      ),
    );
  }

  getVersion(workflowId: string, version: number): Promise<WorkflowVersion | null> {
    return settle(() => {
      const row = this.sql('SELECT * FROM workflow_versions WHERE workflow_id = ? AND version = ?').get(
        workflowId,
        version,
      ) as { workflow_id: string; version: number; spec: string; plan: string; created_at: number } | undefined;
      if (!row) return null;
      return {
        workflowId: row.workflow_id,
        version: row.version,
        spec: JSON.parse(row.spec) as WorkflowVersion['spec'],
        steps: JSON.parse(row.plan) as WorkflowVersion['steps'],
        createdAt: row.created_at,
      };
    });
  }

  deleteWorkflow(id: string): Promise<boolean> {
    return settle(() =>
      this.raw.transaction(() => {
        this.written();
        const runs = 'SELECT id FROM workflow_runs WHERE workflow_id = ?';
        this.sql(`DELETE FROM invocations WHERE id IN (${runs})`).run(id);
        this.sql(`DELETE FROM workflow_steps WHERE run_id IN (${runs})`).run(id);
        this.sql('DELETE FROM workflow_runs WHERE workflow_id = ?').run(id);
        this.sql('DELETE FROM workflow_versions WHERE workflow_id = ?').run(id);
        return this.sql('DELETE FROM workflows WHERE id = ?').run(id).changes > 0;
      })(),
    );
  }

  setActive(id: string, active: boolean, now: number): Promise<void> {
    return settle(() => {
      this.written();
      this.sql('UPDATE workflows SET active = ?, updated_at = ? WHERE id = ?').run(active ? 1 : 0, now, id);
    });
  }

  findByEndpoint(endpointId: string): Promise<WorkflowRow | null> {
    return settle(() =>
      this.reads.endpoint(endpointId, () =>
        toWorkflow(
          this.sql('SELECT * FROM workflows WHERE endpoint_id = ? AND active = 1').get(endpointId) as RawWorkflow,
        ),
      ),
    );
  }

  findBySource(sourceId: string): Promise<WorkflowRow[]> {
    return this.findByTrigger('source', sourceId);
  }

  findByEmitter(workflowId: string): Promise<WorkflowRow[]> {
    return this.findByTrigger('emit', workflowId);
  }

  /** Active workflows of a `source` or `emit` trigger on this source or workflow (both in `source_id`). */
  private findByTrigger(type: 'source' | 'emit', id: string): Promise<WorkflowRow[]> {
    return settle(() =>
      (
        this.sql('SELECT * FROM workflows WHERE trigger_type = ? AND source_id = ? AND active = 1').all(
          type,
          id,
        ) as RawWorkflow[]
      ).map((row) => toWorkflow(row) as WorkflowRow),
    );
  }

  timerWorkflows(): Promise<TimerWorkflow[]> {
    return settle(() =>
      (
        this.sql(
          `SELECT w.id, v.spec FROM workflows w
             JOIN workflow_versions v ON v.workflow_id = w.id AND v.version = w.version
             WHERE w.trigger_type = 'timer' AND w.active = 1 ORDER BY w.id`,
        ).all() as { id: string; spec: string }[]
      ).map((row) => ({ id: row.id, spec: JSON.parse(row.spec) as TimerWorkflow['spec'] })),
    );
  }

  dueTimers(now: number): Promise<WorkflowRow[]> {
    return settle(() =>
      (
        this.sql(
          "SELECT * FROM workflows WHERE trigger_type = 'timer' AND active = 1 AND next_fire_at IS NOT NULL AND next_fire_at <= ?",
        ).all(now) as RawWorkflow[]
      ).map((row) => toWorkflow(row) as WorkflowRow),
    );
  }

  setNextFire(id: string, at: number | null): Promise<void> {
    return settle(() => {
      this.written();
      this.sql('UPDATE workflows SET next_fire_at = ? WHERE id = ?').run(at, id);
    });
  }

  createRun(run: NewRun, nextFireAt?: number): Promise<void> {
    // Runs triggered in the same turn (concurrent HTTP requests) share a commit.
    return this.group.run(() => {
      if (nextFireAt !== undefined) {
        this.written();
        const moved = this.sql('UPDATE workflows SET next_fire_at = ? WHERE id = ? AND next_fire_at <= ?').run(
          nextFireAt,
          run.workflowId,
          run.createdAt,
        ).changes;
        if (moved === 0) return;
      }
      this.insertRun(run);
    });
  }

  queueTimerRun(
    run: NewRun,
    move: { readonly firedAt: number; readonly nextFireAt: number },
  ): Promise<TimerRunOutcome> {
    return this.group.run((): TimerRunOutcome => {
      this.written();
      const moved = this.sql('UPDATE workflows SET next_fire_at = ? WHERE id = ? AND next_fire_at = ?').run(
        move.nextFireAt,
        run.workflowId,
        move.firedAt,
      ).changes;
      if (moved === 0) return 'skipped';
      // A run's queue entry has the run's id and stays until the run has no work left.
      const previous = this.sql(
        "SELECT 1 FROM workflow_runs r JOIN invocations i ON i.id = r.id WHERE r.workflow_id = ? AND r.trigger = 'timer' LIMIT 1",
      ).get(run.workflowId);
      if (previous) return 'merged';
      this.insertRun(run);
      return 'queued';
    });
  }

  materializeRun(run: Omit<NewRun, 'queueKey'>): Promise<void> {
    return settle(() => {
      this.insertRunRecord(run);
    });
  }

  private insertRunRecord(run: Omit<NewRun, 'queueKey'>): void {
    this.sql(
      'INSERT OR IGNORE INTO workflow_runs (id, workflow_id, version, trigger, status, event, event_packing, next_step, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?)',
    ).run(
      run.id,
      run.workflowId,
      run.version,
      run.trigger,
      createdStatus(run),
      run.event,
      run.eventPacking ?? null,
      run.createdAt,
    );
  }

  /** A run and its queue entry (inside the caller's transaction). */
  private insertRun(run: NewRun): void {
    this.insertRunRecord(run);
    const entry = runEntry(run);
    this.sql(
      "INSERT INTO invocations (id, source_id, trigger, event, status, attempts, created_at, started_at, not_before) VALUES (?, ?, ?, ?, 'queued', 0, ?, NULL, 0)",
    ).run(entry.id, entry.sourceId, entry.trigger, entry.event, entry.createdAt);
  }

  lastRun(workflowId: string): Promise<LastRun | null> {
    return settle(() => {
      const row = this.sql(
        'SELECT id, status, created_at FROM workflow_runs WHERE workflow_id = ? ORDER BY seq DESC LIMIT 1',
      ).get(workflowId) as { id: string; status: LastRun['status']; created_at: number } | undefined;
      return row ? { id: row.id, status: row.status, createdAt: row.created_at } : null;
    });
  }

  getRun(id: string): Promise<RunRow | null> {
    return settle(() => toRun(this.sql('SELECT * FROM workflow_runs WHERE id = ?').get(id) as RawRun));
  }

  listRuns(workflowId: string, page: RunsPage): Promise<{ data: RunRow[]; total: number }> {
    return settle(() => {
      const edge = page.before
        ? (this.sql('SELECT seq FROM workflow_runs WHERE id = ?').get(page.before) as { seq: number } | undefined)
        : undefined;
      // One statement per shape, each prepared once, rather than a condition that is always there.
      const status = page.status === undefined ? '' : ' AND status = ?';
      const only = page.status === undefined ? [] : [page.status];
      const rows = this.sql(
        `SELECT * FROM workflow_runs WHERE workflow_id = ?${status} AND seq < ? ORDER BY seq DESC LIMIT ?`,
      ).all(workflowId, ...only, edge?.seq ?? Number.MAX_SAFE_INTEGER, page.limit) as RawRun[];
      const total = this.sql(`SELECT count(*) AS n FROM workflow_runs WHERE workflow_id = ?${status}`).get(
        workflowId,
        ...only,
      ) as { n: number };
      return { data: rows.map((row) => toRun(row) as RunRow), total: total.n };
    });
  }

  stepsOf(runId: string): Promise<StepRow[]> {
    return settle(() =>
      (
        this.sql('SELECT * FROM workflow_steps WHERE run_id = ? ORDER BY idx').all(runId) as {
          idx: number;
          name: string;
          status: StepRow['status'];
          result: string;
        }[]
      ).map((row) => ({
        index: row.idx,
        name: row.name,
        status: row.status,
        result: JSON.parse(row.result) as StepRow['result'],
      })),
    );
  }

  markRunning(runId: string): Promise<void> {
    return this.group.run(() => {
      // 'failed' only reaches here for a run whose dead letter was retried (see RunExecutor).
      this.sql(
        "UPDATE workflow_runs SET status = 'running', resume_at = NULL, error = NULL, finished_at = NULL WHERE id = ? AND status IN ('queued', 'delayed', 'failed')",
      ).run(runId);
    });
  }

  markDead(runId: string, error: RunError, now: number): Promise<void> {
    return settle(() => {
      this.sql(
        "UPDATE workflow_runs SET status = 'failed', error = ?, finished_at = ? WHERE id = ? AND status IN ('queued', 'running', 'delayed')",
      ).run(JSON.stringify(error), now, runId);
    });
  }

  dropEntry(runId: string): Promise<void> {
    return settle(() => {
      this.sql('DELETE FROM invocations WHERE id = ?').run(runId);
    });
  }

  checkpoint(checkpoint: Checkpoint): Promise<void> {
    // Checkpoints of runs stepping at once share a commit; each resolves once it is durable.
    return this.group.run(() => {
      const upsert = this.sql(
        'INSERT OR REPLACE INTO workflow_steps (run_id, idx, name, status, result) VALUES (?, ?, ?, ?, ?)',
      );
      const { step, run } = checkpoint;
      upsert.run(checkpoint.runId, step.index, step.name, step.status, JSON.stringify(step.result));
      for (const skipped of checkpoint.skipped) {
        upsert.run(checkpoint.runId, skipped.index, skipped.name, 'skipped', JSON.stringify(EMPTY_RESULT));
      }
      // A run that simply goes on to its next step is usually `running` with nothing else set
      // already: its row, which holds the trigger event, is then left as it is rather than rewritten
      // on every step (its steps say how far it got: resumePoint).
      if (movesOnOnly(run))
        this.sql("UPDATE workflow_runs SET status = 'running' WHERE id = ? AND status != 'running'").run(
          checkpoint.runId,
        );
      else
        this.sql(
          'UPDATE workflow_runs SET status = ?, next_step = ?, exit = ?, error = ?, resume_at = ?, finished_at = ? WHERE id = ?',
        ).run(
          run.status,
          run.nextStep,
          run.exit ? JSON.stringify(run.exit) : null,
          run.error ? JSON.stringify(run.error) : null,
          run.resumeAt,
          run.finishedAt,
          checkpoint.runId,
        );
      for (const run of checkpoint.startRuns ?? []) this.insertRun(run);
      const queue = checkpoint.queue;
      switch (queue.kind) {
        case 'keep':
          return;
        case 'delay':
          this.sql('UPDATE invocations SET not_before = ? WHERE id = ?').run(queue.until, checkpoint.runId);
          return;
        case 'remove':
          this.sql('DELETE FROM invocations WHERE id = ?').run(checkpoint.runId);
          return;
        default:
          queue satisfies never;
      }
    });
  }

  cancelDelayed(runId: string, now: number): Promise<boolean> {
    return settle(() =>
      this.raw.transaction(() => {
        const changed = this.sql(
          "UPDATE workflow_runs SET status = 'cancelled', resume_at = NULL, finished_at = ? WHERE id = ? AND status = 'delayed'",
        ).run(now, runId).changes;
        if (changed === 0) return false;
        this.sql('DELETE FROM invocations WHERE id = ?').run(runId);
        return true;
      })(),
    );
  }

  trimRuns(workflowId: string, keep: number): Promise<number> {
    return settle(() =>
      this.raw.transaction(() => {
        const edge = this.sql('SELECT seq FROM workflow_runs WHERE workflow_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?')
          .pluck()
          .get(workflowId, keep) as number | undefined;
        if (edge === undefined) return 0;
        // Two statements for the whole batch (were two per run): the rows go the same either way.
        const old = `SELECT id FROM workflow_runs WHERE workflow_id = ? AND status IN ${FINISHED} AND seq <= ?`;
        this.sql(`DELETE FROM workflow_steps WHERE run_id IN (${old})`).run(workflowId, edge);
        const dropped = this.sql(
          `DELETE FROM workflow_runs WHERE workflow_id = ? AND status IN ${FINISHED} AND seq <= ?`,
        ).run(workflowId, edge).changes;
        if (dropped > 0) {
          this.written();
          this.sql('UPDATE workflows SET runs_dropped = runs_dropped + ? WHERE id = ?').run(dropped, workflowId);
        }
        return dropped;
      })(),
    );
  }

  /** Rows read before a write to the `workflows` table are not served again. */
  private written(): void {
    this.reads.clear();
  }
}

/** A checkpoint's run that only moves on to its next step: still running, nothing ended, due or exited. */
function movesOnOnly(run: Checkpoint['run']): boolean {
  return (
    run.status === 'running' &&
    run.exit === null &&
    run.error === null &&
    run.resumeAt === null &&
    run.finishedAt === null
  );
}
