import { readFileSync } from 'node:fs';
import {
  AppError,
  AppSlug,
  AppsFile,
  PutAppBody,
  type AppT,
  type AppsFileT,
  type PutAppBodyT,
} from '@tributary/contracts';
import type { Kysely } from 'kysely';
import type { z } from 'zod';
import type { Database } from '../store/schema.js';
import { BUILTIN_APPS } from './builtin-apps.js';

export interface AppCatalogOptions {
  readonly db: Kysely<Database>;
  readonly now: () => number;
}

/**
 * The app catalog: how each app authenticates and which fields its accounts hold (docs/accounts.md).
 * Built-in entries ship with the server; the operator's entries (PUT /v1/apps/{slug} or an
 * `--apps-file`, both stored in SQLite) replace a built-in of the same slug.
 */
export class AppCatalog {
  private readonly builtins = new Map<string, AppT>(
    BUILTIN_APPS.apps.map((entry) => [entry.slug, normalize(AppsFile.shape.apps.element.parse(entry))]),
  );

  constructor(private readonly options: AppCatalogOptions) {}

  async list(): Promise<AppT[]> {
    const stored = await this.options.db.selectFrom('apps').selectAll().execute();
    const bySlug = new Map(this.builtins);
    for (const row of stored) bySlug.set(row.slug, fromRow(row));
    return [...bySlug.values()].sort((a, b) => a.slug.localeCompare(b.slug));
  }

  async find(slug: string): Promise<AppT | null> {
    const row = await this.options.db.selectFrom('apps').selectAll().where('slug', '=', slug).executeTakeFirst();
    return row ? fromRow(row) : (this.builtins.get(slug) ?? null);
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
    const app = normalize({ slug, ...parsed });
    const now = this.options.now();
    const existing = await this.options.db
      .selectFrom('apps')
      .select('created_at')
      .where('slug', '=', slug)
      .executeTakeFirst();
    const row = {
      slug,
      name: app.name,
      description: app.description,
      auth_type: app.auth_type,
      fields: JSON.stringify(app.fields),
      updated_at: now,
    };
    await this.options.db
      .insertInto('apps')
      .values({ ...row, created_at: now })
      .onConflict((conflict) => conflict.column('slug').doUpdateSet(row))
      .execute();
    return { app, created: existing === undefined };
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

function normalize(entry: {
  slug: string;
  name: string;
  description?: string | null | undefined;
  auth_type: AppT['auth_type'];
  fields: AppT['fields'];
}): AppT {
  return {
    slug: entry.slug,
    name: entry.name,
    description: entry.description ?? null,
    auth_type: entry.auth_type,
    fields: entry.fields.map((field) => ({ ...field })),
  };
}

function fromRow(row: Database['apps']): AppT {
  return {
    slug: row.slug,
    name: row.name,
    description: row.description,
    auth_type: row.auth_type,
    fields: JSON.parse(row.fields) as AppT['fields'],
  };
}
