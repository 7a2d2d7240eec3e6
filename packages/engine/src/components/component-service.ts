import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { AppError } from '@tributary/contracts';
import type { ValidationPurpose } from '@tributary/runtime';
import type { ComponentInfo, InstalledPackages, PreparedComponent, Sandbox } from '@tributary/sandbox';
import type { Kysely, Selectable } from 'kysely';
import { newId } from '../ids.js';
import type { Database } from '../store/schema.js';
import { fetchComponentUrl } from './fetch-component-url.js';

export type ComponentRow = Selectable<Database['components']>;

/** Where a component's code comes from in a request. */
export interface ComponentSource {
  readonly code?: string;
  readonly url?: string;
}

export interface ComponentServiceOptions {
  readonly db: Kysely<Database>;
  readonly sandbox: Sandbox;
  /** Folder where submitted code is written for the bundler. */
  readonly codeDir: string;
  readonly allowPrivateUrls: boolean;
  readonly now: () => number;
}

/** Validated code not stored yet (`row` as it will be), or a component stored already. */
export interface PendingComponent {
  readonly row: ComponentRow;
  store(): Promise<ComponentRow>;
}

const stored = (row: ComponentRow): PendingComponent => ({ row, store: () => Promise.resolve(row) });

export const MAX_CODE_BYTES = 5 * 1024 * 1024;
const REGISTRY_KEY = /^[a-z0-9][a-z0-9_-]{0,127}$/;

/**
 * Saved components (`sc_` ids) and the registry. Code is validated by loading it in a sandbox
 * worker (never in this process); what the worker reports (type, props) is stored with it.
 */
export class ComponentService {
  private readonly prepared = new Map<string, Promise<PreparedComponent>>();
  private readonly byId = new Map<string, ComponentRow>();

  constructor(private readonly options: ComponentServiceOptions) {
    mkdirSync(options.codeDir, { recursive: true, mode: 0o700 });
  }

  /** Saves code (or the code behind a URL), validated for `purpose`; the same code is saved once. */
  async save(
    source: ComponentSource,
    purpose: ValidationPurpose = 'deploy',
    /** Runs after validation and before anything is stored; throwing refuses the save. */
    accept?: (candidate: { readonly info: ComponentInfo; readonly codeHash: string }) => Promise<void>,
  ): Promise<ComponentRow> {
    return (await this.check(source, purpose, accept)).store();
  }

  /**
   * Validates code as `save` does and stores nothing: `store()` saves it (once per code) when the
   * caller's other checks have passed, so a request refused later leaves no component behind.
   */
  async check(
    source: ComponentSource,
    purpose: ValidationPurpose = 'deploy',
    accept?: (candidate: { readonly info: ComponentInfo; readonly codeHash: string }) => Promise<void>,
  ): Promise<PendingComponent> {
    const code =
      source.code ??
      (source.url
        ? await fetchComponentUrl(source.url, { allowPrivate: this.options.allowPrivateUrls, maxBytes: MAX_CODE_BYTES })
        : null);
    if (code === null)
      throw new AppError('VALIDATION_FAILED', 'give component_code or component_url', { field: 'component_code' });
    if (Buffer.byteLength(code) > MAX_CODE_BYTES) {
      throw new AppError('VALIDATION_FAILED', `component_code is larger than ${MAX_CODE_BYTES / 1048576} MB`, {
        field: 'component_code',
      });
    }
    const codeHash = createHash('sha256').update(code, 'utf8').digest('hex');
    // The same code was already validated when it was saved (for deploy, at least): reuse it,
    // unless publishing asks for the registry's stricter rules or the caller checks more.
    if (purpose !== 'publish' && !accept) {
      const known = await this.options.db
        .selectFrom('components')
        .selectAll()
        .where('code_hash', '=', codeHash)
        .executeTakeFirst();
      if (known) return stored(known);
    }
    const { prepared, info } = await this.validate(code, codeHash, purpose).catch((error: unknown) => {
      throw source.code === undefined ? withoutFetchedContent(error) : error;
    });
    if (accept) await accept({ info, codeHash });
    const existing = await this.byHash(codeHash);
    if (existing) return stored(existing);
    const now = this.options.now();
    const row: ComponentRow = {
      id: newId('sc'),
      key: info.key,
      name: info.name,
      version: info.version,
      description: info.description,
      component_type: info.type,
      code,
      code_hash: codeHash,
      source_url: source.url ?? null,
      configurable_props: JSON.stringify(info.props),
      lock: JSON.stringify(prepared.lock),
      created_at: now,
      updated_at: now,
    };
    return {
      row,
      store: async () => {
        // The same code may have been saved meanwhile: that row is the one.
        const again = await this.byHash(codeHash);
        if (again) return again;
        await this.options.db.insertInto('components').values(row).execute();
        return row;
      },
    };
  }

  private async byHash(codeHash: string): Promise<ComponentRow | undefined> {
    return this.options.db.selectFrom('components').selectAll().where('code_hash', '=', codeHash).executeTakeFirst();
  }

  /**
   * Code validated as `save` validates it, without storing it: the props of an edit that is not
   * saved yet (the Configuration tab reloads its form from them). Known code is its saved row.
   */
  async unsaved(code: string): Promise<ComponentRow> {
    if (Buffer.byteLength(code) > MAX_CODE_BYTES) {
      throw new AppError('VALIDATION_FAILED', `component_code is larger than ${MAX_CODE_BYTES / 1048576} MB`, {
        field: 'component_code',
      });
    }
    const codeHash = createHash('sha256').update(code, 'utf8').digest('hex');
    const known = await this.options.db
      .selectFrom('components')
      .selectAll()
      .where('code_hash', '=', codeHash)
      .executeTakeFirst();
    if (known) return known;
    const { prepared, info } = await this.validate(code, codeHash, 'deploy');
    const now = this.options.now();
    return {
      // Not an `sc_` id: nothing can look it up; it only names the worker that loads this code.
      id: `unsaved_${codeHash.slice(0, 24)}`,
      key: info.key,
      name: info.name,
      version: info.version,
      description: info.description,
      component_type: info.type,
      code,
      code_hash: codeHash,
      source_url: null,
      configurable_props: JSON.stringify(info.props),
      lock: JSON.stringify(prepared.lock),
      created_at: now,
      updated_at: now,
    };
  }

  /** A saved component by `sc_` id, or by key (the registry entry first, then the newest saved). */
  async find(idOrKey: string): Promise<ComponentRow | null> {
    const db = this.options.db;
    if (idOrKey.startsWith('sc_'))
      return (await db.selectFrom('components').selectAll().where('id', '=', idOrKey).executeTakeFirst()) ?? null;
    const published = await this.findPublished(idOrKey);
    if (published) return published;
    return (
      (await db
        .selectFrom('components')
        .selectAll()
        .where('key', '=', idOrKey)
        .orderBy('created_at', 'desc')
        .executeTakeFirst()) ?? null
    );
  }

  async get(idOrKey: string): Promise<ComponentRow> {
    // A saved component never changes (new code is a new id), so rows by id are kept in memory.
    const cached = this.byId.get(idOrKey);
    if (cached) return cached;
    const row = await this.find(idOrKey);
    if (row && idOrKey.startsWith('sc_')) this.byId.set(idOrKey, row);
    if (!row) throw new AppError('NOT_FOUND', `no component with id or key "${idOrKey}"`);
    return row;
  }

  /**
   * Saved components, newest first (GET /v1/users/me/components). `after` pages to older ones,
   * `before` to newer ones; both are ids of the page's edge items.
   */
  async listSaved(page: {
    readonly limit: number;
    readonly after?: string;
    readonly before?: string;
  }): Promise<{ rows: ComponentRow[]; total: number }> {
    const db = this.options.db;
    const edgeId = page.after ?? page.before;
    const edge = edgeId
      ? await db.selectFrom('components').select(['id', 'created_at']).where('id', '=', edgeId).executeTakeFirst()
      : undefined;
    if (edgeId && !edge)
      throw new AppError('NOT_FOUND', `no saved component "${edgeId}" to page from`, {
        field: page.after ? 'after' : 'before',
      });
    let query = db.selectFrom('components').selectAll();
    if (edge && page.after)
      query = query.where((eb) =>
        eb.or([
          eb('created_at', '<', edge.created_at),
          eb.and([eb('created_at', '=', edge.created_at), eb('id', '<', edge.id)]),
        ]),
      );
    if (edge && page.before)
      query = query.where((eb) =>
        eb.or([
          eb('created_at', '>', edge.created_at),
          eb.and([eb('created_at', '=', edge.created_at), eb('id', '>', edge.id)]),
        ]),
      );
    const direction = page.before ? 'asc' : 'desc';
    const rows = await query.orderBy('created_at', direction).orderBy('id', direction).limit(page.limit).execute();
    if (page.before) rows.reverse();
    const total = await db
      .selectFrom('components')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst();
    return { rows, total: Number(total?.n ?? 0) };
  }

  async findPublished(key: string): Promise<ComponentRow | null> {
    const row = await this.options.db
      .selectFrom('registry')
      .innerJoin('components', 'components.id', 'registry.component_id')
      .selectAll('components')
      .where('registry.key', '=', key)
      .executeTakeFirst();
    return row ?? null;
  }

  async listPublished(): Promise<ComponentRow[]> {
    return this.options.db
      .selectFrom('registry')
      .innerJoin('components', 'components.id', 'registry.component_id')
      .selectAll('components')
      .orderBy('registry.key')
      .execute();
  }

  /**
   * Publishes to the registry under `key` (rules C5–C8): a semver version is required, the code's
   * own key must be `key`, the same version with other code is refused, a new version replaces it.
   */
  async publish(key: string, source: ComponentSource): Promise<{ row: ComponentRow; created: boolean }> {
    assertRegistryKey(key);
    // Every refusal happens before the code is stored: a refused publish changes nothing.
    const row = await this.save(source, 'publish', async ({ info, codeHash }) => {
      if (info.key !== key) {
        throw new AppError(
          'VALIDATION_FAILED',
          `the component's key is ${info.key === null ? 'missing' : `"${info.key}"`}; publishing under "${key}" needs key: "${key}"`,
          {
            field: 'key',
          },
        );
      }
      const owner = await this.options.db
        .selectFrom('registry')
        .select('package')
        .where('key', '=', key)
        .executeTakeFirst();
      if (owner?.package) {
        throw new AppError(
          'REGISTRY_KEY_TAKEN',
          `"${key}" is published by the npm package ${owner.package}; upgrade or remove that package instead`,
          { field: 'key', owner: owner.package },
        );
      }
      const published = await this.findPublished(key);
      if (published && published.code_hash !== codeHash && published.version === info.version) {
        throw new AppError(
          'VERSION_CONFLICT',
          `"${key}" is already published at version ${published.version} with different code; bump the version`,
          {
            rule: 'C7',
            field: 'version',
          },
        );
      }
    });
    const current = await this.options.db.selectFrom('registry').selectAll().where('key', '=', key).executeTakeFirst();
    const now = this.options.now();
    if (current) {
      if (current.component_id === row.id) return { row, created: false };
      await this.options.db
        .updateTable('registry')
        .set({ component_id: row.id, version: row.version ?? '', updated_at: now })
        .where('key', '=', key)
        .execute();
      return { row, created: false };
    }
    await this.options.db
      .insertInto('registry')
      .values({
        key,
        component_id: row.id,
        version: row.version ?? '',
        package: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    return { row, created: true };
  }

  async unpublish(key: string): Promise<void> {
    assertRegistryKey(key);
    const result = await this.options.db.deleteFrom('registry').where('key', '=', key).executeTakeFirst();
    if (Number(result.numDeletedRows) === 0) throw new AppError('NOT_FOUND', `nothing is published under "${key}"`);
  }

  /**
   * Validates code for `purpose` in a sandbox worker without storing anything: what a caller that
   * stores many components in one transaction (a package import) checks first.
   */
  async checkCode(
    code: string,
    purpose: ValidationPurpose,
    /** npm packages installed for several components at once (a package import), used when they fit. */
    shared?: InstalledPackages,
  ): Promise<{ readonly info: ComponentInfo; readonly lock: PreparedComponent['lock']; readonly codeHash: string }> {
    const codeHash = createHash('sha256').update(code, 'utf8').digest('hex');
    const { prepared, info } = await this.validate(code, codeHash, purpose, shared);
    return { info, lock: prepared.lock, codeHash };
  }

  /** The component bundled and its packages installed (once per code, then from memory). */
  prepare(row: Pick<ComponentRow, 'code' | 'code_hash'>, shared?: InstalledPackages): Promise<PreparedComponent> {
    let prepared = this.prepared.get(row.code_hash);
    if (!prepared) {
      // Errors and stacks name the code as its author knows it, not by the hashed copy kept here.
      const file = this.writeCode(row.code, row.code_hash);
      prepared = this.options.sandbox.prepare(file, {
        label: `component${path.extname(file)}`,
        ...(shared ? { shared } : {}),
      });
      prepared.catch(() => this.prepared.delete(row.code_hash));
      this.prepared.set(row.code_hash, prepared);
    }
    return prepared;
  }

  private async validate(
    code: string,
    codeHash: string,
    purpose: ValidationPurpose,
    shared?: InstalledPackages,
  ): Promise<{ prepared: PreparedComponent; info: ComponentInfo }> {
    const prepared = await this.prepare({ code, code_hash: codeHash }, shared);
    const handle = await this.options.sandbox.open(prepared, { key: `validate:${purpose}`, purpose });
    handle.close();
    const issues = handle.loaded.issues;
    const first = issues.find((issue) => issue.level === 'error');
    if (first || !handle.loaded.info) {
      throw new AppError('COMPONENT_INVALID', `${first?.rule ?? 'C1'}: ${first?.message ?? 'invalid component'}`, {
        rule: first?.rule ?? 'C1',
        ...(first?.prop ? { prop: first.prop } : {}),
        ...(first?.field ? { field: first.field } : {}),
        issues: issues.map((issue) => ({ ...issue })),
      });
    }
    return { prepared, info: handle.loaded.info };
  }

  private writeCode(code: string, codeHash: string): string {
    const file = path.join(this.options.codeDir, `${codeHash.slice(0, 32)}.${moduleExtension(code)}`);
    writeFileSync(file, code, { mode: 0o600 });
    return file;
  }
}

/** `.cjs` for CommonJS code (so `module.exports` means what it says), `.mjs` for everything else. */
function moduleExtension(code: string): 'mjs' | 'cjs' {
  const esm = /^\s*(import\s|import\(|export\s)/m.test(code);
  const cjs = /\bmodule\.exports\b|\bexports\.\w+\s*=|\brequire\(/.test(code);
  return cjs && !esm ? 'cjs' : 'mjs';
}

/**
 * A syntax or load error quotes the code (esbuild's `found "..."`, `X is not defined`); for code
 * fetched from component_url that text may be a document from someone else's server, so the
 * error keeps its code and position and drops the quote.
 */
function withoutFetchedContent(error: unknown): unknown {
  if (!(error instanceof AppError)) return error;
  if (!['COMPONENT_SYNTAX_ERROR', 'COMPONENT_LOAD_FAILED', 'INTERNAL'].includes(error.code)) return error;
  const { line, column } = error.details as { line?: unknown; column?: unknown };
  const at =
    typeof line === 'number' ? ` at line ${line}${typeof column === 'number' ? `, column ${column}` : ''}` : '';
  const what = error.code === 'COMPONENT_SYNTAX_ERROR' ? 'is not valid JavaScript' : 'does not load as a module';
  return new AppError(error.code, `the code behind component_url ${what}${at} (its content is not shown)`, {
    field: 'component_url',
    ...(typeof line === 'number' ? { line } : {}),
    ...(typeof column === 'number' ? { column } : {}),
  });
}

function assertRegistryKey(key: string): void {
  if (!REGISTRY_KEY.test(key)) {
    throw new AppError(
      'VALIDATION_FAILED',
      `"${key}" is not a valid component key (lowercase letters, digits, - and _; at most 128)`,
      { field: 'key' },
    );
  }
}
