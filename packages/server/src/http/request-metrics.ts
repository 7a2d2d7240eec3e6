import type { Metrics } from '@tributary/engine';
import type { FastifyInstance } from 'fastify';
import { loggedRoute } from './request-log.js';

/**
 * Every request the API's framework answers in the request metric, labelled with the matched route
 * pattern (never the path: one label value per URL would grow without bound). SSE streams are
 * counted when they end. The ingress (`/e/`, answered before the framework) counts its own requests,
 * under `/e/:endpointId` and `/e/:endpointId/*`, as acknowledgements too.
 */
export function registerRequestMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    metrics.httpRequest({
      method: request.method,
      route: loggedRoute(request),
      status: reply.statusCode,
      seconds: reply.elapsedTime / 1000,
    });
    done();
  });
}
