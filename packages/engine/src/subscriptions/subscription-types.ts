/** A listener subscribed to an emitter's channel (contract §9.2, Pipedream's shape). */
export interface Subscription {
  readonly id: string;
  /** A deployed source `dc_…`, or `dc_*` for every source. */
  readonly emitter_id: string;
  /** A deployed source that runs with each event, when the listener is not a URL. */
  readonly listener_id: string | null;
  /** A webhook listener: each event POSTed here, signed. */
  readonly listener_url: string | null;
  /** The channel (`metadata.name` of the emits); "" is the default channel. */
  readonly event_name: string;
  /** Epoch seconds. */
  readonly created_at: number;
}

export interface SubscribeRequest {
  readonly emitterId: string;
  readonly listenerId?: string | undefined;
  readonly listenerUrl?: string | undefined;
  readonly eventName?: string | undefined;
}

/** Every source: upstream's glob form, the only one we accept. */
export const ALL_SOURCES = 'dc_*';
