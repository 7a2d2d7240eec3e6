import { AppError } from '@tributary/contracts';
import type { Engine } from '@tributary/engine';
import type { FastifyInstance } from 'fastify';
import { authenticate } from '../http/auth.js';

/**
 * The operator's probes: `/healthz` (the process answers: liveness), `/readyz` (it can do its work:
 * 503 with the reasons otherwise) and `/metrics` (Prometheus text). The probes take no key, as
 * load balancers and orchestrators call them; `/metrics` takes the API key unless `metricsPublic`.
 */
export function registerOpsRoutes(
  app: FastifyInstance,
  engine: Engine,
  options: { readonly metricsPublic: boolean },
): void {
  app.get('/healthz', () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const report = await engine.readiness.check();
    if (report.ready) return { status: 'ready' };
    const [first] = report.failures;
    void reply.status(503);
    return { status: 'not_ready', reason: first?.check, failures: report.failures };
  });
  app.get('/metrics', async (request, reply) => {
    if (!options.metricsPublic) await authenticate(engine, request, { allowQueryToken: false });
    const rendered = await engine.metrics.render();
    if (!rendered) throw new AppError('NOT_FOUND', 'metrics are off in this server (it was started without them)');
    void reply.header('content-type', rendered.contentType);
    return rendered.text;
  });
}
