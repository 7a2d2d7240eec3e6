import type { Engine } from '@tributary/engine';
import { z } from 'zod';
import { accountRoutes } from './accounts.routes.js';
import { apiKeyRoutes } from './api-keys.routes.js';
import { appRoutes } from './apps.routes.js';
import { callRoutes } from './calls.routes.js';
import { componentRoutes } from './components.routes.js';
import { deadLetterRoutes } from './dead-letters.routes.js';
import { oauthRoutes } from './oauth.routes.js';
import { buildOpenApi } from './openapi.js';
import { registryRoutes } from './registry.routes.js';
import { route, type RouteSpec } from './route-table.js';
import { sessionRoutes } from './session.routes.js';
import { sourceRoutes } from './sources.routes.js';
import { statusRoutes } from './status.routes.js';
import { subscriptionRoutes } from './subscriptions.routes.js';
import { workflowRoutes } from './workflows.routes.js';

/**
 * The route table of the REST API, `/v1/openapi.json` included: every route here is in the
 * document, described by the schemas that validate it.
 */
export function apiRoutes(engine: Engine, version: string, extra: readonly RouteSpec[] = []): RouteSpec[] {
  // The fixed paths (/v1/components/configure, /v1/components/props) sit beside /v1/components/:id; the router prefers them.
  const routes = [
    ...componentRoutes(engine),
    ...registryRoutes(engine),
    ...callRoutes(engine),
    ...sourceRoutes(engine),
    ...appRoutes(engine),
    ...oauthRoutes(engine),
    ...accountRoutes(engine),
    ...apiKeyRoutes(engine),
    ...sessionRoutes(engine),
    ...deadLetterRoutes(engine),
    ...subscriptionRoutes(engine),
    ...workflowRoutes(engine),
    ...statusRoutes(engine, version),
    ...extra,
  ];
  const self = route({
    method: 'GET',
    url: '/v1/openapi.json',
    tag: 'meta',
    summary: 'This OpenAPI document',
    response: z.record(z.string(), z.unknown()),
    handler: () => Promise.resolve(openapi),
  });
  const openapi = buildOpenApi([...routes, self], version);
  return [...routes, self];
}
