import { AppError } from '@tributary/contracts';

/**
 * Why a commit for a deleted source is refused whole: a run that outlived its source's delete (on
 * another process, its stop request missed) must not leave events, logs or state of a source
 * nobody can see or delete any more. The runner handles it as any refused commit.
 */
export function sourceGone(sourceId: string): AppError {
  return new AppError('NOT_FOUND', `source ${sourceId} no longer exists: the results of its run are not stored`, {
    source_id: sourceId,
  });
}
