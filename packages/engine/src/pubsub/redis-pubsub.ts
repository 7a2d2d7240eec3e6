import { errorMessage } from '@tributary/contracts';
import type { HttpResponse } from '@tributary/runtime';
import type { Redis } from 'ioredis';
import type {
  PubSub,
  PubSubStats,
  SourceListener,
  SourceMessage,
  StopRequest,
  StopRunsListener,
  Unsubscribe,
} from './pubsub.js';
import {
  decodeReply,
  decodeSourceMessage,
  decodeStopRuns,
  encodeReply,
  encodeSourceMessage,
  encodeStopRuns,
} from './redis-wire.js';
import { ListenerSet } from './listener-set.js';
import { ReplyWaiters } from './reply-waiters.js';
import { SourceFanout } from './source-fanout.js';

export interface RedisPubSubOptions {
  /** Runs PUBLISH and the reply script. Closed by `close()`. */
  readonly publisher: Redis;
  /** A connection of its own: SUBSCRIBE puts it in subscriber mode. Closed by `close()`. */
  readonly subscriber: Redis;
  /** Put before every channel and key, so several installations can share one Redis. */
  readonly prefix: string;
  /** Where a listener's exception or an undeliverable message goes (default: dropped). */
  readonly log?: (message: string) => void;
  /** Unclaimed replies this process keeps for a waiter that comes late (default 1024). */
  readonly keepReplies?: number;
  /** How long Redis keeps a reply for a waiter that comes late, and drops repeats (default 60 s). */
  readonly replyTtlMs?: number;
}

const DEFAULT_REPLY_TTL_MS = 60_000;

/**
 * The first reply of an invocation wins across every process: SET NX decides it, and only the
 * winner is published, atomically, so no process can see a second reply before the first.
 * KEYS[1] the reply key; ARGV[1] the encoded reply, ARGV[2] its TTL in ms, ARGV[3] the channel.
 */
const PUBLISH_FIRST_REPLY = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  redis.call('PUBLISH', ARGV[3], ARGV[1])
  return 1
end
return 0
`;

interface Channel {
  count: number;
  readonly ready: Promise<unknown>;
}

/**
 * PubSub over Redis, for several processes serving one installation. Each process keeps one
 * subscriber connection: a source channel is subscribed while this process has a listener of that
 * source, and every message received is dispatched locally through `SourceFanout`, so local
 * delivery behaves exactly like the memory implementation. Replies are broadcast on one channel
 * to every process (only customResponse invocations have them) and also kept under a key for
 * `replyTtlMs`, which a waiter reads after registering, so a reply that beat it is not lost. Stop
 * requests go on one more channel, subscribed from `open` on like the replies': they are rare, and
 * a process that runs no invocations simply has no listener for them.
 *
 * Order: one process publishes on one connection, and Redis delivers a connection's PUBLISHes to
 * each subscriber in order, so a source's messages arrive in the order its publisher sent them.
 */
export class RedisPubSub implements PubSub {
  private readonly fanout: SourceFanout;
  private readonly replies: ReplyWaiters;
  private readonly stopListeners: ListenerSet<StopRequest>;
  private readonly channels = new Map<string, Channel>();
  private readonly publisher: Redis;
  private readonly subscriber: Redis;
  private readonly prefix: string;
  private readonly replyChannel: string;
  private readonly stopChannel: string;
  private readonly replyTtlMs: number;
  private readonly log: (message: string) => void;

  private constructor(options: RedisPubSubOptions) {
    this.publisher = options.publisher;
    this.subscriber = options.subscriber;
    this.prefix = options.prefix;
    this.replyChannel = `${options.prefix}replies`;
    this.stopChannel = `${options.prefix}stop-runs`;
    this.replyTtlMs = options.replyTtlMs ?? DEFAULT_REPLY_TTL_MS;
    this.log = options.log ?? (() => undefined);
    this.fanout = new SourceFanout((error) => this.log(`a live subscriber failed: ${errorMessage(error)}`));
    this.replies = new ReplyWaiters(options.keepReplies !== undefined ? { keep: options.keepReplies } : {});
    this.stopListeners = new ListenerSet<StopRequest>((error) =>
      this.log(`stopping runs failed: ${errorMessage(error)}`),
    );
    this.subscriber.on('message', (channel: string, text: string) => this.receive(channel, text));
  }

  /**
   * Resolves once the reply and stop channels are subscribed: from then on no reply or stop request
   * to this process is missed (while Redis is reachable).
   */
  static async open(options: RedisPubSubOptions): Promise<RedisPubSub> {
    const pubsub = new RedisPubSub(options);
    await options.subscriber.subscribe(pubsub.replyChannel, pubsub.stopChannel);
    return pubsub;
  }

  publish(message: SourceMessage): void {
    try {
      this.publisher
        .publish(this.sourceChannel(message.sourceId), encodeSourceMessage(message))
        .catch((error: unknown) => this.lost(`a message of ${message.sourceId}`, error));
    } catch (error) {
      // A payload JSON cannot encode: the event bin has it; live subscribers miss it.
      this.lost(`a message of ${message.sourceId}`, error);
    }
  }

  async subscribe(sourceId: string, listener: SourceListener): Promise<Unsubscribe> {
    const removeListener = this.fanout.add(sourceId, listener);
    let done = false;
    const unsubscribe = (): void => {
      if (done) return;
      done = true;
      removeListener();
      this.release(sourceId);
    };
    try {
      await this.acquire(sourceId);
    } catch (error) {
      unsubscribe();
      throw error;
    }
    return unsubscribe;
  }

  awaitReply(invocationId: string, signal?: AbortSignal): Promise<HttpResponse | null> {
    const waiting = this.replies.wait(invocationId, signal);
    if (!signal?.aborted) {
      // Registered first, read second: a reply stored before the wait began is found here, one
      // published after it arrives on the channel; whichever comes first counts, the other is dropped.
      this.publisher
        .get(this.replyKey(invocationId))
        .then((stored) => {
          if (stored !== null) this.replies.deliver(invocationId, decodeReply(stored).response);
        })
        .catch((error: unknown) => this.lost(`the stored reply of ${invocationId}`, error));
    }
    return waiting;
  }

  cancelReplyWait(invocationId: string, reason: unknown): void {
    this.replies.cancel(invocationId, reason);
  }

  publishReply(invocationId: string, response: HttpResponse | null): void {
    this.publisher
      .eval(
        PUBLISH_FIRST_REPLY,
        1,
        this.replyKey(invocationId),
        encodeReply(invocationId, response),
        String(this.replyTtlMs),
        this.replyChannel,
      )
      .catch((error: unknown) => this.lost(`the reply of ${invocationId}`, error));
  }

  publishStopRuns(request: StopRequest): void {
    this.publisher
      .publish(this.stopChannel, encodeStopRuns(request))
      .catch((error: unknown) => this.lost(`the stop request of ${request.sourceId}`, error));
  }

  /** The stop channel is subscribed since `open`: a listener added now hears from the next request on. */
  subscribeStopRuns(listener: StopRunsListener): Promise<Unsubscribe> {
    return Promise.resolve(this.stopListeners.add(listener));
  }

  stats(): PubSubStats {
    return { subscribers: this.fanout.size, replyWaiters: this.replies.size };
  }

  async close(): Promise<void> {
    this.stopListeners.close();
    await Promise.all([quit(this.subscriber), quit(this.publisher)]);
  }

  private receive(channel: string, text: string): void {
    try {
      if (channel === this.replyChannel) {
        const { invocationId, response } = decodeReply(text);
        this.replies.deliver(invocationId, response);
      } else if (channel === this.stopChannel) {
        this.stopListeners.deliver(decodeStopRuns(text));
      } else {
        this.fanout.deliver(decodeSourceMessage(text));
      }
    } catch (error) {
      this.lost(`a message on ${channel}`, error);
    }
  }

  /** Subscribes the source's channel for its first local listener; later ones share it. */
  private acquire(sourceId: string): Promise<unknown> {
    const existing = this.channels.get(sourceId);
    if (existing) {
      existing.count += 1;
      return existing.ready;
    }
    const ready = this.subscriber.subscribe(this.sourceChannel(sourceId));
    this.channels.set(sourceId, { count: 1, ready });
    return ready;
  }

  /**
   * Unsubscribes the channel with the last local listener. Redis runs a connection's commands in
   * order, so a subscribe that follows at once still ends subscribed.
   */
  private release(sourceId: string): void {
    const channel = this.channels.get(sourceId);
    if (!channel) return;
    channel.count -= 1;
    if (channel.count > 0) return;
    this.channels.delete(sourceId);
    this.subscriber
      .unsubscribe(this.sourceChannel(sourceId))
      .catch((error: unknown) => this.lost(`unsubscribing ${sourceId}`, error));
  }

  private sourceChannel(sourceId: string): string {
    return `${this.prefix}source:${sourceId}`;
  }

  private replyKey(invocationId: string): string {
    return `${this.prefix}reply:${invocationId}`;
  }

  private lost(what: string, error: unknown): void {
    this.log(`Redis pub/sub: ${what} was lost: ${errorMessage(error)}`);
  }
}

/** QUIT lets queued commands finish; a connection already gone is simply dropped. */
async function quit(redis: Redis): Promise<void> {
  try {
    await redis.quit();
  } catch {
    redis.disconnect();
  }
}
