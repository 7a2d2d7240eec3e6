import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { AppError } from '@tributary/contracts';
import type { DeliveryService } from '../delivery/delivery-service.js';
import { newDeliveryId } from '../delivery/delivery-ids.js';
import type { DeliveryRecord } from '../delivery/delivery-types.js';
import { isPrivateAddress, PRIVATE_ADDRESS_HINT } from '../components/fetch-component-url.js';
import type { EventRecord } from '../pubsub/pubsub.js';
import { channelOf } from './channels.js';
import { EventHandOff } from './event-hand-off.js';
import { IdKinds, type EmitterKind, type ListenerKind } from './id-kinds.js';
import type { Sealer } from '../delivery/sql-delivery-jobs.js';
import { sealedAt } from '../secrets/sealed-places.js';
import { toSubscription, type SubscriptionRow } from './sql-subscriptions.js';
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

/** What subscribing answers: the subscription, and the webhook signing secret when it is new. */
export interface Subscribed {
  readonly subscription: Subscription;
  /** Only for a new webhook subscription: shown once, kept sealed. */
  readonly secret: string | null;
  readonly created: boolean;
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
  private readonly emitters = new IdKinds<EmitterKind>();
  private readonly listeners = new IdKinds<ListenerKind>();
  private readonly handOff: EventHandOff;

  constructor(private readonly options: SubscriptionServiceOptions) {
    this.emitters.register('dc_', options.sources);
    this.listeners.register('dc_', options.sources);
    this.handOff = new EventHandOff({ ...options, listeners: this.listeners });
  }

  /** Adds a kind of emitter (workflows: `wf_`), whose `$.send.emit` reach `fanOut`. */
  registerEmitter(prefix: string, kind: EmitterKind): void {
    this.emitters.register(prefix, kind);
  }

  /** Adds a kind of listener (workflows: `wf_`, triggered by the events they subscribe to). */
  registerListener(prefix: string, kind: ListenerKind): void {
    this.listeners.register(prefix, kind);
  }

  /** A source's events were committed: handed to its subscribers off the commit path (never throws). */
  committed(sourceId: string, events: readonly EventRecord[]): void {
    this.handOff.committed(sourceId, events);
  }

  /** At start, before new commits: hands over what a crash left between a commit and its hand-off. */
  recover(): Promise<void> {
    return this.handOff.recover();
  }

  /** Waits for the hand-offs under way: called on stop, once no more commits come. */
  drain(): Promise<void> {
    return this.handOff.drain();
  }

  /** `$.send.emit` of a workflow run: its subscribers get the event (resolves with how many). */
  fanOut(input: Parameters<EventHandOff['fanOut']>[0]): Promise<number> {
    return this.handOff.fanOut(input);
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
    const id = newDeliveryId('sub');
    const row: SubscriptionRow = {
      id,
      emitter_id: request.emitterId,
      listener_id: listener.kind === 'id' ? listener.value : null,
      listener_url: listener.kind === 'url' ? listener.value : null,
      event_name: eventName,
      secret_sealed: secret === null ? null : this.options.box.seal(secret, sealedAt.subscriptionSecret(id)),
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

  private async checkEmitter(emitterId: string): Promise<void> {
    if (emitterId === '') throw invalid('query.emitter_id', 'is required');
    if (emitterId === ALL_SOURCES) return;
    const kind = this.emitters.find(emitterId);
    if (!kind)
      throw invalid('query.emitter_id', `"${emitterId}" is not an emitter id (${this.emitters.describe()}, or dc_*)`);
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
          `${url.hostname} is a private or loopback address, which this server does not reach (${PRIVATE_ADDRESS_HINT})`,
        );
      return listener;
    }
    const kind = this.listeners.find(listener.value);
    if (!kind)
      throw invalid('query.listener_id', `"${listener.value}" is not a listener id (${this.listeners.describe()})`);
    if (!(await kind.exists(listener.value)))
      throw new AppError('NOT_FOUND', `query.listener_id: no listener "${listener.value}"`, {
        field: 'query.listener_id',
      });
    return listener;
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
