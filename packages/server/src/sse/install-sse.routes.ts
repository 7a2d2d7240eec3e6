import type { Engine, InstallProgressListener } from '@tributary/engine';
import type { FastifyInstance } from 'fastify';
import { callerOf, parseProgressId, streamShows } from '../http/install-scope.js';
import {
  beginEventStream,
  holdEventStream,
  KEEPALIVE_MS,
  MAX_STREAM_BUFFER_BYTES,
  openStreams,
  type SseRouteOptions,
} from './sse-stream.js';
import { authenticateStream } from './stream-auth.js';

/**
 * `GET /v1/installs/sse`: the npm installs this server runs for components, as they start and
 * finish (`event: install`, data `{ phase, packages, duration_ms?, code?, message? }`). A client
 * opens it before a save or deploy whose code imports packages and shows the lines while the
 * request waits. Scoped (docs/sse.md#install-progress): `?progress=<id>` shows the installs of
 * requests that sent `X-Tributary-Progress: <id>`; without it, those of requests signed in with
 * the stream's own key or browser session. Nothing is replayed: an install is only news while it runs.
 */
export function registerInstallSse(app: FastifyInstance, engine: Engine, options: SseRouteOptions): void {
  const open = openStreams(app);
  app.get('/v1/installs/sse', async (request, reply) => {
    const credential = await authenticateStream(engine, options.tickets, request, { allowQueryToken: false });
    const scope = {
      progressId: parseProgressId((request.query as Record<string, unknown> | undefined)?.['progress'], 'progress'),
      caller: callerOf(credential),
    };
    const writer = beginEventStream(reply, ':keepalive', {
      maxBufferBytes: options.maxBufferBytes ?? MAX_STREAM_BUFFER_BYTES,
      log: options.log,
    });
    const unsubscribe = engine.installs.subscribe((progress, install) => {
      if (streamShows(scope, install))
        writer.write(`event: install\ndata: ${JSON.stringify(installData(progress))}\n\n`);
    });
    holdEventStream(request, reply, writer, {
      open,
      keepaliveMs: options.keepaliveMs ?? KEEPALIVE_MS,
      onEnd: unsubscribe,
      metrics: engine.metrics,
    });
  });
}

type InstallProgress = Parameters<InstallProgressListener>[0];

/** The wire shape of one install line (snake_case, as every API body). */
function installData(progress: InstallProgress): Record<string, unknown> {
  switch (progress.phase) {
    case 'installing':
    case 'cached':
      return { phase: progress.phase, packages: progress.packages };
    case 'installed':
      return { phase: progress.phase, packages: progress.packages, duration_ms: progress.durationMs };
    case 'failed':
      return {
        phase: progress.phase,
        packages: progress.packages,
        duration_ms: progress.durationMs,
        code: progress.code,
        message: progress.message,
      };
  }
}
