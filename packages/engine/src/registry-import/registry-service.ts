import { readFileSync } from 'node:fs';
import path from 'node:path';
import { AppError } from '@tributary/contracts';
import type { Kysely } from 'kysely';
import semver from 'semver';
import type { Database } from '../store/schema.js';
import { isRegistrySpec, resolvePackage, type FetchOptions } from './fetch-package.js';
import type { ImportReport, SkippedComponent } from './import-report.js';
import type { OnProgress, PackageImporter } from './package-importer.js';

/** An imported package as `registry list` shows it. */
export interface RegistryPackage {
  readonly name: string;
  readonly version: string;
  readonly spec: string;
  readonly dependencies: Readonly<Record<string, string>>;
  readonly components: readonly {
    readonly key: string;
    readonly version: string;
    readonly component_id: string;
    readonly name: string | null;
    readonly component_type: 'source' | 'action';
  }[];
  readonly skipped: readonly SkippedComponent[];
  readonly created_at: number;
  readonly updated_at: number;
}

export interface OutdatedPackage {
  readonly name: string;
  readonly current: string;
  /** The newest version on npm; null for a package imported from a file (nothing to compare). */
  readonly latest: string | null;
  readonly outdated: boolean;
}

export interface RegistryServiceOptions {
  readonly db: Kysely<Database>;
  readonly importer: PackageImporter;
  readonly fetch: FetchOptions;
}

/** The registry's npm packages: import, list, remove, and compare with npm to upgrade. */
export class RegistryService {
  constructor(private readonly options: RegistryServiceOptions) {}

  add(spec: string, onProgress?: OnProgress): Promise<ImportReport> {
    return this.options.importer.import(spec, onProgress);
  }

  async list(): Promise<RegistryPackage[]> {
    const packages = await this.options.db.selectFrom('registry_packages').selectAll().orderBy('name').execute();
    const components = await this.options.db
      .selectFrom('registry')
      .innerJoin('components', 'components.id', 'registry.component_id')
      .select([
        'registry.key',
        'registry.version',
        'registry.component_id',
        'registry.package',
        'components.name',
        'components.component_type',
      ])
      .where('registry.package', 'is not', null)
      .orderBy('registry.key')
      .execute();
    return packages.map((row) => ({
      name: row.name,
      version: row.version,
      spec: row.spec,
      dependencies: JSON.parse(row.dependencies) as Record<string, string>,
      components: components
        .filter((component) => component.package === row.name)
        .map(({ key, version, component_id, name, component_type }) => ({
          key,
          version,
          component_id,
          name,
          component_type,
        })),
      skipped: JSON.parse(row.skipped) as SkippedComponent[],
      created_at: row.created_at,
      updated_at: row.updated_at,
    }));
  }

  /**
   * Takes the package's components out of the registry. Their saved code stays: sources deployed
   * from them keep running the version they were deployed with.
   */
  async remove(name: string): Promise<{ readonly removed: readonly string[] }> {
    return this.options.db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('registry_packages').select('keys').where('name', '=', name).executeTakeFirst();
      if (!row) throw new AppError('NOT_FOUND', `no package "${name}" in the registry`, { field: 'name' });
      const keys = await trx.selectFrom('registry').select('key').where('package', '=', name).execute();
      await trx.deleteFrom('registry').where('package', '=', name).execute();
      await trx.deleteFrom('registry_packages').where('name', '=', name).execute();
      return { removed: keys.map((key) => key.key) };
    });
  }

  /** Each imported package beside the newest version npm has (`name` alone: that package). */
  async outdated(name?: string): Promise<OutdatedPackage[]> {
    const rows = (await this.list()).filter((row) => name === undefined || row.name === name);
    if (name !== undefined && rows.length === 0)
      throw new AppError('NOT_FOUND', `no package "${name}" in the registry`, { field: 'name' });
    return Promise.all(
      rows.map(async (row) => {
        if (!isRegistrySpec(row.spec)) return { name: row.name, current: row.version, latest: null, outdated: false };
        const latest = (await resolvePackage(`${row.name}@latest`, this.options.fetch)).version;
        return { name: row.name, current: row.version, latest, outdated: semver.gt(latest, row.version) };
      }),
    );
  }

  /**
   * Imports the newest version of each outdated package (or of `name`). Registry keys move to the
   * new code; sources already deployed keep the saved component they were deployed with.
   */
  async upgrade(name: string | undefined, onProgress?: OnProgress): Promise<ImportReport[]> {
    const reports: ImportReport[] = [];
    for (const entry of await this.outdated(name)) {
      if (!entry.outdated || entry.latest === null) continue;
      reports.push(await this.options.importer.import(`${entry.name}@${entry.latest}`, onProgress));
    }
    return reports;
  }

  /**
   * Publishes the components shipped in `dir` (a package folder) unless this version of them is
   * in the registry already: a new server's registry is not empty, and a restart does nothing.
   */
  async publishBundled(dir: string, onProgress?: OnProgress): Promise<ImportReport | null> {
    const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
      name: string;
      version: string;
      dependencies?: Record<string, string>;
    };
    const current = await this.options.db
      .selectFrom('registry_packages')
      .select('version')
      .where('name', '=', manifest.name)
      .executeTakeFirst();
    if (current?.version === manifest.version) return null;
    return this.options.importer.importDirectory(
      dir,
      { name: manifest.name, version: manifest.version, spec: dir, dependencies: manifest.dependencies ?? {} },
      onProgress,
    );
  }
}
