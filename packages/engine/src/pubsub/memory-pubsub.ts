import { errorMessage } from '@tributary/contracts';
import type { HttpResponse } from '@tributary/runtime';
import type {
  PubSub,
  PubSubStats,
  SourceListener,
  SourceMessage,
  StopRequest,
  StopRunsListener,
  Unsubscribe,
} from './pubsub.js';
import { ListenerSet } from './listener-set.js';
import { ReplyWaiters } from './reply-waiters.js';
import { SourceFanout } from './source-fanout.js';

export interface MemoryPubSubOptions {
  /** Where a listener's exception goes (default: dropped). */
  readonly log?: (message: string) => void;
  /** Unclaimed replies kept for a waiter that comes late (default 1024). */
  readonly keepReplies?: number;
}

/**
 * The in-process PubSub: delivery is a synchronous call during `publish`, so the SSE path costs
 * what it did before the port existed. Right for one process; with several, subscribers, waiters
 * and stop listeners would only see what their own process published.
 */
export class MemoryPubSub implements PubSub {
  private readonly fanout: SourceFanout;
  private readonly replies: ReplyWaiters;
  private readonly stopListeners: ListenerSet<StopRequest>;
  /** After `close` nothing is delivered, as with a networked implementation that let go of its connection. */
  private closed = false;

  constructor(options: MemoryPubSubOptions = {}) {
    const log = options.log;
    this.fanout = new SourceFanout((error) => log?.(`a live subscriber failed: ${errorMessage(error)}`));
    this.replies = new ReplyWaiters(options.keepReplies !== undefined ? { keep: options.keepReplies } : {});
    this.stopListeners = new ListenerSet<StopRequest>((error) => log?.(`stopping runs failed: ${errorMessage(error)}`));
  }

  publish(message: SourceMessage): void {
    if (!this.closed) this.fanout.deliver(message);
  }

  subscribe(sourceId: string, listener: SourceListener): Promise<Unsubscribe> {
    return Promise.resolve(this.fanout.add(sourceId, listener));
  }

  awaitReply(invocationId: string, signal?: AbortSignal): Promise<HttpResponse | null> {
    return this.replies.wait(invocationId, signal);
  }

  cancelReplyWait(invocationId: string, reason: unknown): void {
    this.replies.cancel(invocationId, reason);
  }

  publishReply(invocationId: string, response: HttpResponse | null): void {
    if (!this.closed) this.replies.deliver(invocationId, response);
  }

  publishStopRuns(request: StopRequest): void {
    this.stopListeners.deliver(request);
  }

  subscribeStopRuns(listener: StopRunsListener): Promise<Unsubscribe> {
    return Promise.resolve(this.stopListeners.add(listener));
  }

  stats(): PubSubStats {
    return { subscribers: this.fanout.size, replyWaiters: this.replies.size };
  }

  /** Holds no connection; deliveries end here (an engine stopped has no subscriber or run left). */
  close(): Promise<void> {
    this.closed = true;
    this.stopListeners.close();
    return Promise.resolve();
  }
}
