import { sql, type Kysely, type Migration } from 'kysely';

/**
 * The schema, as migrations applied in order; a database is only ever built from these. Never edit
 * a migration that has shipped: add the next one.
 */
export const MIGRATIONS: Record<string, Migration> = {
  '0001-initial': {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('key_hash', 'text', (col) => col.notNull().unique())
        .addColumn('key_prefix', 'text', (col) => col.notNull())
        .addColumn('created_at', 'integer', (col) => col.notNull())
        .addColumn('last_used_at', 'integer')
        .addColumn('revoked_at', 'integer')
        .execute();
      await db.schema
        .createTable('components')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('key', 'text')
        .addColumn('name', 'text')
        .addColumn('version', 'text')
        .addColumn('description', 'text')
        .addColumn('component_type', 'text', (col) => col.notNull())
        .addColumn('code', 'text', (col) => col.notNull())
        .addColumn('code_hash', 'text', (col) => col.notNull())
        .addColumn('source_url', 'text')
        .addColumn('configurable_props', 'text', (col) => col.notNull())
        .addColumn('lock', 'text', (col) => col.notNull())
        .addColumn('created_at', 'integer', (col) => col.notNull())
        .addColumn('updated_at', 'integer', (col) => col.notNull())
        .execute();
      await db.schema.createIndex('components_key').on('components').column('key').execute();
      await db.schema
        .createTable('registry')
        .addColumn('key', 'text', (col) => col.primaryKey())
        .addColumn('component_id', 'text', (col) => col.notNull().references('components.id'))
        .addColumn('version', 'text', (col) => col.notNull())
        .addColumn('created_at', 'integer', (col) => col.notNull())
        .addColumn('updated_at', 'integer', (col) => col.notNull())
        .execute();
      await db.schema
        .createTable('sources')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('component_id', 'text', (col) => col.notNull().references('components.id'))
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('name_slug', 'text', (col) => col.notNull().unique())
        .addColumn('active', 'integer', (col) => col.notNull())
        .addColumn('configured_props', 'text', (col) => col.notNull())
        .addColumn('endpoint_id', 'text', (col) => col.unique())
        .addColumn('custom_response', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('timer', 'text')
        .addColumn('next_fire_at', 'integer')
        .addColumn('created_at', 'integer', (col) => col.notNull())
        .addColumn('updated_at', 'integer', (col) => col.notNull())
        .execute();
      await db.schema.createIndex('sources_next_fire').on('sources').columns(['active', 'next_fire_at']).execute();
      await db.schema
        .createTable('source_state')
        .addColumn('source_id', 'text', (col) => col.primaryKey())
        .addColumn('db', 'text', (col) => col.notNull())
        .addColumn('dedupe', 'text')
        .execute();
      await db.schema
        .createTable('events')
        .addColumn('seq', 'integer', (col) => col.primaryKey().autoIncrement())
        .addColumn('source_id', 'text', (col) => col.notNull())
        .addColumn('id', 'text', (col) => col.notNull())
        .addColumn('indexed_at_ms', 'integer', (col) => col.notNull())
        .addColumn('event', 'text', (col) => col.notNull())
        .addColumn('metadata', 'text', (col) => col.notNull())
        .execute();
      await db.schema.createIndex('events_source').on('events').columns(['source_id', 'seq']).execute();
      await db.schema
        .createTable('logs')
        .addColumn('seq', 'integer', (col) => col.primaryKey().autoIncrement())
        .addColumn('source_id', 'text', (col) => col.notNull())
        .addColumn('invocation_id', 'text')
        .addColumn('ts', 'integer', (col) => col.notNull())
        .addColumn('level', 'text', (col) => col.notNull())
        .addColumn('message', 'text', (col) => col.notNull())
        .execute();
      await db.schema.createIndex('logs_source').on('logs').columns(['source_id', 'seq']).execute();
      await db.schema
        .createTable('invocations')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('source_id', 'text', (col) => col.notNull())
        .addColumn('trigger', 'text', (col) => col.notNull())
        .addColumn('event', 'text', (col) => col.notNull())
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('created_at', 'integer', (col) => col.notNull())
        .addColumn('started_at', 'integer')
        .execute();
      await db.schema
        .createIndex('invocations_queue')
        .on('invocations')
        .columns(['status', 'source_id', 'created_at'])
        .execute();
      await sql`select 1`.execute(db);
    },
  },
  // Issue 5: the operator's app catalog entries and connected accounts (credentials sealed).
  '0002-apps-and-accounts': {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('apps')
        .addColumn('slug', 'text', (col) => col.primaryKey())
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('description', 'text')
        .addColumn('auth_type', 'text', (col) => col.notNull())
        .addColumn('fields', 'text', (col) => col.notNull())
        .addColumn('created_at', 'integer', (col) => col.notNull())
        .addColumn('updated_at', 'integer', (col) => col.notNull())
        .execute();
      await db.schema
        .createTable('accounts')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('app', 'text', (col) => col.notNull())
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('fields_sealed', 'text', (col) => col.notNull())
        .addColumn('fields_shown', 'text', (col) => col.notNull())
        .addColumn('created_at', 'integer', (col) => col.notNull())
        .addColumn('updated_at', 'integer', (col) => col.notNull())
        .execute();
      await db.schema.createIndex('accounts_app').on('accounts').columns(['app', 'id']).execute();
    },
  },
  // Issue 13: retries with backoff kept in the row (a restart no longer forgets the count), and
  // invocations that failed in the platform on every attempt kept as dead letters instead of dropped.
  '0003-retries-and-dead-letters': {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('invocations')
        .addColumn('not_before', 'integer', (col) => col.notNull().defaultTo(0))
        .execute();
      await db.schema.alterTable('invocations').addColumn('last_error', 'text').execute();
      await db.schema
        .createTable('dead_letters')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('source_id', 'text', (col) => col.notNull())
        .addColumn('trigger', 'text', (col) => col.notNull())
        .addColumn('event', 'text', (col) => col.notNull())
        .addColumn('attempts', 'integer', (col) => col.notNull())
        .addColumn('last_error', 'text', (col) => col.notNull())
        .addColumn('created_at', 'integer', (col) => col.notNull())
        .addColumn('failed_at', 'integer', (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('dead_letters_source')
        .on('dead_letters')
        .columns(['source_id', 'failed_at'])
        .execute();
      await db.schema.createIndex('dead_letters_failed').on('dead_letters').columns(['failed_at', 'id']).execute();
    },
  },
  // Issue 10: `$.send.*` deliveries and webhook deliveries as durable jobs (a restart resumes
  // them), and subscriptions of listeners to emitters (packages/engine/src/delivery, subscriptions).
  '0005-deliveries-and-subscriptions': {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('deliveries')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('kind', 'text', (col) => col.notNull())
        .addColumn('owner', 'text', (col) => col.notNull())
        .addColumn('run_id', 'text', (col) => col.notNull())
        .addColumn('step_name', 'text')
        .addColumn('subscription_id', 'text')
        .addColumn('target', 'text', (col) => col.notNull())
        .addColumn('config_sealed', 'text', (col) => col.notNull())
        .addColumn('config_shown', 'text', (col) => col.notNull())
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('attempts', 'integer', (col) => col.notNull())
        .addColumn('max_attempts', 'integer', (col) => col.notNull())
        .addColumn('last_error', 'text')
        .addColumn('next_attempt_at', 'integer', (col) => col.notNull())
        .addColumn('claimed_until', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('log', 'text', (col) => col.notNull())
        .addColumn('created_at', 'integer', (col) => col.notNull())
        .addColumn('updated_at', 'integer', (col) => col.notNull())
        .addColumn('delivered_at', 'integer')
        .execute();
      await db.schema.createIndex('deliveries_due').on('deliveries').columns(['status', 'next_attempt_at']).execute();
      await db.schema.createIndex('deliveries_run').on('deliveries').columns(['run_id', 'created_at']).execute();
      await db.schema
        .createIndex('deliveries_subscription')
        .on('deliveries')
        .columns(['subscription_id', 'created_at'])
        .execute();
      await db.schema
        .createIndex('deliveries_target')
        .on('deliveries')
        .columns(['kind', 'target', 'created_at'])
        .execute();
      await db.schema
        .createTable('subscriptions')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('emitter_id', 'text', (col) => col.notNull())
        .addColumn('listener_id', 'text')
        .addColumn('listener_url', 'text')
        .addColumn('event_name', 'text', (col) => col.notNull())
        .addColumn('secret_sealed', 'text')
        .addColumn('created_at', 'integer', (col) => col.notNull())
        .execute();
      // The last event of each emitter handed to its subscribers: a restart hands over what came after.
      await db.schema
        .createTable('emitter_cursors')
        .addColumn('emitter_id', 'text', (col) => col.primaryKey())
        .addColumn('last_event_id', 'text', (col) => col.notNull())
        .execute();
      // One subscription per emitter, listener and channel: subscribing twice returns the first.
      await sql`CREATE UNIQUE INDEX subscriptions_unique ON subscriptions (emitter_id, coalesce(listener_id, listener_url), event_name)`.execute(
        db,
      );
    },
  },
};
