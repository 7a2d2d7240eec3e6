import {
  sql,
  type ColumnDefinitionBuilder,
  type CreateTableBuilder,
  type Kysely,
  type Migration,
  type RawBuilder,
} from 'kysely';

/** The SQL databases the store runs on. */
export type SqlDialect = 'sqlite' | 'postgres';

/** What differs between the dialects' schemas; everything else is one migration list for both. */
interface DialectTypes {
  /**
   * Text. PostgreSQL compares it with the database's collation (say `en_US.UTF-8`, where `a_b`
   * sorts after `aB`); `C` compares bytes as SQLite does, so ids order and page the same on both.
   */
  readonly text: 'text' | RawBuilder<unknown>;
  /**
   * Epoch milliseconds. SQLite's `integer` is 64-bit already; PostgreSQL's is 32-bit (it would
   * overflow in 1970 + 24 days), so there it is `bigint`.
   */
  readonly time: 'integer' | 'bigint';
  /** The append-only `seq` key of events and logs (ids of log lines, the order of the bin). */
  readonly seq: 'integer' | 'bigint';
  readonly seqColumn: (col: ColumnDefinitionBuilder) => ColumnDefinitionBuilder;
  /**
   * Insertion order of the queue and the dead letters: SQLite has it as `rowid`; PostgreSQL has no
   * such column, so it gets an identity column `seq` (the SQLite result stays as it shipped).
   */
  readonly insertionOrder: (table: CreateTableBuilder<string, never>) => CreateTableBuilder<string, never>;
}

const DIALECT_TYPES: Record<SqlDialect, DialectTypes> = {
  sqlite: {
    text: 'text',
    time: 'integer',
    seq: 'integer',
    seqColumn: (col) => col.primaryKey().autoIncrement(),
    insertionOrder: (table) => table,
  },
  postgres: {
    text: sql`text collate "C"`,
    time: 'bigint',
    seq: 'bigint',
    seqColumn: (col) => col.primaryKey().generatedAlwaysAsIdentity(),
    insertionOrder: (table) =>
      table.addColumn('seq', 'bigint', (col) => col.notNull().unique().generatedAlwaysAsIdentity()),
  },
};

/**
 * The schema, as migrations applied in order; a database is only ever built from these. Never edit
 * a migration that has shipped: add the next one. Each dialect gets the same list, with the column
 * types of `DIALECT_TYPES`; the SQLite result of a shipped migration never changes.
 */
export function migrationsFor(dialect: SqlDialect): Record<string, Migration> {
  const types = DIALECT_TYPES[dialect];
  return {
    '0001-initial': {
      async up(db: Kysely<unknown>): Promise<void> {
        await db.schema
          .createTable('api_keys')
          .addColumn('id', types.text, (col) => col.primaryKey())
          .addColumn('name', types.text, (col) => col.notNull())
          .addColumn('key_hash', types.text, (col) => col.notNull().unique())
          .addColumn('key_prefix', types.text, (col) => col.notNull())
          .addColumn('created_at', types.time, (col) => col.notNull())
          .addColumn('last_used_at', types.time)
          .addColumn('revoked_at', types.time)
          .execute();
        await db.schema
          .createTable('components')
          .addColumn('id', types.text, (col) => col.primaryKey())
          .addColumn('key', types.text)
          .addColumn('name', types.text)
          .addColumn('version', types.text)
          .addColumn('description', types.text)
          .addColumn('component_type', types.text, (col) => col.notNull())
          .addColumn('code', types.text, (col) => col.notNull())
          .addColumn('code_hash', types.text, (col) => col.notNull())
          .addColumn('source_url', types.text)
          .addColumn('configurable_props', types.text, (col) => col.notNull())
          .addColumn('lock', types.text, (col) => col.notNull())
          .addColumn('created_at', types.time, (col) => col.notNull())
          .addColumn('updated_at', types.time, (col) => col.notNull())
          .execute();
        await db.schema.createIndex('components_key').on('components').column('key').execute();
        await db.schema
          .createTable('registry')
          .addColumn('key', types.text, (col) => col.primaryKey())
          .addColumn('component_id', types.text, (col) => col.notNull().references('components.id'))
          .addColumn('version', types.text, (col) => col.notNull())
          .addColumn('created_at', types.time, (col) => col.notNull())
          .addColumn('updated_at', types.time, (col) => col.notNull())
          .execute();
        await db.schema
          .createTable('sources')
          .addColumn('id', types.text, (col) => col.primaryKey())
          .addColumn('component_id', types.text, (col) => col.notNull().references('components.id'))
          .addColumn('name', types.text, (col) => col.notNull())
          .addColumn('name_slug', types.text, (col) => col.notNull().unique())
          .addColumn('active', 'integer', (col) => col.notNull())
          .addColumn('configured_props', types.text, (col) => col.notNull())
          .addColumn('endpoint_id', types.text, (col) => col.unique())
          .addColumn('custom_response', 'integer', (col) => col.notNull().defaultTo(0))
          .addColumn('timer', types.text)
          .addColumn('next_fire_at', types.time)
          .addColumn('created_at', types.time, (col) => col.notNull())
          .addColumn('updated_at', types.time, (col) => col.notNull())
          .execute();
        await db.schema.createIndex('sources_next_fire').on('sources').columns(['active', 'next_fire_at']).execute();
        await db.schema
          .createTable('source_state')
          .addColumn('source_id', types.text, (col) => col.primaryKey())
          .addColumn('db', types.text, (col) => col.notNull())
          .addColumn('dedupe', types.text)
          .execute();
        await db.schema
          .createTable('events')
          .addColumn('seq', types.seq, types.seqColumn)
          .addColumn('source_id', types.text, (col) => col.notNull())
          .addColumn('id', types.text, (col) => col.notNull())
          .addColumn('indexed_at_ms', types.time, (col) => col.notNull())
          .addColumn('event', types.text, (col) => col.notNull())
          .addColumn('metadata', types.text, (col) => col.notNull())
          .execute();
        await db.schema.createIndex('events_source').on('events').columns(['source_id', 'seq']).execute();
        await db.schema
          .createTable('logs')
          .addColumn('seq', types.seq, types.seqColumn)
          .addColumn('source_id', types.text, (col) => col.notNull())
          .addColumn('invocation_id', types.text)
          .addColumn('ts', types.time, (col) => col.notNull())
          .addColumn('level', types.text, (col) => col.notNull())
          .addColumn('message', types.text, (col) => col.notNull())
          .execute();
        await db.schema.createIndex('logs_source').on('logs').columns(['source_id', 'seq']).execute();
        await db.schema
          .createTable('invocations')
          .addColumn('id', types.text, (col) => col.primaryKey())
          .addColumn('source_id', types.text, (col) => col.notNull())
          .addColumn('trigger', types.text, (col) => col.notNull())
          .addColumn('event', types.text, (col) => col.notNull())
          .addColumn('status', types.text, (col) => col.notNull())
          .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
          .addColumn('created_at', types.time, (col) => col.notNull())
          .addColumn('started_at', types.time)
          .$call(types.insertionOrder)
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
          .addColumn('slug', types.text, (col) => col.primaryKey())
          .addColumn('name', types.text, (col) => col.notNull())
          .addColumn('description', types.text)
          .addColumn('auth_type', types.text, (col) => col.notNull())
          .addColumn('fields', types.text, (col) => col.notNull())
          .addColumn('created_at', types.time, (col) => col.notNull())
          .addColumn('updated_at', types.time, (col) => col.notNull())
          .execute();
        await db.schema
          .createTable('accounts')
          .addColumn('id', types.text, (col) => col.primaryKey())
          .addColumn('app', types.text, (col) => col.notNull())
          .addColumn('name', types.text, (col) => col.notNull())
          .addColumn('fields_sealed', types.text, (col) => col.notNull())
          .addColumn('fields_shown', types.text, (col) => col.notNull())
          .addColumn('created_at', types.time, (col) => col.notNull())
          .addColumn('updated_at', types.time, (col) => col.notNull())
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
          .addColumn('not_before', types.time, (col) => col.notNull().defaultTo(0))
          .execute();
        await db.schema.alterTable('invocations').addColumn('last_error', types.text).execute();
        await db.schema
          .createTable('dead_letters')
          .addColumn('id', types.text, (col) => col.primaryKey())
          .addColumn('source_id', types.text, (col) => col.notNull())
          .addColumn('trigger', types.text, (col) => col.notNull())
          .addColumn('event', types.text, (col) => col.notNull())
          .addColumn('attempts', 'integer', (col) => col.notNull())
          .addColumn('last_error', types.text, (col) => col.notNull())
          .addColumn('created_at', types.time, (col) => col.notNull())
          .addColumn('failed_at', types.time, (col) => col.notNull())
          .$call(types.insertionOrder)
          .execute();
        await db.schema
          .createIndex('dead_letters_source')
          .on('dead_letters')
          .columns(['source_id', 'failed_at'])
          .execute();
        await db.schema.createIndex('dead_letters_failed').on('dead_letters').columns(['failed_at', 'id']).execute();
      },
    },
    // Issue 13: several processes on one PostgreSQL database. A source's claim is a row with a lease
    // (PostgresInvocationQueue); SQLite has one process, which keeps its claims in memory.
    '0004-queue-claims': {
      async up(db: Kysely<unknown>): Promise<void> {
        switch (dialect) {
          case 'sqlite':
            return;
          case 'postgres':
            await db.schema
              .createTable('queue_claims')
              .addColumn('source_id', types.text, (col) => col.primaryKey())
              .addColumn('owner', types.text, (col) => col.notNull())
              .addColumn('expires_at', types.time, (col) => col.notNull())
              .execute();
            return;
        }
      },
    },
    // Issue 10: `$.send.*` deliveries and webhook deliveries as durable jobs (a restart resumes
    // them), and subscriptions of listeners to emitters (packages/engine/src/delivery, subscriptions).
    '0005-deliveries-and-subscriptions': {
      async up(db: Kysely<unknown>): Promise<void> {
        await types
          .insertionOrder(db.schema.createTable('deliveries'))
          .addColumn('id', types.text, (col) => col.primaryKey())
          .addColumn('kind', types.text, (col) => col.notNull())
          .addColumn('owner', types.text, (col) => col.notNull())
          .addColumn('run_id', types.text, (col) => col.notNull())
          .addColumn('step_name', types.text)
          .addColumn('subscription_id', types.text)
          .addColumn('target', types.text, (col) => col.notNull())
          .addColumn('config_sealed', types.text, (col) => col.notNull())
          .addColumn('config_shown', types.text, (col) => col.notNull())
          .addColumn('status', types.text, (col) => col.notNull())
          .addColumn('attempts', 'integer', (col) => col.notNull())
          .addColumn('max_attempts', 'integer', (col) => col.notNull())
          .addColumn('last_error', types.text)
          .addColumn('next_attempt_at', types.time, (col) => col.notNull())
          .addColumn('claimed_until', types.time, (col) => col.notNull().defaultTo(0))
          .addColumn('log', types.text, (col) => col.notNull())
          .addColumn('created_at', types.time, (col) => col.notNull())
          .addColumn('updated_at', types.time, (col) => col.notNull())
          .addColumn('delivered_at', types.time)
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
          .addColumn('id', types.text, (col) => col.primaryKey())
          .addColumn('emitter_id', types.text, (col) => col.notNull())
          .addColumn('listener_id', types.text)
          .addColumn('listener_url', types.text)
          .addColumn('event_name', types.text, (col) => col.notNull())
          .addColumn('secret_sealed', types.text)
          .addColumn('created_at', types.time, (col) => col.notNull())
          .execute();
        // The last event of each emitter handed to its subscribers: a restart hands over what came after.
        await db.schema
          .createTable('emitter_cursors')
          .addColumn('emitter_id', types.text, (col) => col.primaryKey())
          .addColumn('last_event_id', types.text, (col) => col.notNull())
          .execute();
        // One subscription per emitter, listener and channel: subscribing twice returns the first.
        await sql`CREATE UNIQUE INDEX subscriptions_unique ON subscriptions (emitter_id, coalesce(listener_id, listener_url), event_name)`.execute(
          db,
        );
      },
    },
    // Issue 10: workflows, their saved versions, and durable runs with one checkpoint row per step.
    '0006-workflows': {
      async up(db: Kysely<unknown>): Promise<void> {
        await db.schema
          .createTable('workflows')
          .addColumn('id', types.text, (col) => col.primaryKey())
          .addColumn('name', types.text, (col) => col.notNull())
          .addColumn('active', 'integer', (col) => col.notNull())
          .addColumn('version', 'integer', (col) => col.notNull())
          .addColumn('trigger_type', types.text, (col) => col.notNull())
          .addColumn('endpoint_id', types.text)
          .addColumn('source_id', types.text)
          .addColumn('next_fire_at', types.time)
          .addColumn('runs_dropped', 'integer', (col) => col.notNull().defaultTo(0))
          .addColumn('created_at', types.time, (col) => col.notNull())
          .addColumn('updated_at', types.time, (col) => col.notNull())
          .execute();
        await db.schema.createIndex('workflows_endpoint').on('workflows').column('endpoint_id').execute();
        await db.schema.createIndex('workflows_source').on('workflows').column('source_id').execute();
        await db.schema
          .createTable('workflow_versions')
          .addColumn('workflow_id', types.text, (col) => col.notNull())
          .addColumn('version', 'integer', (col) => col.notNull())
          .addColumn('spec', types.text, (col) => col.notNull())
          .addColumn('plan', types.text, (col) => col.notNull())
          .addColumn('created_at', types.time, (col) => col.notNull())
          .addPrimaryKeyConstraint('workflow_versions_pk', ['workflow_id', 'version'])
          .execute();
        await db.schema
          .createTable('workflow_runs')
          .addColumn('seq', types.seq, types.seqColumn)
          .addColumn('id', types.text, (col) => col.notNull().unique())
          .addColumn('workflow_id', types.text, (col) => col.notNull())
          .addColumn('version', 'integer', (col) => col.notNull())
          .addColumn('trigger', types.text, (col) => col.notNull())
          .addColumn('status', types.text, (col) => col.notNull())
          .addColumn('event', types.text, (col) => col.notNull())
          .addColumn('next_step', 'integer', (col) => col.notNull().defaultTo(0))
          .addColumn('exit', types.text)
          .addColumn('error', types.text)
          .addColumn('resume_at', types.time)
          .addColumn('created_at', types.time, (col) => col.notNull())
          .addColumn('finished_at', types.time)
          .execute();
        await db.schema
          .createIndex('workflow_runs_workflow')
          .on('workflow_runs')
          .columns(['workflow_id', 'seq'])
          .execute();
        await db.schema
          .createTable('workflow_steps')
          .addColumn('run_id', types.text, (col) => col.notNull())
          .addColumn('idx', 'integer', (col) => col.notNull())
          .addColumn('name', types.text, (col) => col.notNull())
          .addColumn('status', types.text, (col) => col.notNull())
          .addColumn('result', types.text, (col) => col.notNull())
          .addPrimaryKeyConstraint('workflow_steps_pk', ['run_id', 'idx'])
          .execute();
      },
    },
    // Issue 11: components imported from npm packages. A registry key belongs to the package that
    // published it (null: published on its own), so a second package cannot take it over.
    '0007-registry-packages': {
      async up(db: Kysely<unknown>): Promise<void> {
        await db.schema.alterTable('registry').addColumn('package', types.text).execute();
        await db.schema
          .createTable('registry_packages')
          .addColumn('name', types.text, (col) => col.primaryKey())
          .addColumn('version', types.text, (col) => col.notNull())
          .addColumn('spec', types.text, (col) => col.notNull())
          .addColumn('dependencies', types.text, (col) => col.notNull())
          .addColumn('keys', types.text, (col) => col.notNull())
          .addColumn('skipped', types.text, (col) => col.notNull())
          .addColumn('created_at', types.time, (col) => col.notNull())
          .addColumn('updated_at', types.time, (col) => col.notNull())
          .execute();
      },
    },
    // Issue 15: browser sign-in sessions (an HttpOnly cookie), stored as SHA-256 hashes of their tokens.
    '0010-browser-sessions': {
      async up(db: Kysely<unknown>): Promise<void> {
        await db.schema
          .createTable('browser_sessions')
          .addColumn('id', types.text, (col) => col.primaryKey())
          .addColumn('token_hash', types.text, (col) => col.notNull().unique())
          .addColumn('api_key_id', types.text, (col) => col.notNull())
          .addColumn('created_at', types.time, (col) => col.notNull())
          .addColumn('expires_at', types.time, (col) => col.notNull())
          .addColumn('revoked_at', types.time)
          .execute();
        await db.schema.createIndex('browser_sessions_key').on('browser_sessions').column('api_key_id').execute();
      },
    },
    // Issue 12: OAuth 2 accounts (expiry, reconnect status), the operator's OAuth clients, connect attempts.
    '0008-oauth': {
      async up(db: Kysely<unknown>): Promise<void> {
        await db.schema.alterTable('apps').addColumn('details', types.text).execute();
        await db.schema
          .alterTable('accounts')
          .addColumn('status', types.text, (col) => col.notNull().defaultTo('ok'))
          .execute();
        await db.schema.alterTable('accounts').addColumn('status_message', types.text).execute();
        await db.schema.alterTable('accounts').addColumn('oauth_expires_at', types.time).execute();
        await db.schema.alterTable('accounts').addColumn('oauth_meta', types.text).execute();
        await db.schema
          .createTable('oauth_clients')
          .addColumn('app', types.text, (col) => col.primaryKey())
          .addColumn('client_id', types.text, (col) => col.notNull())
          .addColumn('client_secret_sealed', types.text, (col) => col.notNull())
          .addColumn('scopes', types.text)
          .addColumn('created_at', types.time, (col) => col.notNull())
          .addColumn('updated_at', types.time, (col) => col.notNull())
          .execute();
        await db.schema
          .createTable('oauth_attempts')
          .addColumn('state', types.text, (col) => col.primaryKey())
          .addColumn('app', types.text, (col) => col.notNull())
          .addColumn('name', types.text)
          .addColumn('reconnect_account', types.text)
          .addColumn('binding_hash', types.text, (col) => col.notNull())
          .addColumn('verifier_sealed', types.text, (col) => col.notNull())
          .addColumn('redirect_uri', types.text, (col) => col.notNull())
          .addColumn('status', types.text, (col) => col.notNull())
          .addColumn('account_id', types.text)
          .addColumn('error_code', types.text)
          .addColumn('error_message', types.text)
          .addColumn('created_at', types.time, (col) => col.notNull())
          .addColumn('expires_at', types.time, (col) => col.notNull())
          .execute();
      },
    },
    // Issue 14: secrets the instance itself keeps sealed (the key of API key hashes). Sealed values
    // get their key id and row binding at the start after this migration (reseal-all.ts): a
    // migration has no master key.
    '0011-instance-secrets': {
      async up(db: Kysely<unknown>): Promise<void> {
        await db.schema
          .createTable('instance_secrets')
          .addColumn('name', types.text, (col) => col.primaryKey())
          .addColumn('value_sealed', types.text, (col) => col.notNull())
          .addColumn('created_at', types.time, (col) => col.notNull())
          .execute();
      },
    },
    // A run's trigger event is stored packed when an HTTP event holds its body three times
    // (`bodyRaw`, `rawBody`, `body`): the column names how to rebuild it (event-packing.ts).
    '0012-run-event-packing': {
      async up(db: Kysely<unknown>): Promise<void> {
        await db.schema.alterTable('workflow_runs').addColumn('event_packing', types.text).execute();
      },
    },
  };
}

/** The SQLite migrations, as they shipped. */
export const MIGRATIONS: Record<string, Migration> = migrationsFor('sqlite');
