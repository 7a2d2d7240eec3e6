import type { Metrics } from '@tributary/engine';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export const KEEPALIVE_MS = 15_000;

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

/** Takes the response over as an event stream: the headers and a first comment line. */
export function beginEventStream(reply: FastifyReply, firstLine: string): void {
  reply.hijack();
  reply.raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  reply.raw.write(`${firstLine}\n\n`);
}

/**
 * Keeps a begun stream open after its catch-up: a keep-alive comment every `keepaliveMs`, and the
 * end (`onEnd` runs once) when the client leaves or the server closes.
 */
export function holdEventStream(
  request: FastifyRequest,
  reply: FastifyReply,
  options: {
    readonly open: Set<End>;
    readonly keepaliveMs: number;
    readonly onEnd: () => void;
    /** Counts the stream among the open SSE clients while it lasts. */
    readonly metrics: Metrics;
  },
): void {
  const keepalive = setInterval(() => reply.raw.write(':keepalive\n\n'), options.keepaliveMs);
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
