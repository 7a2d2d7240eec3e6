import { AppError } from '@tributary/contracts';
import type { Component } from '../types.js';
import type { ValidationIssue, ValidationPurpose } from '../validate/issues.js';
import { validateComponent } from '../validate/validate-component.js';
import { bundleComponent, type ComponentBundle } from './bundle-component.js';
import { evaluateBundle } from './evaluate-bundle.js';

export interface LoadOptions {
  readonly file: string;
  readonly purpose?: ValidationPurpose;
  /** See BundleOptions.packageDir. */
  readonly packageDir?: string;
  readonly bundleDir?: string;
}

export interface LoadReport {
  readonly bundle: ComponentBundle;
  /** Null when validation found errors; they are in `issues`. */
  readonly component: Component | null;
  readonly issues: readonly ValidationIssue[];
}

/**
 * Bundles, evaluates and validates a component file. Problems that stop the file from loading at
 * all (missing file, syntax error, mixed module formats, missing package) are thrown as AppError;
 * rule violations come back in `issues`.
 */
export async function inspectComponentFile(options: LoadOptions): Promise<LoadReport> {
  const bundle = await bundleComponent({
    file: options.file,
    ...(options.packageDir ? { packageDir: options.packageDir } : {}),
  });
  const { exported } = await evaluateBundle(bundle, options.bundleDir ? { bundleDir: options.bundleDir } : {});
  const { component, issues } = validateComponent(exported, options.purpose ?? 'run');
  return { bundle, component, issues };
}

/** Like inspectComponentFile, but throws COMPONENT_INVALID (with the rule id) on the first error. */
export async function loadComponentFile(options: LoadOptions): Promise<LoadReport & { component: Component }> {
  const report = await inspectComponentFile(options);
  const first = report.issues.find((issue) => issue.level === 'error');
  if (!report.component || first) {
    throw new AppError('COMPONENT_INVALID', `${first?.rule ?? 'C1'}: ${first?.message ?? 'invalid component'}`, {
      rule: first?.rule ?? 'C1',
      ...(first?.prop ? { prop: first.prop } : {}),
      ...(first?.field ? { field: first.field } : {}),
      file: report.bundle.entry,
    });
  }
  return { ...report, component: report.component };
}
