import { AppError } from '@tributary/contracts/errors';
import type { ApiClient } from './api-client.js';

/**
 * The ids of the server's workflows of this name, sorted. `workflow deploy` keeps one workflow per
 * name, so the name is how a user knows it; through the API several may share one.
 */
export async function workflowsNamed(client: ApiClient, name: string): Promise<string[]> {
  const { data } = await client.call(client.api.GET('/v1/workflows'));
  return data
    .filter((item) => item.name === name)
    .map((item) => item.id)
    .sort();
}

/** NAME_CONFLICT for a name several workflows share, listing their ids; `fix` says what to do. */
export function sharedName(name: string, ids: readonly string[], fix: string): AppError {
  return new AppError('NAME_CONFLICT', `"${name}" names ${ids.length} workflows: ${ids.join(', ')}; ${fix}`, {
    matches: [...ids],
  });
}

/**
 * The `wf_` id of a workflow given by its id or its name (the REST API takes ids only, so a name is
 * looked up in the list).
 */
export async function workflowId(client: ApiClient, ref: string): Promise<string> {
  if (ref.startsWith('wf_')) return ref;
  const matches = await workflowsNamed(client, ref);
  const [only] = matches;
  if (matches.length === 1 && only) return only;
  if (matches.length > 1) throw sharedName(ref, matches, 'use the id');
  throw new AppError('NOT_FOUND', `no workflow with id or name "${ref}"`);
}
