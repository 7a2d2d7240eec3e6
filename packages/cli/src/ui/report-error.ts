import { AppError, isAppError, type ErrorCode, errorMessage } from '@tributary/contracts/errors';
import { exitCodeFor } from '../exit-codes.js';
import { errorLines } from './error-lines.js';
import type { Output } from './output.js';

/** Turns anything thrown while a command ran into its line (one per failing prop) on stderr (or JSON) and an exit code. */
export function reportFailure(
  output: Output,
  error: unknown,
  options: { json: boolean; jsonShape?: (error: AppError) => unknown },
): number {
  const appError = isAppError(error) ? error : new AppError('INTERNAL', errorMessage(error), {}, { cause: error });
  if (options.json) {
    output.json(options.jsonShape ? options.jsonShape(appError) : { ok: false, error: appError.toJSON() });
  } else {
    for (const line of errorLines(output, appError)) output.err(line);
    if (appError.code === 'INTERNAL' && error instanceof Error && error.stack) output.err(error.stack);
  }
  return exitCodeFor(appError.code as ErrorCode);
}
