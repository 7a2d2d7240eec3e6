import { AppError } from '@tributary/contracts';
import type { FastifyInstance } from 'fastify';

const ENDPOINT_PATH = /^\/e(?:\/|$)/;
/** Probes a load balancer may send to either name. */
const PROBES = /^\/(?:healthz|readyz)$/;

/** The refusal of a request on the wrong host for its path, or null when it may go on. */
export type OriginRule = (host: string | undefined, path: string) => AppError | null;

/**
 * Serves endpoints (`/e/...`) from an origin of their own (TRIBUTARY_ENDPOINT_BASE_URL): a
 * component's response is a page its author wrote, and on the web app's origin its scripts could
 * call the API with the signed-in browser's session. Routing is by the Host header, so one listener
 * serves both names: on the endpoint host only `/e/` (and the probes) answer, elsewhere `/e/` does
 * not. The ingress (which answers `/e/` before the API's framework) and the API apply the same rule.
 */
export function endpointOriginRule(endpointBaseUrl: string): OriginRule {
  const endpointHost = new URL(endpointBaseUrl).host.toLowerCase();
  return (host, path) => {
    if (PROBES.test(path)) return null;
    const onEndpointHost = (host ?? '').toLowerCase() === endpointHost;
    const endpointPath = ENDPOINT_PATH.test(path);
    if (onEndpointHost && !endpointPath)
      return new AppError(
        'NOT_FOUND',
        `${endpointHost} serves endpoints (/e/...) only; the web app and API are elsewhere`,
      );
    if (!onEndpointHost && endpointPath)
      return new AppError('NOT_FOUND', `endpoints are served at ${endpointBaseUrl}/e/..., not on this host`);
    return null;
  };
}

/** The rule for the requests the API's framework answers (everything but the ingress's `/e/`). */
export function registerEndpointOrigin(app: FastifyInstance, rule: OriginRule): void {
  app.addHook('onRequest', async (request) => {
    const refusal = rule(request.headers.host, request.url.split('?', 1)[0] ?? '/');
    if (refusal) throw refusal;
  });
}
