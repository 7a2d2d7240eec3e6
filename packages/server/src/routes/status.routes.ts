import { ServerStatus, single } from '@tributary/contracts';
import type { Engine, NamedFailure } from '@tributary/engine';
import { route, type RouteSpec } from './route-table.js';

/** `GET /v1/status`: version, uptime, queue, pool, readiness and recent failures in one answer. */
export function statusRoutes(engine: Engine, version: string): RouteSpec[] {
  return [
    route({
      method: 'GET',
      url: '/v1/status',
      tag: 'meta',
      summary: 'How the server is doing: version, uptime, queue depth, sandbox pool, readiness, recent failures',
      response: single(ServerStatus),
      handler: async () => {
        const status = await engine.status.read();
        const data: ServerStatus = {
          version,
          started_at: Math.floor(status.startedAt / 1000),
          uptime_seconds: Math.floor(status.uptimeMs / 1000),
          storage: status.storage,
          ready: status.readiness.ready,
          not_ready: status.readiness.ready ? [] : [...status.readiness.failures],
          queue: status.queue.map((entry) => ({
            kind: entry.kind,
            depth: entry.depth,
            oldest_age_seconds: Math.round(entry.oldestAgeMs / 100) / 10,
          })),
          pool: { workers: status.pool.workers, busy: status.pool.busy, memory_bytes: status.pool.rssBytes },
          recent_failures: status.recentFailures.map(failureView),
        };
        return { data };
      },
    }),
  ];
}

function failureView(failure: NamedFailure): ServerStatus['recent_failures'][number] {
  const common = { code: failure.code, message: failure.message, at: Math.floor(failure.at / 1000) };
  switch (failure.kind) {
    case 'source':
      return {
        kind: 'source',
        source_id: failure.sourceId,
        source_name: failure.name,
        invocation_id: failure.invocationId,
        ...common,
      };
    case 'workflow':
      return {
        kind: 'workflow',
        workflow_id: failure.workflowId,
        workflow_name: failure.name,
        run_id: failure.runId,
        step: failure.step,
        ...common,
      };
  }
}
