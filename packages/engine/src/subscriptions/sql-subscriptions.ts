import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database } from '../store/schema.js';
import type { SubscriptionTable } from './subscription-table.js';
import type { Subscription } from './subscription-types.js';
import { ALL_SOURCES } from './subscription-types.js';

/** The `subscriptions` table (migration 0005). */
export interface SubscriptionTables {
  subscriptions: {
    id: string;
    emitter_id: string;
    listener_id: string | null;
    listener_url: string | null;
    event_name: string;
    secret_sealed: string | null;
    created_at: number;
  };
  emitter_cursors: {
    emitter_id: string;
    /** "" before the emitter's first event. */
    last_event_id: string;
  };
}

export type SubscriptionRow = Selectable<SubscriptionTables['subscriptions']>;

/** Subscriptions in the store's database, SQLite or PostgreSQL (portable Kysely queries). */
export class SqlSubscriptions implements SubscriptionTable {
  private readonly db: Kysely<SubscriptionTables>;
  /** `anyFor`'s answers per emitter, kept until a subscription is added or removed (`remember`). */
  private readonly answers: Map<string, boolean> | null;
  /** Counts writes: an answer read before a write that finished meanwhile is not kept. */
  private writes = 0;

  constructor(options: {
    readonly db: Kysely<Database>;
    /**
     * Keep `anyFor`'s answers between this table's writes: every commit asks, and most emitters
     * have no subscribers. Only where this process makes every write (SQLite); with several
     * processes on PostgreSQL another one may subscribe, so each commit reads.
     */
    readonly remember?: boolean;
  }) {
    this.db = options.db as unknown as Kysely<SubscriptionTables>;
    this.answers = options.remember === true ? new Map() : null;
  }

  async insert(row: SubscriptionRow): Promise<void> {
    await this.written(() => this.db.insertInto('subscriptions').values(row).execute());
  }

  /** The subscription of this emitter, listener and channel, if there is one. */
  find(input: {
    readonly emitterId: string;
    readonly listener: string;
    readonly eventName: string;
  }): Promise<SubscriptionRow | undefined> {
    return this.db
      .selectFrom('subscriptions')
      .selectAll()
      .where('emitter_id', '=', input.emitterId)
      .where(sql<string>`coalesce(listener_id, listener_url)`, '=', input.listener)
      .where('event_name', '=', input.eventName)
      .executeTakeFirst();
  }

  get(id: string): Promise<SubscriptionRow | undefined> {
    return this.db.selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirst();
  }

  list(): Promise<SubscriptionRow[]> {
    return this.db.selectFrom('subscriptions').selectAll().orderBy('created_at').orderBy('id').execute();
  }

  /** The subscriptions an event of `emitterId` on `channel` reaches (its own and the `dc_*` ones). */
  matching(emitterId: string, channel: string): Promise<SubscriptionRow[]> {
    const emitters = emitterId.startsWith('dc_') ? [emitterId, ALL_SOURCES] : [emitterId];
    return this.db
      .selectFrom('subscriptions')
      .selectAll()
      .where('emitter_id', 'in', emitters)
      .where('event_name', '=', channel)
      .orderBy('created_at')
      .execute();
  }

  async remove(id: string): Promise<void> {
    await this.written(() => this.db.deleteFrom('subscriptions').where('id', '=', id).execute());
  }

  /** A deleted emitter or listener takes its subscriptions and its cursor with it. */
  async removeFor(id: string): Promise<void> {
    await this.written(() =>
      this.db
        .deleteFrom('subscriptions')
        .where((eb) => eb.or([eb('emitter_id', '=', id), eb('listener_id', '=', id)]))
        .execute(),
    );
    await this.db.deleteFrom('emitter_cursors').where('emitter_id', '=', id).execute();
  }

  /** Whether any subscription may match an event of this emitter (on any channel). */
  async anyFor(emitterId: string): Promise<boolean> {
    const known = this.answers?.get(emitterId);
    if (known !== undefined) return known;
    const writes = this.writes;
    const emitters = emitterId.startsWith('dc_') ? [emitterId, ALL_SOURCES] : [emitterId];
    const row = await this.db
      .selectFrom('subscriptions')
      .select('id')
      .where('emitter_id', 'in', emitters)
      .limit(1)
      .executeTakeFirst();
    const any = row !== undefined;
    if (writes === this.writes) this.answers?.set(emitterId, any);
    return any;
  }

  /** Runs a write of the subscriptions, then forgets every kept answer (also when the write failed). */
  private async written<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } finally {
      this.writes += 1;
      this.answers?.clear();
    }
  }

  async cursor(emitterId: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('emitter_cursors')
      .select('last_event_id')
      .where('emitter_id', '=', emitterId)
      .executeTakeFirst();
    return row?.last_event_id;
  }

  async setCursor(emitterId: string, lastEventId: string): Promise<void> {
    await this.db
      .insertInto('emitter_cursors')
      .values({ emitter_id: emitterId, last_event_id: lastEventId })
      .onConflict((conflict) => conflict.column('emitter_id').doUpdateSet({ last_event_id: lastEventId }))
      .execute();
  }

  cursors(): Promise<{ emitter_id: string; last_event_id: string }[]> {
    return this.db.selectFrom('emitter_cursors').selectAll().execute();
  }
}

export function toSubscription(row: SubscriptionRow): Subscription {
  return {
    id: row.id,
    emitter_id: row.emitter_id,
    listener_id: row.listener_id,
    listener_url: row.listener_url,
    event_name: row.event_name,
    created_at: Math.floor(row.created_at / 1000),
  };
}
