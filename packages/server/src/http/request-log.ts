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

/** What one request's log line says: never headers, bodies, queries or endpoint ids. */
export interface RequestLine {
  readonly method: string;
  readonly route: string;
  readonly status: number;
  readonly ms: number;
}

/** Whether successes are logged at all (debug): the ingress's hot path skips building their lines otherwise. */
export function logsSuccesses(log: FastifyBaseLogger): boolean {
  return log.level === 'debug' || log.level === 'trace';
}

/** Writes a request's line: successes at debug, 4xx (a 413 body, a 429 rate limit, a bad key) warn, 5xx error. */
export function logRequest(log: FastifyBaseLogger, line: RequestLine): void {
  if (line.status >= 500) log.error(line, 'request failed');
  else if (line.status >= 400) log.warn(line, 'request refused');
  else log.debug(line, 'request');
}

/**
 * One line per request once it is answered: method, route, status and time. The route is the
 * pattern that matched (`/sources/:id/sse`, `/e/:endpointId/*`), or for a request no route matched
 * the first segment of its path: query strings may hold `?token=` (browsers' SSE key) and endpoint
 * ids are the only secret of an endpoint URL. Headers and bodies are never logged. The ingress
 * (`/e/`, answered before the framework) writes the same lines itself.
 */
export function registerRequestLog(app: FastifyInstance): void {
  const logSuccesses = logsSuccesses(app.log);
  app.addHook('onResponse', (request, reply, done) => {
    const status = reply.statusCode;
    if (status < 400 && !logSuccesses) {
      done();
      return;
    }
    logRequest(request.log, {
      method: request.method,
      route: loggedRoute(request),
      status,
      ms: Math.round(reply.elapsedTime * 10) / 10,
    });
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
