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
  // Issue 10: workflows, their saved versions, and durable runs with one checkpoint row per step.
  '0005-workflows': {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('workflows')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('active', 'integer', (col) => col.notNull())
        .addColumn('version', 'integer', (col) => col.notNull())
        .addColumn('trigger_type', 'text', (col) => col.notNull())
        .addColumn('endpoint_id', 'text')
        .addColumn('source_id', 'text')
        .addColumn('next_fire_at', 'integer')
        .addColumn('runs_dropped', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('created_at', 'integer', (col) => col.notNull())
        .addColumn('updated_at', 'integer', (col) => col.notNull())
        .execute();
      await db.schema.createIndex('workflows_endpoint').on('workflows').column('endpoint_id').execute();
      await db.schema.createIndex('workflows_source').on('workflows').column('source_id').execute();
      await db.schema
        .createTable('workflow_versions')
        .addColumn('workflow_id', 'text', (col) => col.notNull())
        .addColumn('version', 'integer', (col) => col.notNull())
        .addColumn('spec', 'text', (col) => col.notNull())
        .addColumn('plan', 'text', (col) => col.notNull())
        .addColumn('created_at', 'integer', (col) => col.notNull())
        .addPrimaryKeyConstraint('workflow_versions_pk', ['workflow_id', 'version'])
        .execute();
      await db.schema
        .createTable('workflow_runs')
        .addColumn('seq', 'integer', (col) => col.primaryKey().autoIncrement())
        .addColumn('id', 'text', (col) => col.notNull().unique())
        .addColumn('workflow_id', 'text', (col) => col.notNull())
        .addColumn('version', 'integer', (col) => col.notNull())
        .addColumn('trigger', 'text', (col) => col.notNull())
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('event', 'text', (col) => col.notNull())
        .addColumn('next_step', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('exit', 'text')
        .addColumn('error', 'text')
        .addColumn('resume_at', 'integer')
        .addColumn('created_at', 'integer', (col) => col.notNull())
        .addColumn('finished_at', 'integer')
        .execute();
      await db.schema
        .createIndex('workflow_runs_workflow')
        .on('workflow_runs')
        .columns(['workflow_id', 'seq'])
        .execute();
      await db.schema
        .createTable('workflow_steps')
        .addColumn('run_id', 'text', (col) => col.notNull())
        .addColumn('idx', 'integer', (col) => col.notNull())
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('result', 'text', (col) => col.notNull())
        .addPrimaryKeyConstraint('workflow_steps_pk', ['run_id', 'idx'])
        .execute();
    },
  },
};
