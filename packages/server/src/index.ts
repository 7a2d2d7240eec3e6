/**
 * @module @tributary/server
 * Fastify on top of the engine: the REST API (`/v1`, Pipedream's shapes), SSE streams, the
 * HTTP-interface ingress (`/e/{endpointId}`), `/healthz` and `/v1/openapi.json`.
 */
export { createServer } from './create-server.js';
export type { ServerOptions } from './create-server.js';
export { LOG_LEVELS } from './http/request-log.js';
export type { LogLevel } from './http/request-log.js';
export { apiRoutes } from './routes/api-routes.js';
export type { RouteSpec } from './routes/route-table.js';
