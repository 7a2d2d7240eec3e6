import { AppError } from '@tributary/contracts';
import type { FastifyInstance } from 'fastify';

const ENDPOINT_PATH = /^\/e(?:\/|$)/;
/** Probes a load balancer may send to either name. */
const PROBES = /^\/(?:healthz|readyz)$/;

/**
 * Serves endpoints (`/e/...`) from an origin of their own (TRIBUTARY_ENDPOINT_BASE_URL): a
 * component's response is a page its author wrote, and on the web app's origin its scripts could
 * call the API with the signed-in browser's session. Routing is by the Host header, so one listener
 * serves both names: on the endpoint host only `/e/` (and the probes) answer, elsewhere `/e/` does
 * not.
 */
export function registerEndpointOrigin(app: FastifyInstance, endpointBaseUrl: string): void {
  const endpointHost = new URL(endpointBaseUrl).host.toLowerCase();
  app.addHook('onRequest', async (request) => {
    const path = request.url.split('?', 1)[0] ?? '/';
    if (PROBES.test(path)) return;
    const onEndpointHost = (request.headers.host ?? '').toLowerCase() === endpointHost;
    const endpointPath = ENDPOINT_PATH.test(path);
    if (onEndpointHost && !endpointPath)
      throw new AppError(
        'NOT_FOUND',
        `${endpointHost} serves endpoints (/e/...) only; the web app and API are elsewhere`,
      );
    if (!onEndpointHost && endpointPath)
      throw new AppError('NOT_FOUND', `endpoints are served at ${endpointBaseUrl}/e/..., not on this host`);
  });
}
