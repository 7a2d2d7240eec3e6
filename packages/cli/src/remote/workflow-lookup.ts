import { AppError } from '@tributary/contracts/errors';
import type { ApiClient } from './api-client.js';

/**
 * The `wf_` id of a workflow given by its id or its name. `workflow deploy` keeps one workflow per
 * name, so the name is how a user knows it; the REST API takes ids only, so the name is looked up in
 * the list. A name that several workflows share (saved through the API) is NAME_CONFLICT, listing
 * their ids.
 */
export async function workflowId(client: ApiClient, ref: string): Promise<string> {
  if (ref.startsWith('wf_')) return ref;
  const { data } = await client.call(client.api.GET('/v1/workflows'));
  const matches = data
    .filter((item) => item.name === ref)
    .map((item) => item.id)
    .sort();
  const [only] = matches;
  if (matches.length === 1 && only) return only;
  if (matches.length > 1) {
    throw new AppError(
      'NAME_CONFLICT',
      `"${ref}" names ${matches.length} workflows: ${matches.join(', ')}; use the id`,
      { matches },
    );
  }
  throw new AppError('NOT_FOUND', `no workflow with id or name "${ref}"`);
}
