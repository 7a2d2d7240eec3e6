import { AppError } from '@tributary/contracts/errors';
import type { ApiClient } from './api-client.js';
import { getSource } from './source-lookup.js';
import { workflowsNamed } from './workflow-lookup.js';

/** `dc_…`, `wf_…` and `dc_*` (every source) are ids the subscription routes take as they are. */
const ID = /^(dc|wf)_/;

/**
 * An emitter or listener of a subscription by id, or by the name of a workflow or a source (the
 * routes take ids only). A name that a workflow and a source share, or several workflows, is
 * NAME_CONFLICT listing the ids; a name nothing has is NOT_FOUND.
 */
export async function subscriberId(client: ApiClient, ref: string, field: string): Promise<string> {
  if (ID.test(ref)) return ref;
  const [workflows, source] = await Promise.all([workflowsNamed(client, ref), sourceNamed(client, ref)]);
  const ids = [...workflows, ...(source ? [source] : [])];
  const [only] = ids;
  if (ids.length === 1 && only) return only;
  if (ids.length === 0) throw new AppError('NOT_FOUND', `${field}: no source or workflow named "${ref}"`, { field });
  throw new AppError('NAME_CONFLICT', `${field}: "${ref}" names ${ids.join(', ')}; give the id`, {
    field,
    matches: ids,
  });
}

/** A source's id by its name or name slug; null when no source has it. */
async function sourceNamed(client: ApiClient, ref: string): Promise<string | null> {
  try {
    return (await getSource(client, ref)).id;
  } catch (error) {
    if (error instanceof AppError && error.code === 'NOT_FOUND') return null;
    throw error;
  }
}
