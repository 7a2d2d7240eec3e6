import type { Generated } from 'kysely';

/**
 * What PostgreSQL's schema has beyond `Database` (migrations.ts): the insertion order SQLite keeps
 * as `rowid`, and the queue's cross-process claims. Used as `db.withTables<PostgresTables>()`.
 */
// A type alias, not an interface: `withTables` needs an index-signature-compatible record.
export type PostgresTables = {
  invocations: { seq: Generated<number> };
  dead_letters: { seq: Generated<number> };
  /** A source's claim: held by `owner` (one queue instance) until `expires_at`, its lease. */
  queue_claims: { source_id: string; owner: string; expires_at: number };
};
