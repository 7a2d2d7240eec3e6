/**
 * @module @tributary/api-client
 * A typed client of the REST API: openapi-fetch over the types openapi-typescript generated from
 * the served `/v1/openapi.json` (openapi.generated.ts; a test fails when it is out of date).
 * Paths are the document's templates and the compiler checks parameters, bodies and answers:
 *
 *   const api = createApiClient({ baseUrl: 'http://127.0.0.1:3000', apiKey });
 *   const { data, error } = await api.GET('/v1/sources/{id}', { params: { path: { id: 'dc_…' } } });
 */
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { paths } from './openapi.generated.js';

export type { paths as ApiPaths } from './openapi.generated.js';
export type ApiClient = Client<paths>;

export interface ApiClientOptions extends Omit<ClientOptions, 'baseUrl' | 'headers'> {
  /** The server's origin, e.g. http://127.0.0.1:3000 (the paths start with /v1). */
  readonly baseUrl: string;
  /** Sent as `Authorization: Bearer <key>`; a browser with a session cookie leaves it out. */
  readonly apiKey?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export function createApiClient(options: ApiClientOptions): ApiClient {
  const { apiKey, headers, ...rest } = options;
  return createClient<paths>({
    ...rest,
    headers: { accept: 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}), ...headers },
  });
}
