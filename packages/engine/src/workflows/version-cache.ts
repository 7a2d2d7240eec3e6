import type { WorkflowVersion } from './workflow-store.js';

/**
 * The versions runs step through, kept parsed. A saved version never changes (a save is a new
 * version), so a run needs its spec and plan read and parsed only the first time; a workflow's
 * ids are never reused, so a deleted workflow's entries are merely dead weight until evicted.
 */
export class VersionCache {
  private readonly versions = new Map<string, WorkflowVersion>();

  constructor(
    private readonly load: (workflowId: string, version: number) => Promise<WorkflowVersion | null>,
    private readonly max = 256,
  ) {}

  async get(workflowId: string, version: number): Promise<WorkflowVersion | null> {
    const key = `${workflowId}\u0000${version}`;
    const known = this.versions.get(key);
    if (known) return known;
    const loaded = await this.load(workflowId, version);
    if (!loaded) return null;
    // Oldest first out: the versions in use are re-read at most once per `max` other versions.
    if (this.versions.size >= this.max) {
      const oldest = this.versions.keys().next().value;
      if (oldest !== undefined) this.versions.delete(oldest);
    }
    this.versions.set(key, loaded);
    return loaded;
  }
}
