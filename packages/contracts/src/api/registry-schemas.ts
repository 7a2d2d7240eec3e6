/**
 * The registry's npm packages (issue 11): `/v1/registry/packages`, the import jobs that report
 * progress, and `outdated`/`upgrade`. docs/registry.md describes them.
 */
import { z } from 'zod';

export const ImportPackageBody = z.strictObject({
  /** An npm spec as `npm install` takes it: `@pipedream/helper_functions@0.3.13`, a range, a tag. */
  spec: z.string().min(1).max(500),
});

export const UpgradePackagesBody = z.strictObject({
  /** One package to upgrade; without it every outdated package. */
  name: z.string().min(1).max(214).optional(),
});

const RegistryEntry = z.object({
  key: z.string(),
  version: z.string().nullable(),
  component_id: z.string(),
  file: z.string(),
});

export const SkippedComponent = z.object({
  file: z.string(),
  key: z.string().nullable(),
  code: z.string(),
  rule: z.string().nullable(),
  message: z.string(),
});

export const ImportReport = z.object({
  package: z.string(),
  version: z.string(),
  previous_version: z.string().nullable(),
  published: z.array(RegistryEntry),
  unchanged: z.array(RegistryEntry),
  skipped: z.array(SkippedComponent),
  removed: z.array(z.string()),
});

export const ImportJob = z.object({
  id: z.string(),
  spec: z.string(),
  status: z.enum(['running', 'succeeded', 'failed']),
  /** One line per step so far. */
  progress: z.array(z.string()),
  /** One report per package imported (several for an upgrade of every package). */
  reports: z.array(ImportReport),
  error: z.object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()) }).nullable(),
  started_at: z.number(),
  finished_at: z.number().nullable(),
});

export const RegistryPackage = z.object({
  name: z.string(),
  version: z.string(),
  spec: z.string(),
  dependencies: z.record(z.string(), z.string()),
  components: z.array(
    z.object({
      key: z.string(),
      version: z.string(),
      component_id: z.string(),
      name: z.string().nullable(),
      component_type: z.enum(['source', 'action']),
    }),
  ),
  skipped: z.array(SkippedComponent),
  created_at: z.number(),
  updated_at: z.number(),
});

export const OutdatedPackage = z.object({
  name: z.string(),
  current: z.string(),
  latest: z.string().nullable(),
  outdated: z.boolean(),
});

export const RemovedPackage = z.object({ name: z.string(), removed: z.array(z.string()) });

export type ImportJobT = z.infer<typeof ImportJob>;
export type ImportReportT = z.infer<typeof ImportReport>;
export type RegistryPackageT = z.infer<typeof RegistryPackage>;
export type OutdatedPackageT = z.infer<typeof OutdatedPackage>;
