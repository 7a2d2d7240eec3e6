import { sql, type Kysely } from 'kysely';
import type { QueueDepth, QueueKind } from '../ports/metrics.js';
import type { Database } from '../store/schema.js';

interface Row {
  readonly kind: string;
  readonly depth: number | string;
  readonly oldest: number | string | null;
}

/**
 * What is queued, per kind: source invocations and workflow runs share the invocation queue
 * (workflow runs under `wfrun:`/`wflane:` keys, see workflows/queue-keys.ts), deliveries have
 * their own table. The same SQL on SQLite and PostgreSQL (counts arrive as text there).
 */
export async function readQueueDepths(db: Kysely<Database>, now: number): Promise<QueueDepth[]> {
  const { rows } = await sql<Row>`
    SELECT CASE WHEN source_id LIKE 'wfrun:%' OR source_id LIKE 'wflane:%' THEN 'workflow' ELSE 'source' END AS kind,
           COUNT(*) AS depth, MIN(created_at) AS oldest
      FROM invocations GROUP BY 1
    UNION ALL
    SELECT 'delivery' AS kind, COUNT(*) AS depth, MIN(created_at) AS oldest
      FROM deliveries WHERE status IN ('pending', 'delivering')`.execute(db);
  const byKind = new Map<QueueKind, QueueDepth>();
  for (const kind of ['source', 'workflow', 'delivery'] as const) byKind.set(kind, { kind, depth: 0, oldestAgeMs: 0 });
  for (const row of rows) {
    const kind = row.kind as QueueKind;
    const depth = Number(row.depth);
    const oldest = row.oldest === null ? null : Number(row.oldest);
    byKind.set(kind, { kind, depth, oldestAgeMs: depth > 0 && oldest !== null ? Math.max(0, now - oldest) : 0 });
  }
  return [...byKind.values()];
}
