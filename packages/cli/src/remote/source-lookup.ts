import type { ApiPaths } from '@tributary/api-client';
import type { DeployedSourceT, SavedComponentT } from '@tributary/contracts';
import type { ApiClient } from './api-client.js';

/** What `PUT /v1/sources/{id}` takes: only the fields given change. */
export type SourceUpdate = ApiPaths['/v1/sources/{id}']['put']['requestBody']['content']['application/json'];

/**
 * A source by `dc_` id, name slug or name. The server resolves it; a name shared by several
 * sources is its NAME_CONFLICT, whose message lists the matches.
 */
export async function getSource(client: ApiClient, ref: string): Promise<DeployedSourceT> {
  return (await client.call(client.api.GET('/v1/sources/{id}', { params: { path: { id: ref } } }))).data;
}

export async function getComponent(client: ApiClient, id: string): Promise<SavedComponentT> {
  return (await client.call(client.api.GET('/v1/components/{id}', { params: { path: { id } } }))).data;
}

/** Updates a source (its deactivate and activate hooks run around a code change) and answers it. */
export async function updateSource(client: ApiClient, id: string, body: SourceUpdate): Promise<DeployedSourceT> {
  return (await client.call(client.api.PUT('/v1/sources/{id}', { params: { path: { id } }, body }))).data;
}
