import { workflowNameConflict } from '@tributary/contracts/errors';
import type { ApiClient } from './api-client.js';

/**
 * The ids of the server's workflows of this name. `workflow deploy` keeps one workflow per
 * name, so the name is how a user knows it; through the API several may share one. (The other
 * workflow commands pass the name on: every `/v1/workflows/{id}` path takes a name as well.)
 */
export async function workflowsNamed(client: ApiClient, name: string): Promise<string[]> {
  const { data } = await client.call(client.api.GET('/v1/workflows'));
  return data.filter((item) => item.name === name).map((item) => item.id);
}

/** `workflow deploy` of a file whose name several workflows share: NAME_CONFLICT listing them. */
export function deployNameConflict(name: string, ids: readonly string[]): Error {
  return workflowNameConflict(name, ids, 'delete all but one (tributary workflow delete <id>) or rename this one');
}
