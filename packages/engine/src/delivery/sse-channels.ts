import type { EventRecord, PubSub, SourceListener, Unsubscribe } from '../pubsub/pubsub.js';

/**
 * `$.send.sse` channels ride on the PubSub port's per-key fan-out under their own key space, so
 * every PubSub implementation (in-process, Redis) carries them across processes without a new
 * method: a source id never contains ":", a channel key always starts with "sse:".
 */
export function channelKey(channel: string): string {
  return `sse:${channel}`;
}

export function publishToChannel(pubsub: PubSub, channel: string, record: EventRecord): void {
  pubsub.publish({ kind: 'event', sourceId: channelKey(channel), record });
}

export function subscribeToChannel(pubsub: PubSub, channel: string, listener: SourceListener): Promise<Unsubscribe> {
  return pubsub.subscribe(channelKey(channel), listener);
}

/** A channel message: the frame's `id` is the delivery id, `data` the payload with where it came from. */
export function channelRecord(message: {
  readonly id: string;
  readonly run_id: string;
  readonly step_name: string | null;
  /** Epoch ms the message was published. */
  readonly at: number;
  readonly channel: string;
  readonly payload: unknown;
}): EventRecord {
  return {
    id: message.id,
    indexed_at_ms: message.at,
    event: message.payload ?? null,
    metadata: { channel: message.channel, run_id: message.run_id, step_name: message.step_name },
  };
}
