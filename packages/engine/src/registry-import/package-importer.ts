import { AppError, errorMessage } from '@tributary/contracts';
import type { Kysely } from 'kysely';
import type { ComponentService } from '../components/component-service.js';
import type { Database } from '../store/schema.js';
import type { InstalledPackages, Sandbox } from '@tributary/sandbox';
import { bundlePackageComponent, type PackageComponentBundle } from './bundle-package-component.js';
import { commitImport, type ImportedPackage, type ValidatedComponent } from './commit-import.js';
import { fetchPackage, resolvePackage, type FetchOptions } from './fetch-package.js';
import { findComponentFiles } from './find-components.js';
import type { ImportProgress, ImportReport, PublishedComponent, SkippedComponent } from './import-report.js';

export interface PackageImporterOptions extends FetchOptions {
  readonly db: Kysely<Database>;
  readonly components: ComponentService;
  readonly sandbox: Sandbox;
  readonly now: () => number;
  /** Components bundled and validated at once (their npm installs overlap; default 4). */
  readonly concurrency?: number;
}

export type OnProgress = (progress: ImportProgress) => void;

/**
 * Imports npm packages of components into the registry: fetch, find the components, bundle and
 * validate each in the sandbox, then publish all that passed in one transaction. A component that
 * fails is reported with its error and the others still go in; nothing is stored before the commit.
 */
export class PackageImporter {
  constructor(private readonly options: PackageImporterOptions) {}

  async import(spec: string, onProgress: OnProgress = () => {}): Promise<ImportReport> {
    onProgress({ phase: 'resolving', spec });
    const resolved = await resolvePackage(spec, this.options);
    const current = await this.options.db
      .selectFrom('registry_packages')
      .selectAll()
      .where('name', '=', resolved.name)
      .executeTakeFirst();
    if (current?.version === resolved.version) return this.unchangedReport(current.name, current.version, onProgress);
    const fetched = await fetchPackage(spec, this.options);
    onProgress({ phase: 'fetched', package: fetched.name, version: fetched.version });
    return this.importDirectory(
      fetched.dir,
      { name: fetched.name, version: fetched.version, spec, dependencies: fetched.dependencies },
      onProgress,
    );
  }

  /** Imports an unpacked package (the curated set ships as one). */
  async importDirectory(dir: string, pkg: ImportedPackage, onProgress: OnProgress = () => {}): Promise<ImportReport> {
    const files = findComponentFiles(dir);
    if (files.length === 0) {
      throw new AppError(
        'PACKAGE_HAS_NO_COMPONENTS',
        `${pkg.name}@${pkg.version} has no components (looked for actions/** and sources/** modules with a key and a version)`,
        { package: pkg.name },
      );
    }
    onProgress({ phase: 'found', count: files.length });
    const bundles = await Promise.all(
      files.map((file) =>
        bundlePackageComponent({
          packageDir: dir,
          file,
          dependencies: pkg.dependencies,
          banner: `${pkg.name}@${pkg.version}: ${file}`,
        }).catch((error: unknown) => error),
      ),
    );
    const shared = await this.installShared(pkg, bundles, onProgress);
    const validated: (ValidatedComponent | null)[] = new Array<ValidatedComponent | null>(files.length).fill(null);
    const skipped: (SkippedComponent | null)[] = new Array<SkippedComponent | null>(files.length).fill(null);
    let next = 0;
    const work = async (): Promise<void> => {
      while (next < files.length) {
        const index = next++;
        const file = files[index] as string;
        onProgress({ phase: 'component', file, index: index + 1, count: files.length });
        try {
          validated[index] = await this.validate(file, bundles[index], shared);
        } catch (error) {
          const entry = skippedEntry(file, error);
          skipped[index] = entry;
          onProgress({ phase: 'skipped', file, code: entry.code, message: entry.message });
        }
      }
    };
    const workers = Math.max(1, Math.min(this.options.concurrency ?? 4, files.length));
    await Promise.all(Array.from({ length: workers }, work));
    const ready = validated.filter((component): component is ValidatedComponent => component !== null);
    const failed = skipped.filter((entry): entry is SkippedComponent => entry !== null);
    onProgress({ phase: 'committing', count: ready.length });
    const result = await commitImport(this.options.db, {
      pkg,
      components: ready,
      skipped: failed,
      now: this.options.now(),
    });
    const report: ImportReport = {
      package: pkg.name,
      version: pkg.version,
      previous_version: result.previousVersion,
      published: result.published,
      unchanged: result.unchanged,
      skipped: [...failed, ...result.skipped],
      removed: result.removed,
    };
    onProgress({
      phase: 'done',
      published: report.published.length,
      unchanged: report.unchanged.length,
      skipped: report.skipped.length,
    });
    return report;
  }

  private async validate(
    file: string,
    bundle: PackageComponentBundle | unknown,
    shared: InstalledPackages | null,
  ): Promise<ValidatedComponent> {
    if (!isBundle(bundle)) throw bundle;
    const { info, lock, codeHash } = await this.options.components.checkCode(
      bundle.code,
      'publish',
      shared ?? undefined,
    );
    if (!info.key)
      throw new AppError('VALIDATION_FAILED', 'the component has no key; a registry component needs one', {
        field: 'key',
      });
    return { file, code: bundle.code, codeHash, info, lock };
  }

  /**
   * One npm install for every package the components import (at the ranges the package declares),
   * instead of one per combination of imports. When it fails (a declared package that does not
   * exist), each component installs its own and reports its own error.
   */
  private async installShared(
    pkg: ImportedPackage,
    bundles: readonly (PackageComponentBundle | unknown)[],
    onProgress: OnProgress,
  ): Promise<InstalledPackages | null> {
    const ranges = new Map<string, string | null>();
    const conflicting = new Set<string>();
    for (const bundle of bundles) {
      if (!isBundle(bundle)) continue;
      for (const [name, range] of Object.entries(bundle.imports)) {
        if (ranges.has(name) && ranges.get(name) !== range) conflicting.add(name);
        ranges.set(name, range);
      }
    }
    const dependencies = [...ranges.entries()]
      .filter(([name]) => !conflicting.has(name))
      .map(([name, range]) => ({ name, range }))
      .sort((a, b) => a.name.localeCompare(b.name));
    if (dependencies.length === 0) return null;
    onProgress({ phase: 'installing', packages: dependencies.map((d) => `${d.name}@${d.range ?? 'latest'}`) });
    try {
      return await this.options.sandbox.installShared(
        `${pkg.name}@${pkg.version}\n${JSON.stringify(dependencies)}`,
        dependencies,
      );
    } catch {
      return null;
    }
  }

  /** The same version is in the registry already: nothing to fetch, validate or store. */
  private async unchangedReport(name: string, version: string, onProgress: OnProgress): Promise<ImportReport> {
    const rows = await this.options.db
      .selectFrom('registry')
      .select(['key', 'version', 'component_id'])
      .where('package', '=', name)
      .orderBy('key')
      .execute();
    const unchanged: PublishedComponent[] = rows.map((row) => ({
      key: row.key,
      version: row.version,
      component_id: row.component_id,
      file: '',
    }));
    onProgress({ phase: 'done', published: 0, unchanged: unchanged.length, skipped: 0 });
    return { package: name, version, previous_version: null, published: [], unchanged, skipped: [], removed: [] };
  }
}

function skippedEntry(file: string, error: unknown): SkippedComponent {
  if (error instanceof AppError) {
    const rule = typeof error.details.rule === 'string' ? error.details.rule : null;
    const key = typeof error.details['key'] === 'string' ? error.details['key'] : null;
    return { file, key, code: error.code, rule, message: error.message };
  }
  return {
    file,
    key: null,
    code: 'INTERNAL',
    rule: null,
    message: errorMessage(error),
  };
}

function isBundle(value: unknown): value is PackageComponentBundle {
  return typeof value === 'object' && value !== null && 'code' in value && 'imports' in value;
}
