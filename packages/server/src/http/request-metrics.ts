import type { Metrics } from '@tributary/engine';
import type { FastifyInstance } from 'fastify';
import { loggedRoute } from './request-log.js';

/** The HTTP-interface ingress routes (ingress.routes.ts): their answers are the ingress's acknowledgements. */
const INGRESS_ROUTES = new Set(['/e/:endpointId', '/e/:endpointId/*']);

/**
 * Every answered request in the request metric, labelled with the matched route pattern (never the
 * path: it holds endpoint ids, and one label value per URL would grow without bound); requests to
 * HTTP endpoints count as ingress acknowledgements too. SSE streams are counted when they end.
 */
export function registerRequestMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    const route = loggedRoute(request);
    const status = reply.statusCode;
    metrics.httpRequest({ method: request.method, route, status, seconds: reply.elapsedTime / 1000 });
    if (INGRESS_ROUTES.has(route)) metrics.ingressAcknowledged(status);
    done();
  });
}
