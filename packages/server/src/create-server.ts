import type { Engine } from '@tributary/engine';
import fastifyCookie from '@fastify/cookie';
import http from 'node:http';
import Fastify, { type FastifyBaseLogger, type FastifyHttpOptions, type FastifyInstance } from 'fastify';
import {
  clientErrorHandler,
  frameworkErrorHandler,
  installErrorHandler,
  installJsonParser,
} from './http/error-handler.js';
import { registerRequestLog, serverLogging, type LogLevel } from './http/request-log.js';
import { endpointOriginRule, registerEndpointOrigin } from './http/endpoint-origin.js';
import { registerRequestMetrics } from './http/request-metrics.js';
import { registerSecurityHeaders } from './http/security-headers.js';
import { registerOpsRoutes } from './routes/ops.routes.js';
import { EndpointIngress } from './ingress/endpoint-ingress.js';
import { registerOAuthPages } from './routes/oauth-pages.js';
import { apiRoutes } from './routes/api-routes.js';
import { registerRoutes } from './routes/route-table.js';
import { registerChannelSse } from './sse/channel-sse.routes.js';
import { registerInstallSse } from './sse/install-sse.routes.js';
import { registerSse } from './sse/sse.routes.js';
import { StreamTickets } from './sse/stream-tickets.js';
import { streamTicketRoutes } from './routes/stream-tickets.routes.js';
import { registerWebApp } from './web/web-app.js';

export interface ServerOptions {
  readonly engine: Engine;
  readonly version: string;
  readonly log: (message: string) => void;
  /** Largest JSON body of an API request (component code travels in it). */
  readonly apiBodyLimitBytes?: number;
  readonly responseDeadlineMs?: number;
  readonly sseKeepaliveMs?: number;
  /** Unread output an SSE client may leave before it is dropped (default 16 MB; docs/sse.md). */
  readonly sseMaxBufferBytes?: number;
  /** pino request log on stderr at this level (docs/server.md); none when absent. */
  readonly logLevel?: LogLevel;
  /** Where that log goes (default stderr). */
  readonly logStream?: NodeJS.WritableStream;
  /** A pino logger shared with the engine, used instead of `logLevel` and `logStream`. */
  readonly logger?: FastifyBaseLogger;
  /** The built web app (apps/web/dist), served at `/` with an SPA fallback; none when absent. */
  readonly webDir?: string;
  /**
   * An origin of its own for endpoints (TRIBUTARY_ENDPOINT_BASE_URL): `/e/` answers only on its
   * host, and nothing else does there (docs/server.md#endpoint-origin).
   */
  readonly endpointBaseUrl?: string;
  /** `/metrics` without an API key (TRIBUTARY_METRICS_PUBLIC): for a scraper on a private network. */
  readonly metricsPublic?: boolean;
}

/** The HTTP face of the engine: REST `/v1`, SSE, the HTTP-interface ingress, the probes and metrics, and the web app. */
export async function createServer(options: ServerOptions): Promise<FastifyInstance> {
  const { engine } = options;
  const originRule = options.endpointBaseUrl ? endpointOriginRule(options.endpointBaseUrl) : undefined;
  const ingress = new EndpointIngress({
    engine,
    log: options.log,
    ...(options.responseDeadlineMs ? { responseDeadlineMs: options.responseDeadlineMs } : {}),
    ...(originRule ? { originRule } : {}),
  });
  const app = Fastify({
    ...serverLogging(options.logLevel, options.logStream, options.logger),
    bodyLimit: options.apiBodyLimitBytes ?? 6 * 1024 * 1024,
    return503OnClosing: true,
    // Registry keys may be 128 characters and names 200 (percent-encoded: up to 12 characters each).
    routerOptions: { maxParamLength: 4096 },
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    // Endpoint requests (`/e/...`) go to the ingress before the framework sees them (EndpointIngress).
    serverFactory: (handler, settings) => endpointFirstServer(ingress, handler, settings),
  });
  ingress.useLogger(app.log);
  app.addHook('preClose', (done) => {
    ingress.close();
    done();
  });
  installErrorHandler(app, options.log);
  installJsonParser(app);
  // Browser sessions ride on a cookie (docs/rest-api.md#browser-sessions).
  await app.register(fastifyCookie);
  await registerSecurityHeaders(app);
  if (originRule) registerEndpointOrigin(app, originRule);
  registerRequestLog(app);
  registerRequestMetrics(app, engine.metrics);
  registerOpsRoutes(app, engine, { metricsPublic: options.metricsPublic ?? false });
  const tickets = new StreamTickets();
  registerRoutes(app, engine, apiRoutes(engine, options.version, streamTicketRoutes(tickets)));
  registerOAuthPages(app, engine);
  const sse = {
    tickets,
    log: options.log,
    ...(options.sseKeepaliveMs ? { keepaliveMs: options.sseKeepaliveMs } : {}),
    ...(options.sseMaxBufferBytes ? { maxBufferBytes: options.sseMaxBufferBytes } : {}),
  };
  registerSse(app, engine, sse);
  registerChannelSse(app, engine, sse);
  registerInstallSse(app, engine, sse);
  if (options.webDir !== undefined) await registerWebApp(app, options.webDir);
  return app;
}

/**
 * The HTTP server Fastify would make (its timeouts included), with the ingress answering endpoint
 * requests first and the framework the rest.
 */
function endpointFirstServer(
  ingress: EndpointIngress,
  framework: (req: http.IncomingMessage, res: http.ServerResponse) => void,
  settings: FastifyHttpOptions<http.Server>,
): http.Server {
  const server = http.createServer(settings.http ?? {}, (req, res) => {
    if (EndpointIngress.owns(req.url)) ingress.handle(req, res);
    else framework(req, res);
  });
  if (settings.keepAliveTimeout !== undefined) server.keepAliveTimeout = settings.keepAliveTimeout;
  if (settings.requestTimeout !== undefined) server.requestTimeout = settings.requestTimeout;
  if (settings.connectionTimeout !== undefined) server.setTimeout(settings.connectionTimeout);
  if (settings.maxRequestsPerSocket !== undefined && settings.maxRequestsPerSocket > 0)
    server.maxRequestsPerSocket = settings.maxRequestsPerSocket;
  return server;
}
