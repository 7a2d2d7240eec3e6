import { AppError } from '@tributary/contracts';
import { OWNER_ID } from './owner.js';
import {
  deploySource,
  describeTimer,
  nextTimerFire,
  removeSource,
  timerEvent,
  unexpectedOutcome,
  updateSource,
  type InvocationResult,
  type RolledBack,
  type RunHook,
  type TimerSchedule,
} from '@tributary/runtime';
import type { ComponentHandle, PropsInfo } from '@tributary/sandbox';
import type { Kysely } from 'kysely';
import type { AccountService } from '../accounts/account-service.js';
import type { ComponentRow, ComponentService, PendingComponent } from '../components/component-service.js';
import { newId, newSecretToken } from '../ids.js';
import { sealedAt } from '../secrets/sealed-places.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { Database } from '../store/schema.js';
import type { SourceCommit, Store } from '../ports/store.js';
import { echoProps, mergeProps, openProps, sealProps, type PropDescription } from './configured-props.js';
import type { KeyedMutex } from './keyed-mutex.js';
import { slugify } from './slug.js';
import { isSlugTaken } from './slug-taken.js';
import type { SourceExecutor, SourceRow } from './source-executor.js';
import type { StopReason } from '../invocations/stop-reason.js';
import { claimForUpdate, type SourceClaims } from './update-claim.js';

/** Deploys of one name at once each take the next free slug; this many tries is far beyond any race. */
const MAX_SLUG_ATTEMPTS = 50;

/** SourceServiceOptions.updateWaitMs: a run that takes longer is stopped by an update. */
export const DEFAULT_UPDATE_WAIT_MS = 10_000;

/** Where the code of a deploy or update comes from (precedence id > code > key > url, contract §9.2). */
export interface ComponentRef {
  readonly componentId?: string;
  readonly componentCode?: string;
  readonly componentKey?: string;
  readonly componentUrl?: string;
}

export interface DeployRequest extends ComponentRef {
  readonly name?: string;
  readonly configuredProps?: Readonly<Record<string, unknown>>;
}

export interface UpdateRequest extends ComponentRef {
  readonly name?: string;
  readonly active?: boolean;
  readonly configuredProps?: Readonly<Record<string, unknown>>;
}

/** A deployed source as the API shows it (contract §9.2). */
export interface DeployedSource {
  id: string;
  owner_id: string;
  component_id: string;
  component_key: string | null;
  configured_props: Record<string, unknown>;
  active: boolean;
  name: string;
  name_slug: string;
  endpoint_url: string | null;
  /** When the timer fires next (epoch seconds); null without a timer or while inactive. */
  next_run_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface SourceServiceOptions {
  readonly db: Kysely<Database>;
  readonly components: ComponentService;
  readonly executor: SourceExecutor;
  readonly locks: KeyedMutex;
  readonly box: SecretBox;
  readonly now: () => number;
  /** Called when timers may have changed, so the scheduler re-arms. */
  readonly onSchedulesChanged: () => void;
  readonly configureTimeoutMs: number;
  readonly store: Store;
  readonly accounts: AccountService;
  /** Called once a source is deleted: its subscriptions go with it. */
  readonly onDeleted?: (sourceId: string) => Promise<void>;
  /**
   * Stops the source's run in flight in this process (InvocationRunner.stopRuns), which holds the
   * source's lock: at once as a delete begins, so the delete does not wait for the run's deadline,
   * and after `updateWaitMs` for an update. Returns whether a run was stopped.
   */
  readonly stopRuns?: (sourceId: string, because: StopReason) => boolean;
  /**
   * How long an update waits for the source's run in flight before stopping it (default 10 s,
   * DEFAULT_UPDATE_WAIT_MS): the stopped run's invocations then run again with the new code.
   */
  readonly updateWaitMs?: number;
  /**
   * Asks every process to stop the source's runs (PubSub.publishStopRuns): with several processes
   * the run may be on another one, which this process's `stopRuns` and lock do not reach.
   */
  readonly stopRunsEverywhere?: (sourceId: string, because: StopReason) => void;
  /**
   * The source's claim in the invocation queue, which a run in another process holds: an update
   * takes it (claimForUpdate), so no run of the old code commits after the update or starts while
   * it applies, wherever it runs. Without it only this process's runs are kept out (by the lock).
   */
  readonly claims?: SourceClaims;
  /**
   * Called when the source stays after its run was stopped: an update is done (applied or not), or
   * a delete kept it after all (a `deactivate` refused it, the store failed). The stopped run's
   * entries are still queued, and a runner gives a stopped source no further turn by itself
   * (InvocationRunner.notify).
   */
  readonly resumeRuns?: (sourceId: string) => void;
}

export { OWNER_ID };

/** One version of a source's code as the lifecycle sees it: its worker, props and endpoint. */
interface SourceCode {
  readonly handle: () => Promise<ComponentHandle>;
  readonly source: Pick<SourceRow, 'id' | 'configured_props' | 'endpoint_id'>;
}

/**
 * Deployed sources: storage, names and props here; which hooks run in what order, and what a
 * failing hook undoes, in the runtime's lifecycle module (shared with `tributary dev`).
 */
export class SourceService {
  constructor(private readonly options: SourceServiceOptions) {}

  private readonly runHook: RunHook<SourceCode> = async (code, hook, state) =>
    this.options.executor.invoke({ handle: await code.handle(), source: code.source, kind: hook, state });

  async deploy(request: DeployRequest): Promise<SourceRow> {
    const pending = await this.resolveComponent(request);
    const component = pending.row;
    const id = newId('dc');
    return this.options.locks.run(id, async () => {
      const handle = await this.options.executor.handle(component, OWNER_ID);
      const configuredIn = request.configuredProps ?? {};
      await this.options.accounts.check(configuredIn, describedProps(component));
      const props = await handle.configure(
        configuredIn,
        await this.options.accounts.credentialsFor(configuredIn),
        this.options.configureTimeoutMs,
        await this.options.accounts.appAuthFor(describedProps(component)),
      );
      const now = this.options.now();
      const name = request.name ?? component.name ?? component.key ?? 'source';
      const row: SourceRow = {
        id,
        component_id: component.id,
        name,
        name_slug: await this.uniqueSlug(name, null),
        active: 1,
        configured_props: JSON.stringify(
          sealProps(configuredIn, describedProps(component), this.options.box, (prop) => sealedAt.sourceProp(id, prop)),
        ),
        endpoint_id: props.http ? newSecretToken() : null,
        custom_response: props.http?.customResponse ? 1 : 0,
        timer: props.timer ? JSON.stringify(props.timer.schedule) : null,
        next_fire_at: props.timer ? nextTimerFire(props.timer.schedule as TimerSchedule, now) : null,
        created_at: now,
        updated_at: now,
      };
      const outcome = await deploySource({
        code: { handle: () => Promise.resolve(handle), source: row },
        state: { db: {}, dedupe: null },
        runHook: this.runHook,
      });
      switch (outcome.kind) {
        case 'applied':
          break;
        case 'refused':
          throw outcome.failure.error;
        default:
          return unexpectedOutcome(outcome);
      }
      // New code is stored only now that props and hooks have accepted it: a refused deploy keeps nothing.
      const saved = await pending.store();
      const built = await this.options.executor.buildCommit({
        sourceId: id,
        invocationId: null,
        results: outcome.commit.results,
        state: outcome.commit.state,
      });
      const inserted = await this.insertWithFreeSlug({ ...row, component_id: saved.id }, built.commit);
      await this.options.executor.publish(id, this.options.executor.committed(built, inserted.logIds));
      this.options.onSchedulesChanged();
      return inserted.row;
    });
  }

  /**
   * Applies new code, props, name or active flag. A run in flight holds the source's lock: the
   * update waits for it up to `updateWaitMs`, then stops it as a delete does (nothing of it is
   * committed) and, once the update is done, its invocations run again with what the update left.
   */
  async update(ref: string, request: UpdateRequest): Promise<SourceRow> {
    const current = await this.resolve(ref);
    let stopped = false;
    const waited = setTimeout(() => {
      stopped = this.options.stopRuns?.(current.id, 'updated') === true;
    }, this.options.updateWaitMs ?? DEFAULT_UPDATE_WAIT_MS);
    try {
      return await this.options.locks.run(current.id, async () => {
        clearTimeout(waited);
        const claims = this.options.claims;
        if (!claims) return this.updateLocked(current.id, request);
        const claim = await claimForUpdate({
          sourceId: current.id,
          claims,
          waitMs: this.options.updateWaitMs ?? DEFAULT_UPDATE_WAIT_MS,
          stopEverywhere: this.options.stopRunsEverywhere,
        });
        // A run stopped elsewhere left its entries queued, and a runner that found the claim held
        // meanwhile let the source go: either way they get a turn once the update is done.
        if (claim.askedToStop || claim.held) stopped = true;
        try {
          return await this.updateLocked(current.id, request);
        } finally {
          if (claim.held) await claims.release(current.id);
        }
      });
    } finally {
      clearTimeout(waited);
      if (stopped) this.options.resumeRuns?.(current.id);
    }
  }

  private async updateLocked(id: string, request: UpdateRequest): Promise<SourceRow> {
    const source = await this.get(id);
    const oldComponent = await this.options.components.get(source.component_id);
    const codeChange =
      request.componentId !== undefined ||
      request.componentCode !== undefined ||
      request.componentKey !== undefined ||
      request.componentUrl !== undefined;
    const pending = codeChange ? await this.resolveComponent(request) : null;
    const newComponent = pending?.row ?? oldComponent;
    const propsChange = request.configuredProps !== undefined;
    const now = this.options.now();
    let next: SourceRow = { ...source, updated_at: now };
    if (request.name !== undefined && request.name !== source.name) {
      next = { ...next, name: request.name, name_slug: await this.uniqueSlug(request.name, source.id) };
    }
    const wantsActive = request.active ?? source.active === 1;
    const results: InvocationResult[] = [];
    let state = await this.options.store.readState(source.id);
    let rolledBack: RolledBack | null = null;
    if (codeChange || propsChange || wantsActive !== (source.active === 1)) {
      const oldHandle = await this.options.executor.handle(oldComponent, OWNER_ID);
      const newHandle =
        newComponent.id === oldComponent.id ? oldHandle : await this.options.executor.handle(newComponent, OWNER_ID);
      const stored = JSON.parse(source.configured_props) as Record<string, unknown>;
      // Props the new code no longer declares are dropped (contract §5.3), not refused as unknown.
      const kept = dropRemovedProps(
        openProps(stored, this.options.box, (prop) => sealedAt.sourceProp(source.id, prop)),
        describedProps(oldComponent),
        describedProps(newComponent),
      );
      const merged = propsChange ? mergeProps(kept, request.configuredProps ?? {}) : kept;
      await this.options.accounts.check(merged, describedProps(newComponent));
      const props: PropsInfo = await newHandle.configure(
        merged,
        await this.options.accounts.credentialsFor(merged),
        this.options.configureTimeoutMs,
        await this.options.accounts.appAuthFor(describedProps(newComponent)),
      );
      next = {
        ...next,
        component_id: newComponent.id,
        configured_props: JSON.stringify(
          sealProps(merged, describedProps(newComponent), this.options.box, (prop) =>
            sealedAt.sourceProp(source.id, prop),
          ),
        ),
        endpoint_id: props.http ? (source.endpoint_id ?? newSecretToken()) : null,
        custom_response: props.http?.customResponse ? 1 : 0,
        timer: props.timer ? JSON.stringify(props.timer.schedule) : null,
        active: wantsActive ? 1 : 0,
      };
      next = {
        ...next,
        next_fire_at: next.timer && wantsActive ? nextTimerFire(JSON.parse(next.timer) as TimerSchedule, now) : null,
      };
      const outcome = await updateSource({
        current: { handle: () => Promise.resolve(oldHandle), source },
        next: { handle: () => Promise.resolve(newHandle), source: next },
        wasActive: source.active === 1,
        wantsActive,
        state,
        runHook: this.runHook,
      });
      switch (outcome.kind) {
        case 'applied':
          break;
        case 'refused':
          throw outcome.failure.error;
        case 'rolled-back':
          // The previous row stays; what the rollback's `activate` left is stored below.
          rolledBack = outcome;
          next = source;
          break;
        default:
          return unexpectedOutcome(outcome);
      }
      results.push(...outcome.commit.results);
      state = outcome.commit.state;
    }
    // New code is stored only when the update applies it: a refused or rolled-back one keeps nothing.
    if (pending && !rolledBack) next = { ...next, component_id: (await pending.store()).id };
    const built = await this.options.executor.buildCommit({
      sourceId: source.id,
      invocationId: null,
      results,
      state,
    });
    const logIds = await this.options.store.updateSource(next, built.commit);
    await this.options.executor.publish(source.id, this.options.executor.committed(built, logIds));
    this.options.onSchedulesChanged();
    if (rolledBack) throw rolledBack.failure.error;
    return next;
  }

  /**
   * Stops the source's run in flight, in whichever process runs it (nothing of it is committed),
   * runs `deactivate` (when active) and removes the source with its events, logs, state and queued
   * invocations.
   */
  async remove(ref: string, options: { readonly force?: boolean } = {}): Promise<SourceRow> {
    const current = await this.resolve(ref);
    // In the same turn as taking the lock: a run that starts after the stop queues behind the
    // delete, then finds the source gone.
    this.options.stopRuns?.(current.id, 'deleted');
    this.options.stopRunsEverywhere?.(current.id, 'deleted');
    return this.options.locks.run(current.id, async () => {
      let removed = false;
      try {
        const source = await this.removeLocked(current.id, options.force === true);
        removed = true;
        return source;
      } finally {
        if (!removed) this.options.resumeRuns?.(current.id);
      }
    });
  }

  /** The delete under the source's lock: `deactivate`, then the rows; throws when refused. */
  private async removeLocked(id: string, force: boolean): Promise<SourceRow> {
    const source = await this.get(id);
    const component = await this.options.components.get(source.component_id);
    const outcome = await removeSource({
      code: { handle: () => this.options.executor.handle(component, OWNER_ID), source },
      wasActive: source.active === 1,
      state: await this.options.store.readState(source.id),
      force,
      runHook: this.runHook,
    });
    switch (outcome.kind) {
      case 'applied':
        break;
      case 'refused': {
        const error = outcome.failure.error;
        throw new AppError(
          'HOOK_FAILED',
          `${error.message}; the source was kept (delete with ?force=true to remove it anyway)`,
          error.details,
        );
      }
      default:
        return unexpectedOutcome(outcome);
    }
    await this.options.store.deleteSource(source.id);
    // Again now that it is gone: another process's lock does not hold its runs back, so one may
    // have claimed the entries while the hook ran; from here on a claim finds none.
    this.options.stopRunsEverywhere?.(source.id, 'deleted');
    this.options.onSchedulesChanged();
    await this.options.onDeleted?.(source.id);
    return source;
  }

  async get(id: string): Promise<SourceRow> {
    const row = await this.options.db.selectFrom('sources').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw new AppError('NOT_FOUND', `no source with id "${id}"`);
    return row;
  }

  /** A source by `dc_` id, name slug or (when unambiguous) name. */
  async resolve(ref: string): Promise<SourceRow> {
    const db = this.options.db;
    if (ref.startsWith('dc_')) return this.get(ref);
    const bySlug = await db.selectFrom('sources').selectAll().where('name_slug', '=', ref).executeTakeFirst();
    if (bySlug) return bySlug;
    const byName = await db.selectFrom('sources').selectAll().where('name', '=', ref).limit(10).execute();
    if (byName.length === 1 && byName[0]) return byName[0];
    if (byName.length > 1) {
      throw new AppError(
        'NAME_CONFLICT',
        `"${ref}" matches several sources: ${byName.map((row) => `${row.name_slug} (${row.id})`).join(', ')}; use the id or the slug`,
        {
          matches: byName.map((row) => row.id),
        },
      );
    }
    throw new AppError('NOT_FOUND', `no source with id, slug or name "${ref}"`);
  }

  async list(page: {
    readonly limit: number;
    readonly after?: string;
    readonly before?: string;
  }): Promise<{ rows: SourceRow[]; total: number }> {
    const db = this.options.db;
    let query = db.selectFrom('sources').selectAll();
    if (page.after) query = query.where('id', '>', page.after);
    if (page.before) query = query.where('id', '<', page.before);
    const rows = await query
      .orderBy('id', page.before ? 'desc' : 'asc')
      .limit(page.limit)
      .execute();
    if (page.before) rows.reverse();
    const total = await db
      .selectFrom('sources')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst();
    return { rows, total: Number(total?.n ?? 0) };
  }

  /** The event RUN NOW gives a source: the one asked for, else a timer event or {} (contract §3.5). */
  defaultEvent(source: SourceRow): unknown {
    return source.timer ? timerEvent(JSON.parse(source.timer) as TimerSchedule, this.options.now()) : {};
  }

  async toApi(row: SourceRow): Promise<DeployedSource> {
    const component = await this.options.components.get(row.component_id);
    const timer = row.timer ? describeTimer(JSON.parse(row.timer) as TimerSchedule) : null;
    const endpointUrl = this.options.executor.endpointUrl(row.endpoint_id);
    return {
      id: row.id,
      owner_id: OWNER_ID,
      component_id: row.component_id,
      component_key: component.key,
      configured_props: echoProps({
        stored: JSON.parse(row.configured_props) as Record<string, unknown>,
        props: describedProps(component),
        endpointUrl,
        timer,
      }),
      active: row.active === 1,
      name: row.name,
      name_slug: row.name_slug,
      endpoint_url: endpointUrl,
      next_run_at: row.active === 1 && row.next_fire_at !== null ? Math.floor(row.next_fire_at / 1000) : null,
      created_at: Math.floor(row.created_at / 1000),
      updated_at: Math.floor(row.updated_at / 1000),
    };
  }

  /** The code a deploy or update names, validated; new code is not stored until `store()`. */
  private async resolveComponent(ref: ComponentRef): Promise<PendingComponent> {
    let pending: PendingComponent;
    if (ref.componentId !== undefined) pending = storedComponent(await this.options.components.get(ref.componentId));
    else if (ref.componentCode !== undefined)
      pending = await this.options.components.check({
        code: ref.componentCode,
        ...(ref.componentUrl ? { url: ref.componentUrl } : {}),
      });
    else if (ref.componentKey !== undefined) {
      const published = await this.options.components.find(ref.componentKey);
      if (!published)
        throw new AppError('NOT_FOUND', `no component with key "${ref.componentKey}"`, { field: 'component_key' });
      pending = storedComponent(published);
    } else if (ref.componentUrl !== undefined) pending = await this.options.components.check({ url: ref.componentUrl });
    else
      throw new AppError(
        'VALIDATION_FAILED',
        'give one of component_id, component_code, component_key or component_url',
        { field: 'component_code' },
      );
    const component = pending.row;
    if (component.component_type !== 'source') {
      throw new AppError(
        'WRONG_COMPONENT_TYPE',
        `"${component.name ?? component.id}" is an action; actions are run, not deployed as sources`,
      );
    }
    return pending;
  }

  /**
   * Inserts the source; when a deploy of the same name took its slug since `uniqueSlug` looked (on
   * another process, or this one), takes the next free one and tries again.
   */
  private async insertWithFreeSlug(
    first: SourceRow,
    commit: SourceCommit,
  ): Promise<{ row: SourceRow; logIds: number[] }> {
    let row = first;
    for (let attempt = 1; ; attempt += 1) {
      try {
        return { row, logIds: await this.options.store.insertSource(row, commit) };
      } catch (error) {
        if (!isSlugTaken(error) || attempt >= MAX_SLUG_ATTEMPTS) throw error;
        row = { ...row, name_slug: await this.uniqueSlug(row.name, null) };
      }
    }
  }

  private async uniqueSlug(name: string, exceptId: string | null): Promise<string> {
    const base = slugify(name);
    const taken = new Set(
      (
        await this.options.db
          .selectFrom('sources')
          .select(['name_slug', 'id'])
          .where('name_slug', 'like', `${base}%`)
          .execute()
      )
        .filter((row) => row.id !== exceptId)
        .map((row) => row.name_slug),
    );
    if (!taken.has(base)) return base;
    for (let n = 2; ; n += 1) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
  }
}

/** Stored values of props the old code declared and the new code does not: contract §5.3 drops them. */
function dropRemovedProps(
  values: Record<string, unknown>,
  before: readonly PropDescription[],
  after: readonly PropDescription[],
): Record<string, unknown> {
  const declared = new Set(after.map((prop) => prop.name));
  const removed = new Set(before.map((prop) => prop.name).filter((name) => !declared.has(name)));
  return Object.fromEntries(Object.entries(values).filter(([name]) => !removed.has(name)));
}

const storedComponent = (row: ComponentRow): PendingComponent => ({ row, store: () => Promise.resolve(row) });

export function describedProps(component: ComponentRow): PropDescription[] {
  return JSON.parse(component.configurable_props) as PropDescription[];
}

export type { ComponentHandle };
