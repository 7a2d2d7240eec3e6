import type { WorkflowRow } from './workflow-store.js';

/** Lookups kept at most, misses included, before the cache starts over. */
const MAX_ENTRIES = 10_000;

/**
 * Workflow rows as the SQLite store last read them, by id and by endpoint id, misses included:
 * every HTTP trigger looked its workflow up twice (by endpoint, then by id to start the run) for
 * rows that change only when a workflow is saved, activated, deleted, fired or trimmed. On SQLite
 * this process is the file's one writer and each of those writes empties the cache
 * (SqliteWorkflowStore), so an entry is never older than the last write. Misses are kept so that a
 * source's endpoint, looked up here first, costs no query either; probing random endpoints fills
 * the cache to its bound, which then starts over.
 */
export class WorkflowReadCache {
  private readonly byId = new Map<string, WorkflowRow | null>();
  private readonly byEndpoint = new Map<string, WorkflowRow | null>();

  row(id: string, read: () => WorkflowRow | null): WorkflowRow | null {
    return remembered(this.byId, id, read);
  }

  endpoint(endpointId: string, read: () => WorkflowRow | null): WorkflowRow | null {
    return remembered(this.byEndpoint, endpointId, read);
  }

  /** A write to the workflows table: whatever was read before it may be out of date. */
  clear(): void {
    this.byId.clear();
    this.byEndpoint.clear();
  }
}

function remembered(
  entries: Map<string, WorkflowRow | null>,
  key: string,
  read: () => WorkflowRow | null,
): WorkflowRow | null {
  const known = entries.get(key);
  if (known !== undefined) return known;
  const row = read();
  if (entries.size >= MAX_ENTRIES) entries.clear();
  entries.set(key, row);
  return row;
}
