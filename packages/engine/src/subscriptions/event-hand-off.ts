import { errorMessage } from '@tributary/contracts';
import { createHash } from 'node:crypto';
import type { DeliveryService } from '../delivery/delivery-service.js';
import type { Sealer } from '../delivery/sql-delivery-jobs.js';
import { sealedAt } from '../secrets/sealed-places.js';
import type { EventRecord } from '../pubsub/pubsub.js';
import { channelOf, DEFAULT_CHANNEL } from './channels.js';
import type { IdKinds, ListenerKind } from './id-kinds.js';
import type { SubscriptionTable } from './subscription-table.js';

export interface EventHandOffOptions {
  readonly table: SubscriptionTable;
  readonly deliveries: DeliveryService;
  readonly box: Sealer;
  readonly listeners: IdKinds<ListenerKind>;
  /** A source's committed events after `lastId` (all when null), oldest first: the restart catch-up. */
  readonly eventsAfter: (sourceId: string, lastId: string | null) => Promise<EventRecord[]>;
  readonly owner: string;
  readonly now: () => number;
  readonly log: (message: string) => void;
}

/**
 * Hands emitted events to the subscriptions they match: a webhook listener gets a delivery job
 * (signed, retried), another listener a queued run. A source's events go in commit order, after
 * the commit and off its path; each emitter's cursor says how far that went, so a restart hands
 * over what a crash left, and derived delivery ids keep a replay from queuing anything twice.
 */
export class EventHandOff {
  /** Per emitter, the hand-off in progress: commits of one source are handed over in commit order. */
  private readonly chains = new Map<string, Promise<void>>();

  constructor(private readonly options: EventHandOffOptions) {}

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

  /** Resolves once every hand-off under way is done (before the store closes). */
  async drain(): Promise<void> {
    while (this.chains.size > 0) await Promise.all([...this.chains.values()]);
  }

  private serialised(emitterId: string, work: () => Promise<void>): void {
    const next = (this.chains.get(emitterId) ?? Promise.resolve())
      .then(work)
      .catch((error: unknown) =>
        this.options.log(`subscriptions: events of ${emitterId} not handed to listeners: ${errorMessage(error)}`),
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
          secret:
            row.secret_sealed === null
              ? ''
              : this.options.box.open(row.secret_sealed, sealedAt.subscriptionSecret(row.id)),
          event_id: event.id,
          body: JSON.stringify(event),
        },
      })),
    );
    for (const row of subscriptions) {
      if (row.listener_id === null || row.listener_id === emitterId) continue;
      const kind = this.options.listeners.find(row.listener_id);
      if (kind && (await kind.exists(row.listener_id))) await kind.run(row.listener_id, event.event);
    }
    return subscriptions.length;
  }
}

/** One event to one subscription is one delivery, however often it is handed over. */
function deliveryIdOf(subscriptionId: string, eventId: string): string {
  return `dlv_${createHash('sha256').update(`${subscriptionId}\n${eventId}`).digest('base64url').slice(0, 20)}`;
}
