import type { Engine } from '@tributary/engine';
import fastifyCookie from '@fastify/cookie';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import {
  clientErrorHandler,
  frameworkErrorHandler,
  installErrorHandler,
  installJsonParser,
} from './http/error-handler.js';
import { registerRequestLog, serverLogging, type LogLevel } from './http/request-log.js';
import { registerRequestMetrics } from './http/request-metrics.js';
import { registerOpsRoutes } from './routes/ops.routes.js';
import { statusRoutes } from './routes/status.routes.js';
import { registerIngress } from './ingress/ingress.routes.js';
import { accountRoutes } from './routes/accounts.routes.js';
import { apiKeyRoutes } from './routes/api-keys.routes.js';
import { appRoutes } from './routes/apps.routes.js';
import { callRoutes } from './routes/calls.routes.js';
import { componentRoutes } from './routes/components.routes.js';
import { registryRoutes } from './routes/registry.routes.js';
import { deadLetterRoutes } from './routes/dead-letters.routes.js';
import { registerOAuthPages } from './routes/oauth-pages.js';
import { oauthRoutes } from './routes/oauth.routes.js';
import { buildOpenApi } from './routes/openapi.js';
import { registerRoutes, route } from './routes/route-table.js';
import { sessionRoutes } from './routes/session.routes.js';
import { sourceRoutes } from './routes/sources.routes.js';
import { subscriptionRoutes } from './routes/subscriptions.routes.js';
import { registerChannelSse } from './sse/channel-sse.routes.js';
import { workflowRoutes } from './routes/workflows.routes.js';
import { registerSse } from './sse/sse.routes.js';
import { registerWebApp } from './web/web-app.js';
import { z } from 'zod';

export interface ServerOptions {
  readonly engine: Engine;
  readonly version: string;
  readonly log: (message: string) => void;
  /** Largest JSON body of an API request (component code travels in it). */
  readonly apiBodyLimitBytes?: number;
  readonly responseDeadlineMs?: number;
  readonly sseKeepaliveMs?: number;
  /** pino request log on stderr at this level (docs/server.md); none when absent. */
  readonly logLevel?: LogLevel;
  /** Where that log goes (default stderr). */
  readonly logStream?: NodeJS.WritableStream;
  /** A pino logger shared with the engine, used instead of `logLevel` and `logStream`. */
  readonly logger?: FastifyBaseLogger;
  /** The built web app (apps/web/dist), served at `/` with an SPA fallback; none when absent. */
  readonly webDir?: string;
  /** `/metrics` without an API key (TRIBUTARY_METRICS_PUBLIC): for a scraper on a private network. */
  readonly metricsPublic?: boolean;
}

/** The HTTP face of the engine: REST `/v1`, SSE, the HTTP-interface ingress, the probes and metrics, and the web app. */
export async function createServer(options: ServerOptions): Promise<FastifyInstance> {
  const { engine } = options;
  const app = Fastify({
    ...serverLogging(options.logLevel, options.logStream, options.logger),
    bodyLimit: options.apiBodyLimitBytes ?? 6 * 1024 * 1024,
    return503OnClosing: true,
    // Registry keys may be 128 characters and names 200 (percent-encoded: up to 12 characters each).
    routerOptions: { maxParamLength: 4096 },
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
  });
  installErrorHandler(app, options.log);
  installJsonParser(app);
  // Browser sessions ride on a cookie (docs/rest-api.md#browser-sessions).
  await app.register(fastifyCookie);
  registerRequestLog(app);
  registerRequestMetrics(app, engine.metrics);
  registerOpsRoutes(app, engine, { metricsPublic: options.metricsPublic ?? false });
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
    ...statusRoutes(engine, options.version),
  ];
  const openapi = buildOpenApi(routes, options.version);
  routes.push(
    route({
      method: 'GET',
      url: '/v1/openapi.json',
      tag: 'meta',
      summary: 'This OpenAPI document',
      response: z.record(z.string(), z.unknown()),
      handler: () => Promise.resolve(openapi),
    }),
  );
  registerRoutes(app, engine, routes);
  registerOAuthPages(app, engine);
  registerSse(app, engine, options.sseKeepaliveMs ? { keepaliveMs: options.sseKeepaliveMs } : {});
  registerChannelSse(app, engine, options.sseKeepaliveMs ? { keepaliveMs: options.sseKeepaliveMs } : {});
  await registerIngress(
    app,
    engine,
    options.responseDeadlineMs ? { responseDeadlineMs: options.responseDeadlineMs } : {},
  );
  if (options.webDir !== undefined) await registerWebApp(app, options.webDir);
  return app;
}
