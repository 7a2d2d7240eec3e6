import type { Metrics } from '@tributary/engine';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { StreamTickets } from './stream-tickets.js';

/** What the composition root gives every SSE route (create-server.ts). */
export interface SseRouteOptions {
  readonly tickets: StreamTickets;
  readonly log: (message: string) => void;
  readonly keepaliveMs?: number;
  readonly maxBufferBytes?: number;
}

export const KEEPALIVE_MS = 15_000;

/**
 * Output a stream may hold for a client that does not read before it is dropped: above the
 * largest record (an invocation's 6 MB payload limit), far below what a few hundred slow clients
 * could take from the server's memory.
 */
export const MAX_STREAM_BUFFER_BYTES = 16 * 1024 * 1024;

/** The event name of the frame that says why the server ended a stream ("/" is in no channel name). */
export const CLOSE_EVENT = 'tributary/close';

/** How long a dropped client gets to read the close frame before its connection is cut. */
const DROP_GRACE_MS = 5_000;

/** Ends a stream: `closing` when the server shuts down (then the connection goes too). */
type End = (closing: boolean) => void;

/**
 * The open streams of one route group: streams never end by themselves, so on close the server
 * ends them, or it would wait for every client to leave.
 */
export function openStreams(app: FastifyInstance): Set<End> {
  const open = new Set<End>();
  app.addHook('preClose', (done) => {
    for (const end of [...open]) end(true);
    done();
  });
  return open;
}

/**
 * Records sent on a stream that subscribed before it read its catch-up: what arrives while the
 * catch-up is written waits, then goes out after it; a record is sent once, whichever way it came.
 */
export class CatchUpThenLive<R extends { readonly id: string }> {
  private readonly sent = new Set<string>();
  private readonly waiting: R[] = [];
  private live = false;

  constructor(private readonly send: (record: R) => void) {}

  /** A record from the subscription: sent now when live, else after the catch-up. */
  offer(record: R): void {
    if (this.live) this.write(record);
    else this.waiting.push(record);
  }

  /** A record of the catch-up. */
  write(record: R): void {
    if (this.sent.has(record.id)) return;
    this.sent.add(record.id);
    this.send(record);
  }

  /** The catch-up is written: what waited goes out, and the rest as it comes. */
  goLive(): void {
    for (const record of this.waiting.splice(0)) this.write(record);
    this.live = true;
  }
}

/**
 * One stream's output. Node buffers what the client has not read yet without limit; with more
 * than `maxBufferBytes` unread when the next frame comes, the client is dropped: a last `event: tributary/close` frame (a name no
 * channel can have) with the error
 * `SSE_CLIENT_TOO_SLOW` (a client that starts reading again sees why), then the connection ends.
 */
export class EventStreamWriter {
  private dropped = false;

  constructor(
    private readonly reply: FastifyReply,
    private readonly maxBufferBytes: number,
    private readonly onDropped: (bufferedBytes: number) => void,
  ) {}

  /** Writes, unless more than the limit is still unread: then the client is dropped instead. */
  write(text: string): void {
    if (this.dropped || this.reply.raw.writableEnded) return;
    // Checked before the write, so one record larger than the limit still reaches a reading client.
    if (this.reply.raw.writableLength > this.maxBufferBytes) this.drop();
    else this.reply.raw.write(text);
  }

  private drop(): void {
    this.dropped = true;
    const buffered = this.reply.raw.writableLength;
    this.onDropped(buffered);
    const error = {
      code: 'SSE_CLIENT_TOO_SLOW',
      message: `the client read too slowly: ${buffered} bytes were waiting, the limit is ${this.maxBufferBytes}; reconnect with Last-Event-ID to resume`,
    };
    this.reply.raw.end(`event: ${CLOSE_EVENT}\ndata: ${JSON.stringify({ error })}\n\n`);
    const socket = this.reply.raw.socket;
    setTimeout(() => socket?.destroy(), DROP_GRACE_MS).unref();
  }
}

/** Takes the response over as an event stream: the headers and a first comment line. */
export function beginEventStream(
  reply: FastifyReply,
  firstLine: string,
  options: { readonly maxBufferBytes: number; readonly log: (message: string) => void },
): EventStreamWriter {
  reply.hijack();
  reply.raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  reply.raw.write(`${firstLine}\n\n`);
  return new EventStreamWriter(reply, options.maxBufferBytes, (bufferedBytes) =>
    options.log(
      `SSE client of ${reply.request.routeOptions.url ?? 'a stream'} dropped: it read too slowly (${bufferedBytes} bytes waiting)`,
    ),
  );
}

/**
 * Keeps a begun stream open after its catch-up: a keep-alive comment every `keepaliveMs`, and the
 * end (`onEnd` runs once) when the client leaves or the server closes.
 */
export function holdEventStream(
  request: FastifyRequest,
  reply: FastifyReply,
  writer: EventStreamWriter,
  options: {
    readonly open: Set<End>;
    readonly keepaliveMs: number;
    readonly onEnd: () => void;
    /** Counts the stream among the open SSE clients while it lasts. */
    readonly metrics: Metrics;
  },
): void {
  const keepalive = setInterval(() => writer.write(':keepalive\n\n'), options.keepaliveMs);
  const closed = options.metrics.sseClientOpened();
  let ended = false;
  const end = (closing: boolean): void => {
    // A shutdown ends the stream, then its connection's close comes too: the end runs once.
    if (ended) return;
    ended = true;
    closed();
    options.open.delete(end);
    clearInterval(keepalive);
    options.onEnd();
    // On shutdown the connection goes too, instead of idling until the client drops it.
    if (closing && !reply.raw.writableEnded) reply.raw.end(() => reply.raw.socket?.end());
  };
  options.open.add(end);
  request.raw.on('close', () => end(false));
  if (request.raw.socket.destroyed) end(false); // the client left during the catch-up
}
