import { AppError } from '@tributary/contracts';
import { CHANNEL_PATTERN, subscribeToChannel, type Engine, type EventRecord } from '@tributary/engine';
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

/** How many of a channel's latest messages a new connection gets first (contract §9.3). */
export const CHANNEL_REPLAY = 100;

/**
 * `$.send.sse` channels: `GET /v1/sse/{channel}` streams what runs send to the channel, each
 * frame named after it (`event: <channel>`, `id:` the delivery id), after replaying the last 100.
 * Under /v1 the key goes in the Bearer header only, as on every /v1 route (a query string ends up
 * in logs); `GET /sse/{channel}`, beside the source streams, also takes `?token=` for browsers.
 */
export function registerChannelSse(app: FastifyInstance, engine: Engine, options: SseRouteOptions): void {
  const open = openStreams(app);
  const stream = (allowQueryToken: boolean) => async (request: FastifyRequest, reply: FastifyReply) => {
    await authenticateStream(engine, options.tickets, request, { allowQueryToken });
    const channel = (request.params as Record<string, string>)['channel'] ?? '';
    if (!CHANNEL_PATTERN.test(channel))
      throw new AppError('VALIDATION_FAILED', `channel: "${channel}" is not a valid channel name`, {
        field: 'channel',
      });
    let writer: EventStreamWriter | null = null;
    const frames = new CatchUpThenLive<EventRecord>((record) =>
      writer?.write(`event: ${channel}\nid: ${record.id}\ndata: ${JSON.stringify(record)}\n\n`),
    );
    // Subscribed before the replay is read, so a message sent in between is not lost (duplicates are dropped by id).
    const unsubscribe = await subscribeToChannel(engine.pubsub, channel, (message) => {
      if (message.kind === 'event') frames.offer(message.record);
    });
    writer = beginEventStream(reply, ':keepalive', {
      maxBufferBytes: options.maxBufferBytes ?? MAX_STREAM_BUFFER_BYTES,
      log: options.log,
    });
    for (const record of await engine.deliveries.channelReplay(channel, CHANNEL_REPLAY)) frames.write(record);
    frames.goLive();
    holdEventStream(request, reply, writer, {
      open,
      keepaliveMs: options.keepaliveMs ?? KEEPALIVE_MS,
      onEnd: unsubscribe,
      metrics: engine.metrics,
    });
  };
  app.get('/v1/sse/:channel', stream(false));
  app.get('/sse/:channel', stream(true));
}
