import {
  ImportJob,
  ImportPackageBody,
  list,
  OutdatedPackage,
  RegistryPackage,
  RemovedPackage,
  single,
  UpgradePackagesBody,
  type ImportJobT,
} from '@tributary/contracts';
import type { Engine, ImportJobState, RegistryPackageState } from '@tributary/engine';
import type { z } from 'zod';
import { pageInfo } from './pagination.js';
import { route, type RouteSpec } from './route-table.js';

/**
 * The registry's npm packages (docs/registry.md). An import takes seconds to minutes (npm
 * installs), so POST answers 202 with a job at once and the job is polled for its progress lines
 * and final report, as the CLI and the web app do.
 */
export function registryRoutes(engine: Engine): RouteSpec[] {
  return [
    route({
      method: 'POST',
      url: '/v1/registry/packages',
      tag: 'registry',
      summary: 'Import an npm package of components (202: a job to poll at /v1/registry/imports/:id)',
      body: ImportPackageBody,
      status: 202,
      response: single(ImportJob),
      handler: async ({ body }) => {
        const job = engine.imports.start(body.spec, async (onProgress) => [
          await engine.registry.add(body.spec, onProgress),
        ]);
        return { data: jobToApi(job) };
      },
    }),
    route({
      method: 'GET',
      url: '/v1/registry/imports/:id',
      tag: 'registry',
      summary: 'An import job: its progress so far and, once finished, its report or error',
      response: single(ImportJob),
      handler: async ({ params }) => ({ data: jobToApi(engine.imports.get(params['id'] ?? '')) }),
    }),
    route({
      method: 'GET',
      url: '/v1/registry/packages',
      tag: 'registry',
      summary: 'List the imported npm packages with their components and skipped files',
      response: list(RegistryPackage),
      handler: async () => {
        const rows = (await engine.registry.list()).map(packageToApi);
        return {
          page_info: pageInfo(
            rows.map((row) => ({ id: row.name })),
            rows.length,
          ),
          data: rows,
        };
      },
    }),
    route({
      method: 'DELETE',
      url: '/v1/registry/packages/*',
      tag: 'registry',
      summary: 'Remove an imported package from the registry (deployed sources keep their code)',
      response: single(RemovedPackage),
      handler: async ({ params }) => {
        const name = params['*'] ?? '';
        const { removed } = await engine.registry.remove(name);
        return { data: { name, removed: [...removed] } };
      },
    }),
    route({
      method: 'GET',
      url: '/v1/registry/outdated',
      tag: 'registry',
      summary: 'Each imported package beside the newest version on npm',
      response: list(OutdatedPackage),
      handler: async () => {
        const rows = await engine.registry.outdated();
        return {
          page_info: pageInfo(
            rows.map((row) => ({ id: row.name })),
            rows.length,
          ),
          data: rows,
        };
      },
    }),
    route({
      method: 'POST',
      url: '/v1/registry/upgrade',
      tag: 'registry',
      summary: 'Import the newest version of each outdated package, or of `name` (202: a job to poll)',
      body: UpgradePackagesBody,
      status: 202,
      response: single(ImportJob),
      handler: async ({ body }) => {
        const job = engine.imports.start(body.name ?? 'all packages', (onProgress) =>
          engine.registry.upgrade(body.name, onProgress),
        );
        return { data: jobToApi(job) };
      },
    }),
  ];
}

function jobToApi(job: ImportJobState): ImportJobT {
  return {
    id: job.id,
    spec: job.spec,
    status: job.status,
    progress: [...job.progress],
    reports: job.reports.map((report) => ({
      ...report,
      published: [...report.published],
      unchanged: [...report.unchanged],
      skipped: [...report.skipped],
      removed: [...report.removed],
    })),
    error: job.error,
    started_at: Math.floor(job.started_at / 1000),
    finished_at: job.finished_at === null ? null : Math.floor(job.finished_at / 1000),
  };
}

function packageToApi(row: RegistryPackageState): z.infer<typeof RegistryPackage> {
  return {
    ...row,
    dependencies: { ...row.dependencies },
    components: [...row.components],
    skipped: [...row.skipped],
    created_at: Math.floor(row.created_at / 1000),
    updated_at: Math.floor(row.updated_at / 1000),
  };
}
