import { readFileSync } from 'node:fs';
import {
  AppError,
  AppSlug,
  AppsFile,
  PutAppBody,
  type AppAuthModeT,
  type AppT,
  type AppsFileT,
  type PutAppBodyT,
} from '@tributary/contracts';
import type { Kysely } from 'kysely';
import type { z } from 'zod';
import type { Database } from '../store/schema.js';
import { BUILTIN_APPS } from './builtin-apps.js';
import { catalogEntry } from './catalog-entry.js';
import { GENERATED_APPS } from './generated/catalog.generated.js';

export interface AppCatalogOptions {
  readonly db: Kysely<Database>;
  readonly now: () => number;
  /** Which apps have an OAuth client, and where it was given (OAuthClients.sources). */
  readonly oauthClients?: () => Promise<ReadonlyMap<string, 'settings' | 'environment'>>;
  /** Told after every write of an entry (what was read of the catalog before is out of date). */
  readonly onChanged?: () => void;
}

type Entry = Omit<AppT, 'oauth_client'>;

/**
 * The app catalog: how each app authenticates and which fields its accounts hold (docs/accounts.md,
 * docs/app-catalog.md). Three layers, later ones replacing earlier ones of the same slug: the
 * generated catalog (public provider lists and the Pipedream override layer), the server's
 * built-ins (the apps the fixtures and docs use), and the operator's entries (PUT /v1/apps/{slug}
 * or an `--apps-file`).
 */
export class AppCatalog {
  private readonly shipped: ReadonlyMap<string, Entry>;

  constructor(private readonly options: AppCatalogOptions) {
    const shipped = new Map<string, Entry>(GENERATED_APPS.map((app) => [app.slug, catalogEntry(app)]));
    for (const raw of BUILTIN_APPS.apps) {
      const entry = AppsFile.shape.apps.element.parse(raw);
      // A built-in keeps the generated entry's OAuth endpoints and base URL unless it names its own.
      shipped.set(entry.slug, normalize(entry, 'builtin', shipped.get(entry.slug)));
    }
    this.shipped = shipped;
  }

  async list(): Promise<AppT[]> {
    const stored = await this.options.db.selectFrom('apps').selectAll().execute();
    const bySlug = new Map(this.shipped);
    for (const row of stored) bySlug.set(row.slug, fromRow(row, this.shipped.get(row.slug)));
    const clients = (await this.options.oauthClients?.()) ?? new Map<string, 'settings' | 'environment'>();
    return [...bySlug.values()]
      .sort((a, b) => a.slug.localeCompare(b.slug))
      .map((app) => ({ ...app, oauth_client: clients.get(app.slug) ?? null }));
  }

  async find(slug: string): Promise<AppT | null> {
    const row = await this.options.db.selectFrom('apps').selectAll().where('slug', '=', slug).executeTakeFirst();
    const entry = row ? fromRow(row, this.shipped.get(slug)) : (this.shipped.get(slug) ?? null);
    if (!entry) return null;
    const clients = (await this.options.oauthClients?.()) ?? new Map<string, 'settings' | 'environment'>();
    return { ...entry, oauth_client: clients.get(slug) ?? null };
  }

  async get(slug: string): Promise<AppT> {
    const app = await this.find(slug);
    if (!app)
      throw new AppError(
        'NOT_FOUND',
        `no app "${slug}" in the catalog; add it with PUT /v1/apps/${slug} or an apps file (docs/accounts.md)`,
        { app: slug },
      );
    return app;
  }

  /** Adds or replaces an operator's entry; returns it and whether it was new to the store. */
  async put(slug: string, body: PutAppBodyT): Promise<{ app: AppT; created: boolean }> {
    const parsedSlug = AppSlug.safeParse(slug);
    if (!parsedSlug.success)
      throw new AppError(
        'VALIDATION_FAILED',
        `app slug "${slug}": ${parsedSlug.error.issues[0]?.message ?? 'invalid'}`,
        { field: 'slug' },
      );
    const parsed = PutAppBody.parse(body);
    const entry = normalize({ slug, ...parsed }, 'operator', this.shipped.get(slug));
    const now = this.options.now();
    const existing = await this.options.db
      .selectFrom('apps')
      .select('created_at')
      .where('slug', '=', slug)
      .executeTakeFirst();
    const row = {
      slug,
      name: entry.name,
      description: entry.description,
      auth_type: entry.auth_type,
      fields: JSON.stringify(entry.fields),
      details: JSON.stringify({
        auth_mode: entry.auth_mode,
        oauth: entry.oauth,
        base_url: entry.base_url,
        test_request: entry.test_request,
      }),
      updated_at: now,
    };
    try {
      await this.options.db
        .insertInto('apps')
        .values({ ...row, created_at: now })
        .onConflict((conflict) => conflict.column('slug').doUpdateSet(row))
        .execute();
    } finally {
      this.options.onChanged?.();
    }
    return { app: (await this.find(slug)) ?? { ...entry, oauth_client: null }, created: existing === undefined };
  }

  /** Stores every entry of an apps file (read at each start, so editing the file and restarting applies it). */
  async loadFile(file: string): Promise<number> {
    const entries = readAppsFile(file);
    for (const { slug, ...entry } of entries.apps) await this.put(slug, entry);
    return entries.apps.length;
  }
}

/** Reads and validates an apps file; a bad file is a USAGE_ERROR naming the file and the entry. */
export function readAppsFile(file: string): z.infer<typeof AppsFile> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new AppError('USAGE_ERROR', `apps file ${file} cannot be read: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new AppError('USAGE_ERROR', `apps file ${file} is not JSON: ${(error as Error).message}`);
  }
  const parsed = AppsFile.safeParse(json);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue?.path ?? [];
  const index = where[0] === 'apps' && typeof where[1] === 'number' ? where[1] : null;
  const slug = index !== null ? (json as AppsFileT).apps[index]?.slug : undefined;
  const entry = index !== null ? `entry ${index}${typeof slug === 'string' ? ` ("${slug}")` : ''}` : 'the top level';
  const field = (index !== null ? where.slice(2) : where).map(String).join('.');
  throw new AppError(
    'USAGE_ERROR',
    `apps file ${file}: ${entry}${field ? `, ${field}` : ''}: ${issue?.message ?? 'invalid'} (format: docs/accounts.md)`,
  );
}

type EntryInput = z.infer<typeof AppsFile>['apps'][number];

/** The fine auth mode an entry that names only `auth_type` means. */
function defaultMode(authType: AppT['auth_type'], oauth: AppT['oauth']): AppAuthModeT {
  switch (authType) {
    case 'keys':
      return 'api_key';
    case 'none':
      return 'none';
    case 'oauth2':
      return oauth && oauth.authorize_url === null ? 'oauth2_client_credentials' : 'oauth2_authorization_code';
  }
}

function normalize(entry: EntryInput, origin: Entry['origin'], underneath: Entry | undefined): Entry {
  const inherit = underneath && underneath.auth_type === entry.auth_type ? underneath : undefined;
  const oauth = entry.oauth !== undefined ? entry.oauth : (inherit?.oauth ?? null);
  return {
    slug: entry.slug,
    name: entry.name,
    description: entry.description ?? null,
    auth_type: entry.auth_type,
    fields: entry.fields.map((field) => ({ ...field })),
    auth_mode: entry.auth_mode ?? inherit?.auth_mode ?? defaultMode(entry.auth_type, oauth),
    oauth,
    base_url: entry.base_url !== undefined ? entry.base_url : (inherit?.base_url ?? null),
    test_request: entry.test_request !== undefined ? entry.test_request : (inherit?.test_request ?? null),
    origin,
  };
}

function fromRow(row: Database['apps'], underneath: Entry | undefined): Entry {
  const details = row.details === null ? {} : (JSON.parse(row.details) as Partial<EntryInput>);
  return normalize(
    {
      slug: row.slug,
      name: row.name,
      description: row.description,
      auth_type: row.auth_type,
      fields: JSON.parse(row.fields) as AppT['fields'],
      ...details,
    },
    'operator',
    underneath,
  );
}
