import type { ComponentInfo } from '@tributary/sandbox';
import type { Kysely, Selectable, Transaction } from 'kysely';
import { newId } from '../ids.js';
import type { Database } from '../store/schema.js';
import type { PublishedComponent, SkippedComponent } from './import-report.js';

/** A component of the package that validated, ready to be stored. */
export interface ValidatedComponent {
  readonly file: string;
  readonly code: string;
  readonly codeHash: string;
  readonly info: ComponentInfo;
  readonly lock: Readonly<Record<string, string>>;
}

export interface ImportedPackage {
  readonly name: string;
  readonly version: string;
  readonly spec: string;
  readonly dependencies: Readonly<Record<string, string>>;
}

export interface CommitResult {
  readonly previousVersion: string | null;
  readonly published: PublishedComponent[];
  readonly unchanged: PublishedComponent[];
  readonly skipped: SkippedComponent[];
  readonly removed: string[];
}

export type RegistryPackageRow = Selectable<Database['registry_packages']>;

/**
 * Stores a package's validated components and points their registry keys at them, in one
 * transaction: either the whole package version is in the registry or nothing changed. A key
 * another package (or a direct publish) owns is skipped naming that owner; keys the previous
 * version published and this one dropped leave the registry with it.
 */
export async function commitImport(
  db: Kysely<Database>,
  input: {
    readonly pkg: ImportedPackage;
    readonly components: readonly ValidatedComponent[];
    /** Skipped before the commit (failed to bundle or validate); stored with the package. */
    readonly skipped: readonly SkippedComponent[];
    readonly now: number;
  },
): Promise<CommitResult> {
  return db.transaction().execute(async (trx) => {
    const previous = await trx
      .selectFrom('registry_packages')
      .selectAll()
      .where('name', '=', input.pkg.name)
      .executeTakeFirst();
    const result: CommitResult = {
      previousVersion: previous && previous.version !== input.pkg.version ? previous.version : null,
      published: [],
      unchanged: [],
      skipped: [],
      removed: [],
    };
    const claimed = new Map<string, string>();
    for (const component of input.components) {
      const key = component.info.key ?? '';
      const refusal = await ownerRefusal(trx, input.pkg.name, key, claimed.get(key));
      if (refusal) {
        result.skipped.push({ file: component.file, key, code: 'REGISTRY_KEY_TAKEN', rule: null, message: refusal });
        continue;
      }
      claimed.set(key, component.file);
      const componentId = await storeComponent(trx, component, input.now);
      const entry = { key, version: component.info.version, component_id: componentId, file: component.file };
      const current = await trx.selectFrom('registry').selectAll().where('key', '=', key).executeTakeFirst();
      if (current?.component_id === componentId) {
        result.unchanged.push(entry);
        continue;
      }
      if (current) {
        await trx
          .updateTable('registry')
          .set({
            component_id: componentId,
            version: component.info.version ?? '',
            package: input.pkg.name,
            updated_at: input.now,
          })
          .where('key', '=', key)
          .execute();
      } else {
        await trx
          .insertInto('registry')
          .values({
            key,
            component_id: componentId,
            version: component.info.version ?? '',
            package: input.pkg.name,
            created_at: input.now,
            updated_at: input.now,
          })
          .execute();
      }
      result.published.push(entry);
    }
    const keys = [...claimed.keys()].sort();
    for (const key of previous ? (JSON.parse(previous.keys) as string[]) : []) {
      if (claimed.has(key)) continue;
      await trx.deleteFrom('registry').where('key', '=', key).where('package', '=', input.pkg.name).execute();
      result.removed.push(key);
    }
    const row = {
      name: input.pkg.name,
      version: input.pkg.version,
      spec: input.pkg.spec,
      dependencies: JSON.stringify(input.pkg.dependencies),
      keys: JSON.stringify(keys),
      skipped: JSON.stringify([...input.skipped, ...result.skipped]),
      updated_at: input.now,
    };
    if (previous) await trx.updateTable('registry_packages').set(row).where('name', '=', input.pkg.name).execute();
    else
      await trx
        .insertInto('registry_packages')
        .values({ ...row, created_at: input.now })
        .execute();
    return result;
  });
}

/** Why `pkg` may not publish `key`, or null when it may. */
async function ownerRefusal(
  trx: Transaction<Database>,
  pkg: string,
  key: string,
  claimedBy: string | undefined,
): Promise<string | null> {
  if (claimedBy) return `"${key}" is also the key of ${claimedBy} in the same package; the first one was published`;
  const current = await trx.selectFrom('registry').select(['package']).where('key', '=', key).executeTakeFirst();
  if (!current || current.package === pkg) return null;
  return current.package
    ? `"${key}" is already published by the npm package ${current.package}; remove it there first`
    : `"${key}" is already published on its own (PUT /v1/components/${key}); unpublish it first`;
}

async function storeComponent(trx: Transaction<Database>, component: ValidatedComponent, now: number): Promise<string> {
  const existing = await trx
    .selectFrom('components')
    .select('id')
    .where('code_hash', '=', component.codeHash)
    .executeTakeFirst();
  if (existing) return existing.id;
  const id = newId('sc');
  await trx
    .insertInto('components')
    .values({
      id,
      key: component.info.key,
      name: component.info.name,
      version: component.info.version,
      description: component.info.description,
      component_type: component.info.type,
      code: component.code,
      code_hash: component.codeHash,
      source_url: null,
      configurable_props: JSON.stringify(component.info.props),
      lock: JSON.stringify(component.lock),
      created_at: now,
      updated_at: now,
    })
    .execute();
  return id;
}
