import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { AppError } from '@tributary/contracts';

/**
 * Reads a workflow file (JSON, docs/workflows.md): each step's `file` is read, relative to the
 * workflow file, into `code`, so the server (or the local run) gets one self-contained workflow.
 */
export function readWorkflowFile(file: string): Record<string, unknown> {
  const absolute = path.resolve(file);
  if (!existsSync(absolute)) throw new AppError('FILE_NOT_FOUND', `workflow file ${file} does not exist`, { file });
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(absolute, 'utf8'));
  } catch (error) {
    throw new AppError(
      'VALIDATION_FAILED',
      `${file} is not JSON: ${error instanceof Error ? error.message : String(error)} (the workflow file format is JSON, see docs/workflows.md)`,
      { file },
    );
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new AppError('VALIDATION_FAILED', `${file}: a workflow file holds one JSON object`, { file });
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
