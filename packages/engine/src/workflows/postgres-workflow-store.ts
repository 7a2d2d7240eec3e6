import type { Kysely } from 'kysely';
import { invocationRow } from '../invocations/queue-queries.js';
import type { Database } from '../store/schema.js';
import { createdStatus, EMPTY_RESULT, FINISHED_STATUSES, runEntry, toRun, toWorkflow } from './workflow-rows.js';
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
import type { WorkflowTables } from './workflow-tables.js';

type Db = Kysely<Database & WorkflowTables>;

/**
 * The workflow store on PostgreSQL. A run's queue entry is a row of the invocation queue's table
 * (the queue and runner sources use, with its cross-process claims), and every write that touches
 * a run and its entry is one transaction, as on SQLite. READ COMMITTED is enough: a run's writes
 * are serialised by the queue's claim on its lane, and the others are single-row or idempotent.
 */
export class PostgresWorkflowStore implements WorkflowStore {
  private readonly db: Db;

  constructor(db: Kysely<Database>) {
    this.db = db.withTables<WorkflowTables>();
  }

  async saveWorkflow(row: WorkflowRow, version: WorkflowVersion): Promise<void> {
    const values = {
      id: row.id,
      name: row.name,
      active: row.active ? 1 : 0,
      version: row.version,
      trigger_type: row.triggerType,
      endpoint_id: row.endpointId,
      source_id: row.sourceId,
      next_fire_at: row.nextFireAt,
      runs_dropped: row.runsDropped,
      created_at: row.createdAt,
      updated_at: row.updatedAt,
    };
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('workflows')
        .values(values)
        .onConflict((conflict) =>
          conflict.column('id').doUpdateSet((eb) => ({
            name: eb.ref('excluded.name'),
            active: eb.ref('excluded.active'),
            version: eb.ref('excluded.version'),
            trigger_type: eb.ref('excluded.trigger_type'),
            endpoint_id: eb.ref('excluded.endpoint_id'),
            source_id: eb.ref('excluded.source_id'),
            next_fire_at: eb.ref('excluded.next_fire_at'),
            updated_at: eb.ref('excluded.updated_at'),
          })),
        )
        .execute();
      await trx
        .insertInto('workflow_versions')
        .values({
          workflow_id: version.workflowId,
          version: version.version,
          spec: JSON.stringify(version.spec),
          plan: JSON.stringify(version.steps),
          created_at: version.createdAt,
        })
        .execute();
    });
  }

  async getWorkflow(id: string): Promise<WorkflowRow | null> {
    return toWorkflow(await this.db.selectFrom('workflows').selectAll().where('id', '=', id).executeTakeFirst());
  }

  async listWorkflows(): Promise<WorkflowRow[]> {
    const rows = await this.db
      .selectFrom('workflows')
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    return rows.map((row) => toWorkflow(row) as WorkflowRow);
  }

  async getVersion(workflowId: string, version: number): Promise<WorkflowVersion | null> {
    const row = await this.db
      .selectFrom('workflow_versions')
      .selectAll()
      .where('workflow_id', '=', workflowId)
      .where('version', '=', version)
      .executeTakeFirst();
    if (!row) return null;
    return {
      workflowId: row.workflow_id,
      version: row.version,
      spec: JSON.parse(row.spec) as WorkflowVersion['spec'],
      steps: JSON.parse(row.plan) as WorkflowVersion['steps'],
      createdAt: row.created_at,
    };
  }

  deleteWorkflow(id: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const runs = trx.selectFrom('workflow_runs').select('id').where('workflow_id', '=', id);
      await trx.deleteFrom('invocations').where('id', 'in', runs).execute();
      await trx.deleteFrom('workflow_steps').where('run_id', 'in', runs).execute();
      await trx.deleteFrom('workflow_runs').where('workflow_id', '=', id).execute();
      await trx.deleteFrom('workflow_versions').where('workflow_id', '=', id).execute();
      const deleted = await trx.deleteFrom('workflows').where('id', '=', id).executeTakeFirst();
      return deleted.numDeletedRows > 0n;
    });
  }

  async setActive(id: string, active: boolean, now: number): Promise<void> {
    await this.db
      .updateTable('workflows')
      .set({ active: active ? 1 : 0, updated_at: now })
      .where('id', '=', id)
      .execute();
  }

  async findByEndpoint(endpointId: string): Promise<WorkflowRow | null> {
    return toWorkflow(
      await this.db
        .selectFrom('workflows')
        .selectAll()
        .where('endpoint_id', '=', endpointId)
        .where('active', '=', 1)
        .executeTakeFirst(),
    );
  }

  findBySource(sourceId: string): Promise<WorkflowRow[]> {
    return this.findByTrigger('source', sourceId);
  }

  findByEmitter(workflowId: string): Promise<WorkflowRow[]> {
    return this.findByTrigger('emit', workflowId);
  }

  /** Active workflows of a `source` or `emit` trigger on this source or workflow (both in `source_id`). */
  private async findByTrigger(type: 'source' | 'emit', id: string): Promise<WorkflowRow[]> {
    const rows = await this.db
      .selectFrom('workflows')
      .selectAll()
      .where('trigger_type', '=', type)
      .where('source_id', '=', id)
      .where('active', '=', 1)
      .execute();
    return rows.map((row) => toWorkflow(row) as WorkflowRow);
  }

  async timerWorkflows(): Promise<TimerWorkflow[]> {
    const rows = await this.db
      .selectFrom('workflows as w')
      .innerJoin('workflow_versions as v', (join) =>
        join.onRef('v.workflow_id', '=', 'w.id').onRef('v.version', '=', 'w.version'),
      )
      .select(['w.id', 'v.spec'])
      .where('w.trigger_type', '=', 'timer')
      .where('w.active', '=', 1)
      .orderBy('w.id')
      .execute();
    return rows.map((row) => ({ id: row.id, spec: JSON.parse(row.spec) as TimerWorkflow['spec'] }));
  }

  async dueTimers(now: number): Promise<WorkflowRow[]> {
    const rows = await this.db
      .selectFrom('workflows')
      .selectAll()
      .where('trigger_type', '=', 'timer')
      .where('active', '=', 1)
      .where('next_fire_at', 'is not', null)
      .where('next_fire_at', '<=', now)
      .execute();
    return rows.map((row) => toWorkflow(row) as WorkflowRow);
  }

  async setNextFire(id: string, at: number | null): Promise<void> {
    await this.db.updateTable('workflows').set({ next_fire_at: at }).where('id', '=', id).execute();
  }

  /**
   * Several processes may find the same timer due: the fire time moves only while it is still due
   * (a conditional update, which waits for and rechecks a concurrent one), and the run goes in only
   * then, so each tick runs once.
   */
  createRun(run: NewRun, nextFireAt?: number): Promise<void> {
    return this.db.transaction().execute(async (trx) => {
      if (nextFireAt !== undefined) {
        const moved = await trx
          .updateTable('workflows')
          .set({ next_fire_at: nextFireAt })
          .where('id', '=', run.workflowId)
          .where('next_fire_at', '<=', run.createdAt)
          .executeTakeFirst();
        if (moved.numUpdatedRows === 0n) return;
      }
      await insertRun(trx, run);
    });
  }

  /**
   * Once across processes as `createRun`'s timer runs: the conditional move takes the workflow's
   * row lock, so a second process's move of the same slot waits, re-checks and changes nothing,
   * and the merge check runs under that lock.
   */
  queueTimerRun(
    run: NewRun,
    move: { readonly firedAt: number; readonly nextFireAt: number },
  ): Promise<TimerRunOutcome> {
    return this.db.transaction().execute(async (trx): Promise<TimerRunOutcome> => {
      const moved = await trx
        .updateTable('workflows')
        .set({ next_fire_at: move.nextFireAt })
        .where('id', '=', run.workflowId)
        .where('next_fire_at', '=', move.firedAt)
        .executeTakeFirst();
      if (moved.numUpdatedRows === 0n) return 'skipped';
      // A run's queue entry has the run's id and stays until the run has no work left.
      const previous = await trx
        .selectFrom('workflow_runs')
        .innerJoin('invocations', 'invocations.id', 'workflow_runs.id')
        .select('workflow_runs.id')
        .where('workflow_runs.workflow_id', '=', run.workflowId)
        .where('workflow_runs.trigger', '=', 'timer')
        .limit(1)
        .executeTakeFirst();
      if (previous) return 'merged';
      await insertRun(trx, run);
      return 'queued';
    });
  }

  async materializeRun(run: Omit<NewRun, 'queueKey'>): Promise<void> {
    await insertRunRecord(this.db, run);
  }

  async lastRun(workflowId: string): Promise<LastRun | null> {
    const row = await this.db
      .selectFrom('workflow_runs')
      .select(['id', 'status', 'created_at'])
      .where('workflow_id', '=', workflowId)
      .orderBy('seq', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? { id: row.id, status: row.status as LastRun['status'], createdAt: Number(row.created_at) } : null;
  }

  async getRun(id: string): Promise<RunRow | null> {
    return toRun(await this.db.selectFrom('workflow_runs').selectAll().where('id', '=', id).executeTakeFirst());
  }

  async listRuns(workflowId: string, page: RunsPage): Promise<{ data: RunRow[]; total: number }> {
    const edge = page.before
      ? await this.db.selectFrom('workflow_runs').select('seq').where('id', '=', page.before).executeTakeFirst()
      : undefined;
    const status = page.status;
    const rows = await this.db
      .selectFrom('workflow_runs')
      .selectAll()
      .where('workflow_id', '=', workflowId)
      .$if(status !== undefined, (query) => query.where('status', '=', status as RunRow['status']))
      .where('seq', '<', edge?.seq ?? Number.MAX_SAFE_INTEGER)
      .orderBy('seq', 'desc')
      .limit(page.limit)
      .execute();
    const total = await this.db
      .selectFrom('workflow_runs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('workflow_id', '=', workflowId)
      .$if(status !== undefined, (query) => query.where('status', '=', status as RunRow['status']))
      .executeTakeFirstOrThrow();
    return { data: rows.map((row) => toRun(row) as RunRow), total: Number(total.n) };
  }

  async stepsOf(runId: string): Promise<StepRow[]> {
    const rows = await this.db
      .selectFrom('workflow_steps')
      .selectAll()
      .where('run_id', '=', runId)
      .orderBy('idx')
      .execute();
    return rows.map((row) => ({
      index: row.idx,
      name: row.name,
      status: row.status,
      result: JSON.parse(row.result) as StepRow['result'],
    }));
  }

  async markRunning(runId: string): Promise<void> {
    // 'failed' only reaches here for a run whose dead letter was retried (see RunExecutor).
    await this.db
      .updateTable('workflow_runs')
      .set({ status: 'running', resume_at: null, error: null, finished_at: null })
      .where('id', '=', runId)
      .where('status', 'in', ['queued', 'delayed', 'failed'])
      .execute();
  }

  async markDead(runId: string, error: RunError, now: number): Promise<void> {
    await this.db
      .updateTable('workflow_runs')
      .set({ status: 'failed', error: JSON.stringify(error), finished_at: now })
      .where('id', '=', runId)
      .where('status', 'in', ['queued', 'running', 'delayed'])
      .execute();
  }

  async dropEntry(runId: string): Promise<void> {
    await this.db.deleteFrom('invocations').where('id', '=', runId).execute();
  }

  checkpoint(checkpoint: Checkpoint): Promise<void> {
    const { step, run } = checkpoint;
    const steps = [
      {
        run_id: checkpoint.runId,
        idx: step.index,
        name: step.name,
        status: step.status,
        result: JSON.stringify(step.result),
      },
      ...checkpoint.skipped.map((skipped) => ({
        run_id: checkpoint.runId,
        idx: skipped.index,
        name: skipped.name,
        status: 'skipped' as const,
        result: JSON.stringify(EMPTY_RESULT),
      })),
    ];
    return this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('workflow_steps')
        .values(steps)
        .onConflict((conflict) =>
          conflict.columns(['run_id', 'idx']).doUpdateSet((eb) => ({
            name: eb.ref('excluded.name'),
            status: eb.ref('excluded.status'),
            result: eb.ref('excluded.result'),
          })),
        )
        .execute();
      await trx
        .updateTable('workflow_runs')
        .set({
          status: run.status,
          next_step: run.nextStep,
          exit: run.exit ? JSON.stringify(run.exit) : null,
          error: run.error ? JSON.stringify(run.error) : null,
          resume_at: run.resumeAt,
          finished_at: run.finishedAt,
        })
        .where('id', '=', checkpoint.runId)
        .execute();
      for (const started of checkpoint.startRuns ?? []) await insertRun(trx, started);
      const queue = checkpoint.queue;
      switch (queue.kind) {
        case 'keep':
          return;
        case 'delay':
          await trx
            .updateTable('invocations')
            .set({ not_before: queue.until })
            .where('id', '=', checkpoint.runId)
            .execute();
          return;
        case 'remove':
          await trx.deleteFrom('invocations').where('id', '=', checkpoint.runId).execute();
          return;
        default:
          queue satisfies never;
      }
    });
  }

  cancelDelayed(runId: string, now: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const changed = await trx
        .updateTable('workflow_runs')
        .set({ status: 'cancelled', resume_at: null, finished_at: now })
        .where('id', '=', runId)
        .where('status', '=', 'delayed')
        .executeTakeFirst();
      if (changed.numUpdatedRows === 0n) return false;
      await trx.deleteFrom('invocations').where('id', '=', runId).execute();
      return true;
    });
  }

  trimRuns(workflowId: string, keep: number): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const edge = await trx
        .selectFrom('workflow_runs')
        .select('seq')
        .where('workflow_id', '=', workflowId)
        .orderBy('seq', 'desc')
        .offset(keep)
        .limit(1)
        .executeTakeFirst();
      if (!edge) return 0;
      const old = await trx
        .selectFrom('workflow_runs')
        .select('id')
        .where('workflow_id', '=', workflowId)
        .where('status', 'in', FINISHED_STATUSES)
        .where('seq', '<=', edge.seq)
        .execute();
      if (old.length === 0) return 0;
      const ids = old.map((row) => row.id);
      await trx.deleteFrom('workflow_steps').where('run_id', 'in', ids).execute();
      await trx.deleteFrom('workflow_runs').where('id', 'in', ids).execute();
      await trx
        .updateTable('workflows')
        .set((eb) => ({ runs_dropped: eb('runs_dropped', '+', ids.length) }))
        .where('id', '=', workflowId)
        .execute();
      return ids.length;
    });
  }
}

async function insertRunRecord(db: Db, run: Omit<NewRun, 'queueKey'>): Promise<void> {
  await db
    .insertInto('workflow_runs')
    .values({
      id: run.id,
      workflow_id: run.workflowId,
      version: run.version,
      trigger: run.trigger,
      status: createdStatus(run),
      event: run.event,
      event_packing: run.eventPacking ?? null,
      next_step: 0,
      created_at: run.createdAt,
    })
    .onConflict((conflict) => conflict.column('id').doNothing())
    .execute();
}

/** A run and its queue entry (inside the caller's transaction). */
async function insertRun(trx: Db, run: NewRun): Promise<void> {
  await insertRunRecord(trx, run);
  await trx
    .insertInto('invocations')
    .values(invocationRow(runEntry(run)))
    .execute();
}
