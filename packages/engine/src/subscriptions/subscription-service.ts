import { createHash, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { AppError } from '@tributary/contracts';
import type { DeliveryService } from '../delivery/delivery-service.js';
import { newDeliveryId } from '../delivery/delivery-ids.js';
import type { DeliveryRecord } from '../delivery/delivery-types.js';
import { isPrivateAddress } from '../components/fetch-component-url.js';
import type { EventRecord } from '../pubsub/pubsub.js';
import type { Sealer } from '../delivery/sqlite-delivery-jobs.js';
import { toSubscription, type SubscriptionRow } from './sqlite-subscriptions.js';
import type { SubscriptionTable } from './subscription-table.js';
import { ALL_SOURCES, type SubscribeRequest, type Subscription } from './subscription-types.js';

export interface SubscriptionServiceOptions {
  readonly table: SubscriptionTable;
  readonly deliveries: DeliveryService;
  readonly box: Sealer;
  /** Deployed sources (`dc_…`): the emitters and listeners there are before workflows register theirs. */
  readonly sources: EmitterKind & ListenerKind;
  /** A source's committed events after `lastId` (all when null), oldest first: the restart catch-up. */
  readonly eventsAfter: (sourceId: string, lastId: string | null) => Promise<EventRecord[]>;
  /** The id of a source's newest committed event, or null. */
  readonly latestEventId: (sourceId: string) => Promise<string | null>;
  readonly allowPrivateUrls: boolean;
  readonly owner: string;
  readonly now: () => number;
  readonly log: (message: string) => void;
}

/** A kind of emitter, by id prefix: whether an id names one. */
export interface EmitterKind {
  exists(id: string): Promise<boolean>;
}

/** A kind of listener, by id prefix: whether an id names one, and how it gets an event. */
export interface ListenerKind {
  exists(id: string): Promise<boolean>;
  /** Queues a run of the listener with the event (durably: the listener's own queue). */
  run(id: string, event: unknown): Promise<void>;
}

/** What subscribing answers: the subscription, and the webhook signing secret when it is new. */
export interface Subscribed {
  readonly subscription: Subscription;
  /** Only for a new webhook subscription: shown once, kept sealed. */
  readonly secret: string | null;
  readonly created: boolean;
}

/** The runtime names the default channel "default"; a subscription names it "" (or not at all). */
const DEFAULT_CHANNEL = 'default';

function channelOf(name: string | undefined): string {
  return name === undefined || name === DEFAULT_CHANNEL ? '' : name;
}

function invalid(field: string, message: string): AppError {
  return new AppError('SUBSCRIPTION_INVALID', `${field}: ${message}`, { field });
}

/**
 * Listeners subscribed to emitters (contract §9.2): a deployed source's committed events go to
 * each subscription of its channel, a webhook listener's as a signed POST with retries (a delivery
 * job), a source listener's as a queued run. Deliveries are queued after the commit, off its path.
 */
export class SubscriptionService {
  /** Per emitter, the hand-off in progress: commits of one source are handed over in commit order. */
  private readonly chains = new Map<string, Promise<void>>();
  private readonly emitters = new Map<string, EmitterKind>();
  private readonly listeners = new Map<string, ListenerKind>();

  constructor(private readonly options: SubscriptionServiceOptions) {
    this.emitters.set('dc_', options.sources);
    this.listeners.set('dc_', options.sources);
  }

  /** Adds a kind of emitter (workflows: `p_`), whose `$.send.emit` reach `fanOut`. */
  registerEmitter(prefix: string, kind: EmitterKind): void {
    this.emitters.set(prefix, kind);
  }

  /** Adds a kind of listener (workflows: `p_`, triggered by the events they subscribe to). */
  registerListener(prefix: string, kind: ListenerKind): void {
    this.listeners.set(prefix, kind);
  }

  /** Subscribes; the same emitter, listener and channel again answers the existing subscription. */
  async subscribe(request: SubscribeRequest): Promise<Subscribed> {
    const { table } = this.options;
    const eventName = channelOf(request.eventName);
    const listener = await this.checkListener(request);
    await this.checkEmitter(request.emitterId);
    if (eventName.startsWith('$'))
      throw invalid('query.event_name', `"${eventName}": the reserved channels ($errors, $logs) are not delivered yet`);
    const existing = await table.find({ emitterId: request.emitterId, listener: listener.value, eventName });
    if (existing) return { subscription: toSubscription(existing), secret: null, created: false };
    const secret = listener.kind === 'url' ? `whsec_${randomBytes(24).toString('base64url')}` : null;
    const row: SubscriptionRow = {
      id: newDeliveryId('sub'),
      emitter_id: request.emitterId,
      listener_id: listener.kind === 'id' ? listener.value : null,
      listener_url: listener.kind === 'url' ? listener.value : null,
      event_name: eventName,
      secret_sealed: secret === null ? null : this.options.box.encrypt(secret),
      created_at: this.options.now(),
    };
    // Events committed before the subscription are not its: an emitter nobody listened to has its
    // cursor moved to its newest event (a cursor left from earlier subscriptions would replay the gap).
    if (
      request.emitterId.startsWith('dc_') &&
      request.emitterId !== ALL_SOURCES &&
      !(await table.anyFor(request.emitterId))
    )
      await table.setCursor(request.emitterId, (await this.options.latestEventId(request.emitterId)) ?? '');
    await table.insert(row);
    return { subscription: toSubscription(row), secret, created: true };
  }

  async list(): Promise<Subscription[]> {
    return (await this.options.table.list()).map(toSubscription);
  }

  async get(id: string): Promise<Subscription> {
    const row = await this.options.table.get(id);
    if (!row) throw new AppError('NOT_FOUND', `no subscription with id "${id}"`);
    return toSubscription(row);
  }

  /** Pipedream's DELETE: by emitter, listener and channel; an unknown one is `NOT_FOUND`. */
  async unsubscribe(request: SubscribeRequest): Promise<void> {
    const listener = this.listenerOf(request);
    const row = await this.options.table.find({
      emitterId: request.emitterId,
      listener: listener.value,
      eventName: channelOf(request.eventName),
    });
    if (!row)
      throw new AppError(
        'NOT_FOUND',
        `no subscription of ${listener.value} to ${request.emitterId} on channel "${request.eventName ?? ''}"`,
      );
    await this.options.table.remove(row.id);
  }

  async remove(id: string): Promise<void> {
    await this.get(id);
    await this.options.table.remove(id);
  }

  /** A deleted source leaves no subscription behind. */
  forget(id: string): Promise<void> {
    return this.options.table.removeFor(id);
  }

  /** A subscription's webhook deliveries, newest first. */
  async deliveries(
    id: string,
    page: { readonly limit: number; readonly before?: string },
  ): Promise<{ data: DeliveryRecord[]; total: number }> {
    await this.get(id);
    return this.options.deliveries.listBySubscription(id, page);
  }

  /**
   * A source's events were committed: queue them for its subscribers. Never throws and never
   * waits: the commit path hands the events over and moves on. What a crash interrupts is handed
   * over again by `recover` from the emitter's cursor; derived delivery ids keep it to one job.
   */
  committed(sourceId: string, events: readonly EventRecord[]): void {
    if (events.length === 0) return;
    this.serialised(sourceId, () => this.handOver(sourceId, events));
  }

  /** At start: hands over the events committed after each emitter's cursor (a crash's leftovers). */
  async recover(): Promise<void> {
    for (const { emitter_id: emitterId, last_event_id: lastId } of await this.options.table.cursors()) {
      this.serialised(emitterId, async () => {
        const events = await this.options.eventsAfter(emitterId, lastId === '' ? null : lastId);
        if (events.length > 0) await this.handOver(emitterId, events);
      });
    }
    await Promise.all([...this.chains.values()]);
  }

  private serialised(emitterId: string, work: () => Promise<void>): void {
    const next = (this.chains.get(emitterId) ?? Promise.resolve())
      .then(work)
      .catch((error: unknown) =>
        this.options.log(
          `subscriptions: events of ${emitterId} not handed to listeners: ${error instanceof Error ? error.message : String(error)}`,
        ),
      );
    this.chains.set(emitterId, next);
    void next.finally(() => {
      if (this.chains.get(emitterId) === next) this.chains.delete(emitterId);
    });
  }

  private async handOver(sourceId: string, events: readonly EventRecord[]): Promise<void> {
    if (!(await this.options.table.anyFor(sourceId))) return;
    for (const event of events) await this.dispatchOne(sourceId, event);
    const last = events[events.length - 1];
    if (last) await this.options.table.setCursor(sourceId, last.id);
  }

  /** `$.send.emit` of a workflow run: its subscribers get the event (resolves with how many). */
  async fanOut(input: {
    readonly emitterId: string;
    readonly channel: string;
    readonly event: unknown;
    readonly runId: string;
    /** The emit's own delivery id: the event's id, so a retried hand-off queues nothing twice. */
    readonly sendId: string;
  }): Promise<number> {
    const now = this.options.now();
    const record: EventRecord = {
      id: input.sendId,
      indexed_at_ms: now,
      event: input.event,
      metadata: { emitter_id: input.emitterId, name: input.channel || DEFAULT_CHANNEL, run_id: input.runId },
    };
    return this.dispatchOne(input.emitterId, record);
  }

  private async dispatchOne(emitterId: string, event: EventRecord): Promise<number> {
    const channel = channelOf(typeof event.metadata['name'] === 'string' ? event.metadata['name'] : undefined);
    const subscriptions = await this.options.table.matching(emitterId, channel);
    const webhooks = subscriptions.filter((row) => row.listener_url !== null);
    await this.options.deliveries.enqueue(
      webhooks.map((row) => ({
        id: deliveryIdOf(row.id, event.id),
        kind: 'webhook' as const,
        owner: this.options.owner,
        runId: event.id,
        subscriptionId: row.id,
        target: row.listener_url ?? '',
        config: {
          url: row.listener_url,
          secret: row.secret_sealed === null ? '' : this.options.box.decrypt(row.secret_sealed),
          event_id: event.id,
          body: JSON.stringify(event),
        },
      })),
    );
    for (const row of subscriptions) {
      if (row.listener_id === null || row.listener_id === emitterId) continue;
      const kind = this.kindOf(this.listeners, row.listener_id);
      if (kind && (await kind.exists(row.listener_id))) await kind.run(row.listener_id, event.event);
    }
    return subscriptions.length;
  }

  private async checkEmitter(emitterId: string): Promise<void> {
    if (emitterId === '') throw invalid('query.emitter_id', 'is required');
    if (emitterId === ALL_SOURCES) return;
    const kind = this.kindOf(this.emitters, emitterId);
    if (!kind)
      throw invalid(
        'query.emitter_id',
        `"${emitterId}" is not an emitter id (${this.prefixes(this.emitters)}, or dc_*)`,
      );
    if (!(await kind.exists(emitterId)))
      throw new AppError('NOT_FOUND', `query.emitter_id: no emitter "${emitterId}"`, { field: 'query.emitter_id' });
  }

  private async checkListener(request: SubscribeRequest): Promise<{ kind: 'id' | 'url'; value: string }> {
    const listener = this.listenerOf(request);
    if (listener.kind === 'url') {
      let url: URL;
      try {
        url = new URL(listener.value);
      } catch {
        throw invalid('query.listener_url', `${JSON.stringify(listener.value)} is not a valid URL`);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:')
        throw invalid('query.listener_url', `must be http or https, got ${url.protocol}`);
      const host = url.hostname.replace(/^\[|\]$/g, '');
      if (!this.options.allowPrivateUrls && (host === 'localhost' || (isIP(host) !== 0 && isPrivateAddress(host))))
        throw invalid(
          'query.listener_url',
          `${url.hostname} is a private or loopback address, which this server does not reach`,
        );
      return listener;
    }
    const kind = this.kindOf(this.listeners, listener.value);
    if (!kind)
      throw invalid('query.listener_id', `"${listener.value}" is not a listener id (${this.prefixes(this.listeners)})`);
    if (!(await kind.exists(listener.value)))
      throw new AppError('NOT_FOUND', `query.listener_id: no listener "${listener.value}"`, {
        field: 'query.listener_id',
      });
    return listener;
  }

  private kindOf<T>(kinds: ReadonlyMap<string, T>, id: string): T | undefined {
    for (const [prefix, kind] of kinds) if (id.startsWith(prefix)) return kind;
    return undefined;
  }

  private prefixes(kinds: ReadonlyMap<string, unknown>): string {
    return [...kinds.keys()].map((prefix) => `${prefix}…`).join(', ');
  }

  private listenerOf(request: SubscribeRequest): { kind: 'id' | 'url'; value: string } {
    const id = request.listenerId ?? '';
    const url = request.listenerUrl ?? '';
    if (id !== '' && url !== '') throw invalid('query', 'give listener_id or listener_url, not both');
    if (id === '' && url === '')
      throw invalid('query', 'give listener_id (a deployed source) or listener_url (a webhook)');
    return id !== '' ? { kind: 'id', value: id } : { kind: 'url', value: url };
  }
}

/** One event to one subscription is one delivery, however often it is handed over. */
function deliveryIdOf(subscriptionId: string, eventId: string): string {
  return `dlv_${createHash('sha256').update(`${subscriptionId}\n${eventId}`).digest('base64url').slice(0, 20)}`;
}
