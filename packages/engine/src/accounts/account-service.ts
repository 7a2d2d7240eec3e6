import { AppError, type AccountT, type AccountTestResultT, type AppT } from '@tributary/contracts';
import type { Accounts, AppAuthModes } from '@tributary/runtime';
import type { Kysely } from 'kysely';
import type { AppCatalog } from '../apps/app-catalog.js';
import { newId } from '../ids.js';
import { needsReconnect, type TokenRefresher } from '../oauth/token-refresher.js';
import type { TokenSet } from '../oauth/token-endpoint.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { sealedAt } from '../secrets/sealed-places.js';
import { REDACTED } from '../sources/configured-props.js';
import type { Database } from '../store/schema.js';
import { AccountTester } from './account-tester.js';
import type { AccountCache, AppAuthMode, CachedAccount } from './account-cache.js';
import { authProvisionIdOf } from './auth-provision.js';
import type { WorkflowTables } from '../workflows/workflow-tables.js';

export interface AccountServiceOptions {
  readonly db: Kysely<Database>;
  readonly catalog: AppCatalog;
  readonly box: SecretBox;
  readonly now: () => number;
  /** Refreshes OAuth tokens that expire soon before a run gets them (absent: tokens are used as stored). */
  readonly refresher?: TokenRefresher;
  /**
   * Keeps what runs read of accounts and the catalog between the writes that change them (a store
   * one process owns); absent, every run reads the store.
   */
  readonly cache?: AccountCache;
}

const RUN_COLUMNS = ['id', 'app', 'name', 'fields_sealed', 'status', 'status_message', 'oauth_expires_at'] as const;

export type AccountRow = Database['accounts'];

/** An app prop as the saved component describes it (configurable_props entry of type "app"). */
export interface AppPropDescription {
  readonly name: string;
  readonly type: string;
  readonly app?: string;
}

/**
 * Connected accounts (docs/accounts.md): credentials for an app of the catalog, sealed with the
 * master key at rest and never returned in clear. A source's app prop points at one with
 * `{ authProvisionId }`; each invocation gets its credentials as `this.<prop>.$auth`.
 */
export class AccountService {
  constructor(private readonly options: AccountServiceOptions) {}

  async create(input: {
    readonly app: string;
    readonly name?: string;
    readonly fields: Readonly<Record<string, string>>;
  }): Promise<AccountRow> {
    const app = await this.options.catalog.find(input.app);
    if (!app) {
      throw new AppError(
        'VALIDATION_FAILED',
        `no app "${input.app}" in the catalog; GET /v1/apps lists them (docs/accounts.md)`,
        { field: 'app', app: input.app },
      );
    }
    checkFields(app, input.fields);
    const now = this.options.now();
    const shown = Object.fromEntries(
      Object.entries(input.fields).map(([name, value]) => [
        name,
        app.fields.find((field) => field.name === name)?.secret === true ? REDACTED : value,
      ]),
    );
    const id = newId('apn');
    const row: AccountRow = {
      id,
      app: app.slug,
      name: input.name ?? `${app.name} account`,
      fields_sealed: this.options.box.seal(JSON.stringify(input.fields), sealedAt.account(id)),
      fields_shown: JSON.stringify(shown),
      status: 'ok',
      status_message: null,
      oauth_expires_at: null,
      oauth_meta: null,
      created_at: now,
      updated_at: now,
    };
    await this.written(row.id, () => this.options.db.insertInto('accounts').values(row).execute());
    return row;
  }

  /**
   * Stores the tokens of a finished OAuth sign-in: a new account, or `reconnect`'s account with its
   * tokens replaced and its "needs reconnect" cleared (every source using it works again). One write:
   * a sign-in that failed before this left nothing behind.
   */
  async saveOAuth(input: {
    readonly app: string;
    readonly name: string;
    readonly tokens: TokenSet;
    readonly uid: string | null;
    readonly reconnect: string | null;
  }): Promise<AccountRow> {
    const fields: Record<string, string> = {
      oauth_access_token: input.tokens.accessToken,
      ...(input.tokens.refreshToken ? { oauth_refresh_token: input.tokens.refreshToken } : {}),
      ...(input.uid !== null ? { oauth_uid: input.uid } : {}),
    };
    const shown = Object.fromEntries(
      Object.entries(fields).map(([name, value]) => [name, name === 'oauth_uid' ? value : REDACTED]),
    );
    const now = this.options.now();
    const id = input.reconnect ?? newId('apn');
    const values = {
      fields_sealed: this.options.box.seal(JSON.stringify(fields), sealedAt.account(id)),
      fields_shown: JSON.stringify(shown),
      status: 'ok' as const,
      status_message: null,
      oauth_expires_at: input.tokens.expiresAt,
      oauth_meta: JSON.stringify({ scopes: input.tokens.scopes, uid: input.uid }),
      updated_at: now,
    };
    if (input.reconnect !== null) {
      await this.written(id, () => this.options.db.updateTable('accounts').set(values).where('id', '=', id).execute());
      return this.get(id);
    }
    const row: AccountRow = { id, app: input.app, name: input.name, ...values, created_at: now };
    await this.written(id, () => this.options.db.insertInto('accounts').values(row).execute());
    return row;
  }

  async get(id: string): Promise<AccountRow> {
    const row = await this.options.db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw new AppError('NOT_FOUND', `no connected account "${id}"`, { account: id });
    return row;
  }

  async list(query: {
    readonly app?: string;
    readonly limit: number;
    readonly after?: string;
    readonly before?: string;
  }): Promise<{ rows: AccountRow[]; total: number }> {
    const db = this.options.db;
    let select = db.selectFrom('accounts').selectAll();
    let count = db.selectFrom('accounts').select((eb) => eb.fn.countAll<number>().as('n'));
    if (query.app !== undefined) {
      select = select.where('app', '=', query.app);
      count = count.where('app', '=', query.app);
    }
    if (query.after) select = select.where('id', '>', query.after);
    if (query.before) select = select.where('id', '<', query.before);
    const rows = await select
      .orderBy('id', query.before ? 'desc' : 'asc')
      .limit(query.limit)
      .execute();
    if (query.before) rows.reverse();
    return { rows, total: Number((await count.executeTakeFirst())?.n ?? 0) };
  }

  /** "Test connection": the app's "who am I" request with the account, or a token refresh (account-tester.ts). */
  async test(id: string): Promise<AccountTestResultT> {
    const { catalog, refresher, now } = this.options;
    return new AccountTester({ accounts: this, catalog, now, ...(refresher ? { refresher } : {}) }).test(id);
  }

  /** Removes an account and says which deployed sources pointed at it (they fail until given another). */
  async remove(id: string): Promise<{ id: string; usedBy: { id: string; name: string }[] }> {
    await this.get(id);
    const usedBy = await this.usedBy(id);
    await this.written(id, () => this.options.db.deleteFrom('accounts').where('id', '=', id).execute());
    return { id, usedBy };
  }

  /** The deployed sources (`dc_`) and workflows (`wf_`, their current version's steps) whose props name the account. */
  async usedBy(id: string): Promise<{ id: string; name: string }[]> {
    const names = (props: unknown): boolean =>
      typeof props === 'object' &&
      props !== null &&
      Object.values(props as Record<string, unknown>).some((value) => authProvisionIdOf(value) === id);
    const sources = await this.options.db
      .selectFrom('sources')
      .select(['id', 'name', 'configured_props'])
      .orderBy('id')
      .execute();
    const workflows = await this.options.db
      .withTables<WorkflowTables>()
      .selectFrom('workflows')
      .innerJoin('workflow_versions', (join) =>
        join
          .onRef('workflow_versions.workflow_id', '=', 'workflows.id')
          .onRef('workflow_versions.version', '=', 'workflows.version'),
      )
      .select(['workflows.id as id', 'workflows.name as name', 'workflow_versions.spec as spec'])
      .orderBy('workflows.id')
      .execute();
    return [
      ...sources.filter((source) => names(JSON.parse(source.configured_props))),
      ...workflows.filter((workflow) => {
        const spec = JSON.parse(workflow.spec) as { steps?: readonly { props?: unknown }[] };
        return (spec.steps ?? []).some((step) => names(step.props));
      }),
    ].map((row) => ({ id: row.id, name: row.name }));
  }

  /**
   * Checks the app props of configured props before anything runs: each one set must be
   * `{ authProvisionId }` naming an existing account of the prop's app (400 naming the prop).
   */
  async check(configured: Readonly<Record<string, unknown>>, props: readonly AppPropDescription[]): Promise<void> {
    for (const prop of props) {
      if (prop.type !== 'app' || configured[prop.name] === undefined || configured[prop.name] === null) continue;
      const id = authProvisionIdOf(configured[prop.name]);
      if (id === null) {
        throw new AppError(
          'PROP_INVALID',
          `app prop "${prop.name}" takes { "authProvisionId": "apn_…" }, a connected account of app "${prop.app ?? ''}"`,
          { prop: prop.name },
        );
      }
      const account = await this.options.db
        .selectFrom('accounts')
        .select(['id', 'app'])
        .where('id', '=', id)
        .executeTakeFirst();
      if (!account)
        throw new AppError('PROP_INVALID', `app prop "${prop.name}": no connected account "${id}"`, {
          prop: prop.name,
          account: id,
        });
      if (prop.app !== undefined && account.app !== prop.app) {
        throw new AppError(
          'PROP_INVALID',
          `app prop "${prop.name}" needs an account of app "${prop.app}"; ${id} is an account of "${account.app}"`,
          {
            prop: prop.name,
            account: id,
          },
        );
      }
    }
  }

  /**
   * The credentials behind the `{ authProvisionId }` values of configured props, keyed by prop
   * name (the runtime's `accounts`); an account deleted since is left out, so the runtime reports
   * the prop unset. No query at all when no prop points at an account (most invocations).
   */
  async credentialsFor(configured: Readonly<Record<string, unknown>>): Promise<Accounts> {
    const wanted = Object.entries(configured).flatMap(([name, value]) => {
      const id = authProvisionIdOf(value);
      return id === null ? [] : [{ name, id }];
    });
    if (wanted.length === 0) return {};
    const ids = wanted.map((entry) => entry.id);
    let rows = await this.runRows(ids);
    const refresher = this.options.refresher;
    const due = refresher ? rows.filter((row) => row.status === 'ok' && refresher.isDue(row.oauth_expires_at)) : [];
    if (refresher && due.length > 0) {
      await Promise.all(due.map((row) => refresher.ensureFresh(row.id)));
      rows = await this.runRows(ids);
    }
    // A run with an account the provider no longer accepts fails up front, naming the account.
    const broken = rows.find((row) => row.status === 'needs_reconnect');
    if (broken) throw needsReconnect(broken);
    const sealed = new Map(rows.map((row) => [row.id, row.fields_sealed]));
    const accounts: Record<string, Record<string, unknown>> = {};
    for (const { name, id } of wanted) {
      const fields = sealed.get(id);
      if (fields !== undefined) accounts[name] = await this.openFields(id, fields);
    }
    return accounts;
  }

  /**
   * A cached row may hold a ciphertext sealed under a key that `tributary keys rotate` has since
   * retired (the rotation re-sealed the row from another process): that row is read again once.
   */
  private async openFields(id: string, fields: string): Promise<Record<string, unknown>> {
    const open = (sealed: string) =>
      JSON.parse(this.options.box.open(sealed, sealedAt.account(id))) as Record<string, unknown>;
    try {
      return open(fields);
    } catch (error) {
      if (this.options.cache === undefined) throw error;
      this.options.cache.accountChanged(id);
      const [row] = await this.runRows([id]);
      if (row === undefined || row.fields_sealed === fields) throw error;
      return open(row.fields_sealed);
    }
  }

  /**
   * Which of these app props may run without a connected account: apps whose catalog entry takes
   * no credentials (`auth_type: "none"`), and apps the catalog does not know (they run with an
   * empty `$auth` and a warning in the logs). The runtime refuses the others when unset.
   */
  async appAuthFor(props: readonly AppPropDescription[]): Promise<AppAuthModes> {
    const modes: Record<string, 'none' | 'unknown'> = {};
    for (const prop of props) {
      if (prop.type !== 'app' || prop.app === undefined || Object.hasOwn(modes, prop.app)) continue;
      const mode = await this.appMode(prop.app);
      if (mode !== 'account') modes[prop.app] = mode;
    }
    return modes;
  }

  private async appMode(slug: string): Promise<AppAuthMode> {
    const cache = this.options.cache;
    const cached = cache?.appMode(slug);
    if (cached !== undefined) return cached;
    const generation = cache?.mark() ?? 0;
    const app = await this.options.catalog.find(slug);
    const mode: AppAuthMode = app === null ? 'unknown' : app.auth_type === 'none' ? 'none' : 'account';
    cache?.keepAppMode(generation, slug, mode);
    return mode;
  }

  /** The accounts a run reads, from the cache where it holds them, the rest from the store. */
  private async runRows(ids: readonly string[]): Promise<CachedAccount[]> {
    const cache = this.options.cache;
    const found: CachedAccount[] = [];
    const missing: string[] = [];
    for (const id of ids) {
      const cached = cache?.account(id);
      if (cached === undefined) missing.push(id);
      else if (cached !== null) found.push(cached);
    }
    if (missing.length === 0) return found;
    const generation = cache?.mark() ?? 0;
    const read = await this.options.db.selectFrom('accounts').select(RUN_COLUMNS).where('id', 'in', missing).execute();
    cache?.keepAccounts(generation, missing, read);
    return [...found, ...read];
  }

  /** Runs a write of account `id`, then drops what the cache held of it (also when the write failed). */
  private async written<T>(id: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } finally {
      this.options.cache?.accountChanged(id);
    }
  }

  toApi(row: AccountRow): AccountT {
    return {
      id: row.id,
      app: row.app,
      name: row.name,
      fields: JSON.parse(row.fields_shown) as Record<string, string>,
      status: row.status,
      status_message: row.status_message,
      oauth: row.oauth_meta
        ? {
            ...(JSON.parse(row.oauth_meta) as { scopes: string[]; uid: string | null }),
            expires_at: row.oauth_expires_at === null ? null : Math.floor(row.oauth_expires_at / 1000),
          }
        : null,
      created_at: Math.floor(row.created_at / 1000),
      updated_at: Math.floor(row.updated_at / 1000),
    };
  }
}

/** The fields of an account must be exactly the catalog entry's: none unknown, none required missing. */
function checkFields(app: AppT, fields: Readonly<Record<string, string>>): void {
  const known = new Map(app.fields.map((field) => [field.name, field]));
  for (const name of Object.keys(fields)) {
    if (!known.has(name)) {
      const allowed = app.fields.map((field) => field.name).join(', ') || 'none';
      throw new AppError('VALIDATION_FAILED', `app "${app.slug}" has no field "${name}"; its fields are: ${allowed}`, {
        field: `fields.${name}`,
      });
    }
  }
  for (const field of app.fields) {
    if (!field.optional && (fields[field.name] === undefined || fields[field.name] === '')) {
      throw new AppError('VALIDATION_FAILED', `app "${app.slug}" needs field "${field.name}" (${field.label})`, {
        field: `fields.${field.name}`,
      });
    }
  }
}
