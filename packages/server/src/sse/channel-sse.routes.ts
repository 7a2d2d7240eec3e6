import { AppError } from '@tributary/contracts';
import { CHANNEL_PATTERN, subscribeToChannel, type Engine, type EventRecord } from '@tributary/engine';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticate } from '../http/auth.js';
import { KEEPALIVE_MS } from './sse.routes.js';

/** How many of a channel's latest messages a new connection gets first (contract §9.3). */
export const CHANNEL_REPLAY = 100;

/**
 * `$.send.sse` channels: `GET /v1/sse/{channel}` streams what runs send to the channel, each
 * frame named after it (`event: <channel>`, `id:` the delivery id), after replaying the last 100.
 * Under /v1 the key goes in the Bearer header only, as on every /v1 route (a query string ends up
 * in logs); `GET /sse/{channel}`, beside the source streams, also takes `?token=` for browsers.
 */
export function registerChannelSse(
  app: FastifyInstance,
  engine: Engine,
  options: { readonly keepaliveMs?: number } = {},
): void {
  const open = new Set<(closing: boolean) => void>();
  app.addHook('preClose', (done) => {
    for (const end of [...open]) end(true);
    done();
  });
  const stream = (allowQueryToken: boolean) => async (request: FastifyRequest, reply: FastifyReply) => {
    await authenticate(engine, request, { allowQueryToken });
    const channel = (request.params as Record<string, string>)['channel'] ?? '';
    if (!CHANNEL_PATTERN.test(channel))
      throw new AppError('VALIDATION_FAILED', `channel: "${channel}" is not a valid channel name`, {
        field: 'channel',
      });
    const sent = new Set<string>();
    let live = false;
    const buffered: EventRecord[] = [];
    const write = (record: EventRecord): void => {
      if (sent.has(record.id)) return;
      sent.add(record.id);
      reply.raw.write(`event: ${channel}\nid: ${record.id}\ndata: ${JSON.stringify(record)}\n\n`);
    };
    // Subscribed before the replay is read, so a message sent in between is not lost (duplicates are dropped by id).
    const unsubscribe = await subscribeToChannel(engine.pubsub, channel, (message) => {
      if (message.kind !== 'event') return;
      if (live) write(message.record);
      else buffered.push(message.record);
    });
    reply.hijack();
    reply.raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    reply.raw.write(':keepalive\n\n');
    for (const record of await engine.deliveries.channelReplay(channel, CHANNEL_REPLAY)) write(record);
    for (const record of buffered.splice(0)) write(record);
    live = true;
    const keepalive = setInterval(() => reply.raw.write(':keepalive\n\n'), options.keepaliveMs ?? KEEPALIVE_MS);
    const end = (closing: boolean): void => {
      open.delete(end);
      clearInterval(keepalive);
      unsubscribe();
      if (closing && !reply.raw.writableEnded) reply.raw.end(() => reply.raw.socket?.end());
    };
    open.add(end);
    request.raw.on('close', () => end(false));
    if (request.raw.socket.destroyed) end(false);
  };
  app.get('/v1/sse/:channel', stream(false));
  app.get('/sse/:channel', stream(true));
}
