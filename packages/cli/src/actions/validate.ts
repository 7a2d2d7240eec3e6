import path from 'node:path';
import type { ValidationIssue } from '@tributary/runtime';
import { createSandbox } from '../local/create-sandbox.js';
import type { ValidateCommandOptions } from '../commands/validate.js';
import { EXIT_OK, EXIT_USAGE } from '../exit-codes.js';
import type { Output } from '../ui/output.js';
import { reportFailure } from '../ui/report-error.js';

export async function runValidate(file: string, options: ValidateCommandOptions, output: Output): Promise<number> {
  const json = options.json === true;
  const sandbox = createSandbox(output);
  try {
    const prepared = await sandbox.prepare(file);
    const handle = await sandbox.open(prepared, {
      key: path.resolve(file),
      purpose: options.publish ? 'publish' : 'deploy',
    });
    const errors = handle.loaded.issues.filter((issue) => issue.level === 'error');
    const warnings = handle.loaded.issues.filter((issue) => issue.level === 'warning');
    const component = handle.loaded.info;
    if (json) {
      output.json({
        ok: errors.length === 0,
        file: prepared.entry,
        type: component?.type ?? null,
        key: component?.key ?? null,
        name: component?.name ?? null,
        version: component?.version ?? null,
        code_hash: prepared.codeHash,
        errors,
        warnings,
        configurable_props: component?.props ?? null,
        imports: prepared.imports.map(({ specifier, name, range, subpath }) => ({ specifier, name, range, subpath })),
        packages: prepared.lock,
      });
    } else {
      const title = component
        ? `${component.type} "${component.name ?? '(no name)'}" ${component.version ?? ''}`.trim()
        : 'component';
      output.out(`${path.relative(process.cwd(), prepared.entry) || file}: ${title}`);
      for (const issue of [...errors, ...warnings]) output.out(`  ${formatIssue(output, issue)}`);
      const summary = `${errors.length} error${errors.length === 1 ? '' : 's'}, ${warnings.length} warning${warnings.length === 1 ? '' : 's'}`;
      output.out(
        errors.length === 0 ? output.style('green', `valid (${summary})`) : output.style('red', `invalid (${summary})`),
      );
    }
    return errors.length === 0 ? EXIT_OK : EXIT_USAGE;
  } catch (error) {
    return reportFailure(output, error, { json });
  } finally {
    await sandbox.close();
  }
}

function formatIssue(output: Output, issue: ValidationIssue): string {
  const level = issue.level === 'error' ? output.style('red', 'error  ') : output.style('yellow', 'warning');
  return `${level} ${issue.rule.padEnd(3)} ${issue.message}`;
}
