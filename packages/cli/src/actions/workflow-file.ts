import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { AppError, errorMessage } from '@tributary/contracts/errors';
import { parse as parseYaml } from 'yaml';

/** A `.yaml` / `.yml` file is YAML; any other name is JSON. Both hold the same object. */
export function isYamlFile(file: string): boolean {
  return /\.ya?ml$/i.test(file);
}

/**
 * Reads a workflow file (JSON or YAML, docs/workflows.md): each step's `file` is read, relative
 * to the workflow file, into `code`, so the server (or the local run) gets one self-contained
 * workflow.
 */
export function readWorkflowFile(file: string): Record<string, unknown> {
  const absolute = path.resolve(file);
  if (!existsSync(absolute)) throw new AppError('FILE_NOT_FOUND', `workflow file ${file} does not exist`, { file });
  const format = isYamlFile(file) ? 'YAML' : 'JSON';
  let parsed: unknown;
  try {
    const text = readFileSync(absolute, 'utf8');
    parsed = format === 'YAML' ? (parseYaml(text) as unknown) : JSON.parse(text);
  } catch (error) {
    throw new AppError(
      'VALIDATION_FAILED',
      `${file} is not ${format}: ${errorMessage(error)} (a workflow file is JSON, or YAML when named .yaml or .yml; see docs/workflows.md)`,
      { file },
    );
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new AppError('VALIDATION_FAILED', `${file}: a workflow file holds one ${format} object`, { file });
  const workflow = parsed as Record<string, unknown>;
  const steps = workflow['steps'];
  if (!Array.isArray(steps)) return workflow;
  return {
    ...workflow,
    steps: steps.map((step: unknown, index) => {
      if (step === null || typeof step !== 'object' || !('file' in step)) return step;
      const { file: stepFile, ...rest } = step as Record<string, unknown>;
      if (typeof stepFile !== 'string') return step;
      const resolved = path.resolve(path.dirname(absolute), stepFile);
      if (!existsSync(resolved)) {
        throw new AppError('FILE_NOT_FOUND', `steps[${index}].file: ${stepFile} does not exist (next to ${file})`, {
          file: stepFile,
          field: `steps.${index}.file`,
        });
      }
      return { ...rest, code: readFileSync(resolved, 'utf8') };
    }),
  };
}
