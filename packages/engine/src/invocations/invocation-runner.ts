import type { HttpResponse } from '@tributary/runtime';
import { sql, type Kysely, type Selectable } from 'kysely';
import type { ComponentService } from '../components/component-service.js';
import { newId } from '../ids.js';
import type { KeyedMutex } from '../sources/keyed-mutex.js';
import type { SourceExecutor } from '../sources/source-executor.js';
import type { Database } from '../store/schema.js';

export type Trigger = 'http' | 'timer' | 'manual';
type InvocationRow = Selectable<Database['invocations']>;

export interface RunnerOptions {
  readonly db: Kysely<Database>;
  readonly executor: SourceExecutor;
  readonly components: ComponentService;
  readonly locks: KeyedMutex;
  /** Invocations running at once, across sources (one at a time per source). */
  readonly concurrency: number;
  readonly now: () => number;
  readonly log: (message: string) => void;
}

const MAX_ATTEMPTS = 3;

/**
 * The durable invocation queue, kept in SQLite. `enqueue` returns once the row is committed, which
 * is when the ingress may answer 2xx. Rows leave the table in the same transaction that commits
 * their results, so a crash at any point leaves the invocation queued (or `running`, reset to
 * queued at start): delivery is at least once, never zero.
 */
export class InvocationRunner {
  private running = new Set<string>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly waiters = new Map<string, (response: HttpResponse | null) => void>();
  private timer: NodeJS.Timeout | undefined;
  private scheduled = false;
  private stopped = true;

  constructor(private readonly options: RunnerOptions) {}

  async start(): Promise<void> {
    // Whatever was running when the process died runs again.
    await this.options.db.updateTable('invocations').set({ status: 'queued' }).where('status', '=', 'running').execute();
    this.stopped = false;
    this.timer = setInterval(() => this.wake(), 500);
    this.timer.unref();
    this.wake();
  }

  /** Stops taking work and waits for invocations in flight; queued ones stay for the next start. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await Promise.allSettled([...this.inFlight]);
  }

  async enqueue(input: { readonly sourceId: string; readonly trigger: Trigger; readonly event: unknown }): Promise<string> {
    const id = newId('inv');
    await this.options.db
      .insertInto('invocations')
      .values({ id, source_id: input.sourceId, trigger: input.trigger, event: JSON.stringify(input.event ?? null), status: 'queued', attempts: 0, created_at: this.options.now(), started_at: null })
      .execute();
    this.wake();
    return id;
  }

  /** Resolves with the response the invocation gives (http.respond), or null if it ends without one. */
  waitForResponse(invocationId: string): Promise<HttpResponse | null> {
    return new Promise((resolve) => this.waiters.set(invocationId, resolve));
  }

  cancelWait(invocationId: string): void {
    this.waiters.delete(invocationId);
  }

  wake(): void {
    if (this.scheduled || this.stopped) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.pump();
    });
  }

  private async pump(): Promise<void> {
    if (this.stopped) return;
    const free = this.options.concurrency - this.running.size;
    if (free <= 0) return;
    const queued = await this.options.db
      .selectFrom('invocations')
      .selectAll()
      .where('status', '=', 'queued')
      // The oldest queued row of each source, so one source's backlog cannot hide the others' work;
      // insertion order (rowid), not created_at + the random id, so rows of one millisecond stay FIFO.
      .where(sql<boolean>`rowid in (select min(rowid) from invocations where status = 'queued' group by source_id)`)
      .orderBy(sql`rowid`)
      .limit(200)
      .execute();
    const picked: InvocationRow[] = [];
    const claimed = new Set(this.running);
    for (const row of queued) {
      if (picked.length >= free) break;
      if (claimed.has(row.source_id)) continue;
      claimed.add(row.source_id);
      picked.push(row);
    }
    for (const row of picked) {
      this.running.add(row.source_id);
      const work = this.execute(row).finally(() => {
        this.running.delete(row.source_id);
        this.inFlight.delete(work);
        this.wake();
      });
      this.inFlight.add(work);
    }
  }

  private async execute(row: InvocationRow): Promise<void> {
    const { db, executor, components, locks } = this.options;
    await db.updateTable('invocations').set({ status: 'running', started_at: this.options.now(), attempts: row.attempts + 1 }).where('id', '=', row.id).execute();
    try {
      await locks.run(row.source_id, async () => {
        const source = await db.selectFrom('sources').selectAll().where('id', '=', row.source_id).executeTakeFirst();
        if (!source) {
          await db.deleteFrom('invocations').where('id', '=', row.id).execute();
          return;
        }
        const component = await components.get(source.component_id);
        const handle = await executor.handle(source.id, component);
        const state = await executor.readState(source.id);
        const result = await executor.invoke({
          handle,
          source,
          kind: 'run',
          state,
          event: JSON.parse(row.event) as unknown,
          onRespond: (response) => this.respond(row.id, response),
        });
        const committed = await db.transaction().execute(async (trx) => {
          const out = await executor.commit(trx, { sourceId: source.id, invocationId: row.id, results: [result], state: result.state });
          await trx.deleteFrom('invocations').where('id', '=', row.id).execute();
          return out;
        });
        executor.publish(source.id, committed);
        this.respond(row.id, result.response);
      });
    } catch (error) {
      // A platform failure (not the component's): retry a few times, then drop it with a log line.
      const message = error instanceof Error ? error.message : String(error);
      this.options.log(`invocation ${row.id} of ${row.source_id} failed in the platform: ${message}`);
      if (row.attempts + 1 >= MAX_ATTEMPTS) await db.deleteFrom('invocations').where('id', '=', row.id).execute();
      else await db.updateTable('invocations').set({ status: 'queued' }).where('id', '=', row.id).execute();
      this.respond(row.id, null);
    }
  }

  private respond(invocationId: string, response: HttpResponse | null): void {
    const waiter = this.waiters.get(invocationId);
    if (!waiter) return;
    this.waiters.delete(invocationId);
    waiter(response);
  }
}
