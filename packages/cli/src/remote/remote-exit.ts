import { AppError, isAppError, errorMessage } from '@tributary/contracts/errors';
import { errorLines } from '../ui/error-lines.js';
import type { Output } from '../ui/output.js';

/**
 * Exit codes of the commands that talk to a server (docs/decisions/0004-cli-exit-codes.md): 0 ok,
 * 1 the request was refused for something the user can fix (usage, validation, a prop, a
 * component that fails its checks or hooks), 2 the server could not be reached or failed itself.
 */
export const REMOTE_EXIT_OK = 0;
export const REMOTE_EXIT_REFUSED = 1;
export const REMOTE_EXIT_SERVER = 2;

export function remoteExitCodeFor(error: AppError): number {
  if (error.code === 'SERVER_UNREACHABLE') return REMOTE_EXIT_SERVER;
  switch (error.category) {
    case 'user':
    case 'component':
      return REMOTE_EXIT_REFUSED;
    case 'internal':
      return REMOTE_EXIT_SERVER;
  }
}

export function asAppError(error: unknown): AppError {
  return isAppError(error) ? error : new AppError('INTERNAL', errorMessage(error), {}, { cause: error });
}

/** One line `error <CODE>: <message>` on stderr (or `{ok:false,error}` with --json) and the exit code. */
export function reportRemoteFailure(output: Output, error: unknown, json: boolean): number {
  const appError = asAppError(error);
  if (json) {
    output.json({ ok: false, error: appError.toJSON() });
  } else {
    const rule = appError.details.rule;
    const ruleNote = typeof rule === 'string' && !appError.message.startsWith(rule) ? ` (rule ${rule})` : '';
    for (const line of errorLines(output, appError, ruleNote)) output.err(line);
    const issues = appError.details['issues'];
    if (Array.isArray(issues))
      for (const issue of issues) output.err(`  ${typeof issue === 'string' ? issue : JSON.stringify(issue)}`);
    if (appError.code === 'INTERNAL' && !(appError.details['status'] !== undefined) && appError.stack)
      output.err(appError.stack);
  }
  return remoteExitCodeFor(appError);
}
