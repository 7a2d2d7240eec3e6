import type { Engine, SourceMessage } from '@tributary/engine';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticate } from '../http/auth.js';

export const KEEPALIVE_MS = 15_000;

/**
 * SSE streams of a source's events and logs (contract §9.3). Each frame's id is the entry's id;
 * a client that reconnects with Last-Event-ID first gets what it missed from the stored entries.
 * The subscription starts before the catch-up query, so nothing committed in between is lost.
 */
export function registerSse(
  app: FastifyInstance,
  engine: Engine,
  options: { readonly keepaliveMs?: number } = {},
): void {
  // Streams never end by themselves: close() ends them, or it would wait for every client to leave.
  const open = new Set<(closing: boolean) => void>();
  app.addHook('preClose', (done) => {
    for (const end of [...open]) end(true);
    done();
  });
  const stream = (kind: 'event' | 'log') => async (request: FastifyRequest, reply: FastifyReply) => {
    await authenticate(engine, request, { allowQueryToken: true });
    const source = await engine.sources.resolve((request.params as Record<string, string>)['id'] ?? '');
    const header = request.headers['last-event-id'];
    const lastId = typeof header === 'string' && header !== '' ? header : null;
    const sent = new Set<string>();
    let live = false;
    const buffered: SourceMessage[] = [];
    const write = (message: SourceMessage): void => {
      if (message.kind !== kind || sent.has(message.record.id)) return;
      sent.add(message.record.id);
      reply.raw.write(`id: ${message.record.id}\ndata: ${JSON.stringify(message.record)}\n\n`);
    };
    // Resolved once the port delivers to us, so the catch-up below cannot miss what lands between.
    const unsubscribe = await engine.pubsub.subscribe(source.id, (message) =>
      live ? write(message) : buffered.push(message),
    );
    reply.hijack();
    reply.raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    reply.raw.write(':sse-handshake\n\n');
    if (lastId !== null) {
      const missed =
        kind === 'event'
          ? await engine.events.after(source.id, lastId)
          : await engine.events.logsAfter(source.id, lastId);
      for (const record of missed) write({ kind, sourceId: source.id, record } as SourceMessage);
    }
    for (const message of buffered.splice(0)) write(message);
    live = true;
    const keepalive = setInterval(() => reply.raw.write(':keepalive\n\n'), options.keepaliveMs ?? KEEPALIVE_MS);
    const end = (closing: boolean): void => {
      open.delete(end);
      clearInterval(keepalive);
      unsubscribe();
      // On shutdown the connection goes too, instead of idling until the client drops it.
      if (closing && !reply.raw.writableEnded) reply.raw.end(() => reply.raw.socket?.end());
    };
    open.add(end);
    request.raw.on('close', () => end(false));
    if (request.raw.socket.destroyed) end(false); // the client left during the catch-up
  };
  app.get('/sources/:id/sse', stream('event'));
  app.get('/sse/dc/:id/emits', stream('event'));
  app.get('/sources/:id/logs/sse', stream('log'));
  app.get('/sse/dc/:id/observations', stream('log'));
}
