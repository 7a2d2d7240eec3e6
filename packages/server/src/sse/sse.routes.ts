import type { Engine, EventRecord, LogRecord, SourceMessage } from '@tributary/engine';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  beginEventStream,
  CatchUpThenLive,
  holdEventStream,
  KEEPALIVE_MS,
  MAX_STREAM_BUFFER_BYTES,
  openStreams,
  type SseRouteOptions,
  type EventStreamWriter,
} from './sse-stream.js';
import { authenticateStream } from './stream-auth.js';

export { KEEPALIVE_MS } from './sse-stream.js';

/**
 * SSE streams of a source's events and logs (contract §9.3). Each frame's id is the entry's id;
 * a client that reconnects with Last-Event-ID first gets what it missed from the stored entries.
 * The subscription starts before the catch-up query, so nothing committed in between is lost.
 */
export function registerSse(app: FastifyInstance, engine: Engine, options: SseRouteOptions): void {
  const open = openStreams(app);
  const stream = (kind: 'event' | 'log') => async (request: FastifyRequest, reply: FastifyReply) => {
    await authenticateStream(engine, options.tickets, request, { allowQueryToken: true });
    const source = await engine.sources.resolve((request.params as Record<string, string>)['id'] ?? '');
    const header = request.headers['last-event-id'];
    const lastId = typeof header === 'string' && header !== '' ? header : null;
    let writer: EventStreamWriter | null = null;
    const frames = new CatchUpThenLive<EventRecord | LogRecord>((record) =>
      writer?.write(`id: ${record.id}\ndata: ${JSON.stringify(record)}\n\n`),
    );
    // Resolved once the port delivers to us, so the catch-up below cannot miss what lands between.
    const unsubscribe = await engine.pubsub.subscribe(source.id, (message: SourceMessage) => {
      if (message.kind === kind) frames.offer(message.record);
    });
    writer = beginEventStream(reply, ':sse-handshake', {
      maxBufferBytes: options.maxBufferBytes ?? MAX_STREAM_BUFFER_BYTES,
      log: options.log,
    });
    if (lastId !== null) {
      const missed =
        kind === 'event'
          ? await engine.events.after(source.id, lastId)
          : await engine.events.logsAfter(source.id, lastId);
      for (const record of missed) frames.write(record);
    }
    frames.goLive();
    holdEventStream(request, reply, writer, {
      open,
      keepaliveMs: options.keepaliveMs ?? KEEPALIVE_MS,
      onEnd: unsubscribe,
      metrics: engine.metrics,
    });
  };
  app.get('/sources/:id/sse', stream('event'));
  app.get('/sse/dc/:id/emits', stream('event'));
  app.get('/sources/:id/logs/sse', stream('log'));
  app.get('/sse/dc/:id/observations', stream('log'));
}
