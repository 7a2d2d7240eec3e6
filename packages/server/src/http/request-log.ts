import {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Fastify's own logger (pino, one JSON line per entry) on stderr at `level`, or none. Fastify's two
 * lines per request are off: `registerRequestLog` writes one, at a level that depends on the status.
 */
export function serverLogging(
  level: LogLevel | undefined,
  stream: NodeJS.WritableStream = process.stderr,
  shared?: FastifyBaseLogger,
): Pick<FastifyServerOptions, 'logger' | 'logController' | 'loggerInstance'> {
  // The log `tributary start` shares with the engine: its level and stream are already set.
  if (shared) return { loggerInstance: shared, logController: new LogController({ disableRequestLogging: true }) };
  if (level === undefined) return { logger: false };
  return {
    logger: { level, stream },
    logController: new LogController({ disableRequestLogging: true }),
  };
}

/**
 * One line per request once it is answered: method, route, status and time. Successes are debug,
 * 4xx (a 413 body, a 429 rate limit, a bad key) warn and 5xx error. The route is the pattern that
 * matched (`/sources/:id/sse`, `/e/:endpointId/*`), or for a request no route matched the first
 * segment of its path: query strings may hold `?token=` (browsers' SSE key) and endpoint
 * ids are the only secret of an endpoint URL. Headers and bodies are never logged.
 */
export function registerRequestLog(app: FastifyInstance): void {
  // Successes are the hot path of the ingress: skip building their entry unless debug is on.
  const logSuccesses = app.log.level === 'debug' || app.log.level === 'trace';
  app.addHook('onResponse', (request, reply, done) => {
    const status = reply.statusCode;
    if (status < 400 && !logSuccesses) {
      done();
      return;
    }
    const entry = {
      method: request.method,
      route: loggedRoute(request),
      status,
      ms: Math.round(reply.elapsedTime * 10) / 10,
    };
    if (status >= 500) request.log.error(entry, 'request failed');
    else if (status >= 400) request.log.warn(entry, 'request refused');
    else request.log.debug(entry, 'request');
    done();
  });
}

/** What a log line may say about a request's URL: the route pattern, else the redacted path. */
export function loggedRoute(request: FastifyRequest): string {
  return request.routeOptions.url ?? redactedPath(request.url);
}

/**
 * For a request no route matched: its first path segment only (`/v1/…`, `/e/…`). The rest of an
 * unmatched path is anything a client typed, an endpoint id or a key included.
 */
export function redactedPath(url: string): string {
  const path = url.split('?', 1)[0] ?? '';
  const first = /^\/[^/]*/.exec(path)?.[0] ?? '/';
  return path.length > first.length ? `${first}/…` : first;
}
