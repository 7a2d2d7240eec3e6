import type { SubscriptionRow } from './sql-subscriptions.js';

/**
 * Where subscriptions and the emitters' hand-off cursors live (`SqlSubscriptions`, on SQLite or PostgreSQL).
 *
 * Guarantees: at most one subscription per emitter, listener (id or URL) and channel (`insert`
 * of a second one rejects); a resolved write is durable; `setCursor` only moves the cursor it names.
 */
export interface SubscriptionTable {
  insert(row: SubscriptionRow): Promise<void>;
  find(input: {
    readonly emitterId: string;
    readonly listener: string;
    readonly eventName: string;
  }): Promise<SubscriptionRow | undefined>;
  get(id: string): Promise<SubscriptionRow | undefined>;
  list(): Promise<SubscriptionRow[]>;
  /** The subscriptions an event of `emitterId` on `channel` reaches (`dc_*` ones included for a source). */
  matching(emitterId: string, channel: string): Promise<SubscriptionRow[]>;
  remove(id: string): Promise<void>;
  /** Removes the subscriptions `id` is the emitter or the listener of, and its cursor. */
  removeFor(id: string): Promise<void>;
  anyFor(emitterId: string): Promise<boolean>;
  cursor(emitterId: string): Promise<string | undefined>;
  setCursor(emitterId: string, lastEventId: string): Promise<void>;
  cursors(): Promise<{ emitter_id: string; last_event_id: string }[]>;
}
