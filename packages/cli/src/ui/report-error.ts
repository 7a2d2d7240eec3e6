import { AppError, isAppError, type ErrorCode } from '@tributary/contracts';
import { exitCodeFor } from '../exit-codes.js';
import type { Output } from './output.js';

/** Turns anything thrown while a command ran into one line on stderr (or JSON) and an exit code. */
export function reportFailure(
  output: Output,
  error: unknown,
  options: { json: boolean; jsonShape?: (error: AppError) => unknown },
): number {
  const appError = isAppError(error)
    ? error
    : new AppError('INTERNAL', error instanceof Error ? error.message : String(error), {}, { cause: error });
  if (options.json) {
    output.json(options.jsonShape ? options.jsonShape(appError) : { ok: false, error: appError.toJSON() });
  } else {
    output.err(`${output.style('red', 'error')} ${appError.code}: ${appError.message}`);
    if (appError.code === 'INTERNAL' && error instanceof Error && error.stack) output.err(error.stack);
  }
  return exitCodeFor(appError.code as ErrorCode);
}
