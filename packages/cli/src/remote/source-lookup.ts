import {
  DeployedSource,
  SavedComponent,
  single,
  type DeployedSourceT,
  type SavedComponentT,
} from '@tributary/contracts';
import type { ApiClient } from './api-client.js';

/**
 * A source by `dc_` id, name slug or name. The server resolves it; a name shared by several
 * sources is its NAME_CONFLICT, whose message lists the matches.
 */
export async function getSource(client: ApiClient, ref: string): Promise<DeployedSourceT> {
  return (await client.get(`/v1/sources/${encodeURIComponent(ref)}`, single(DeployedSource))).data;
}

export async function getComponent(client: ApiClient, id: string): Promise<SavedComponentT> {
  return (await client.get(`/v1/components/${encodeURIComponent(id)}`, single(SavedComponent))).data;
}
