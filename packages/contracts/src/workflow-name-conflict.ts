import { AppError } from './app-error.js';

/**
 * NAME_CONFLICT for a name several workflows share (through the API they may), listing their ids
 * sorted; `fix` says what to do instead. The server's lookups by name and `tributary workflow
 * deploy` say it in the same words.
 */
export function workflowNameConflict(name: string, ids: readonly string[], fix: string): AppError {
  const sorted = [...ids].sort();
  return new AppError('NAME_CONFLICT', `"${name}" names ${sorted.length} workflows: ${sorted.join(', ')}; ${fix}`, {
    matches: sorted,
  });
}
