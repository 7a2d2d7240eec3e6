import { ApiKey, CreateApiKeyBody, CreatedApiKey, list, single } from '@tributary/contracts';
import type { ApiKeyRecord, Engine } from '@tributary/engine';
import { z } from 'zod';
import { pageInfo } from './pagination.js';
import { route, type RouteSpec } from './route-table.js';

const seconds = (ms: number | null): number | null => (ms === null ? null : Math.floor(ms / 1000));

function apiKeyToApi(record: ApiKeyRecord): z.infer<typeof ApiKey> {
  return {
    id: record.id,
    name: record.name,
    prefix: record.prefix,
    created_at: Math.floor(record.createdAt / 1000),
    last_used_at: seconds(record.lastUsedAt),
    revoked_at: seconds(record.revokedAt),
  };
}

/** API keys management: the full key is in the create answer only. */
export function apiKeyRoutes(engine: Engine): RouteSpec[] {
  return [
    route({
      method: 'GET',
      url: '/v1/api_keys',
      tag: 'api_keys',
      summary: 'List API keys (never the keys themselves), revoked ones included',
      response: list(ApiKey),
      handler: async () => {
        const records = await engine.apiKeys.list();
        return { page_info: pageInfo(records, records.length), data: records.map(apiKeyToApi) };
      },
    }),
    route({
      method: 'POST',
      url: '/v1/api_keys',
      tag: 'api_keys',
      summary: 'Create an API key; the answer is the only time the key is shown',
      body: CreateApiKeyBody,
      response: single(CreatedApiKey),
      status: 201,
      handler: async ({ body }) => {
        const { key, record } = await engine.apiKeys.create(body.name);
        return { data: { ...apiKeyToApi(record), key } };
      },
    }),
    route({
      method: 'DELETE',
      url: '/v1/api_keys/:id',
      tag: 'api_keys',
      summary: 'Revoke an API key: requests with it get 401 from now on',
      response: z.object({}),
      handler: async ({ params }) => {
        await engine.apiKeys.revoke(params['id'] ?? '');
        return {};
      },
    }),
  ];
}
