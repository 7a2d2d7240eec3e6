import { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Fastify's own logger (pino, one JSON line per entry) on stderr at `level`, or none. Fastify's two
 * lines per request are off: `registerRequestLog` writes one, at a level that depends on the status.
 */
export function serverLogging(level: LogLevel | undefined): Pick<FastifyServerOptions, 'logger' | 'logController'> {
  if (level === undefined) return { logger: false };
  return {
    logger: { level, stream: process.stderr },
    logController: new LogController({ disableRequestLogging: true }),
  };
}

/**
 * One line per request once it is answered: method, path, status and time. Successes are debug,
 * 4xx (a 413 body, a 429 rate limit, a bad key) warn and 5xx error. Only the path is written:
 * query strings may hold `?token=` (browsers' SSE key), endpoint ids are the only secret of an
 * endpoint URL (so they are cut to 6 characters), and headers and bodies are never logged.
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
      path: loggedPath(request.url),
      status,
      ms: Math.round(reply.elapsedTime * 10) / 10,
    };
    if (status >= 500) request.log.error(entry, 'request failed');
    else if (status >= 400) request.log.warn(entry, 'request refused');
    else request.log.debug(entry, 'request');
    done();
  });
}

function loggedPath(url: string): string {
  const path = url.split('?', 1)[0] ?? '';
  const endpoint = /^\/e\/([^/]{6})[^/]*/.exec(path);
  return endpoint ? `/e/${endpoint[1]}…${path.slice(endpoint[0].length)}` : path;
}
