import { CallGathering, GatheredRequests } from './component-handle.js';

/**
 * Most gatherings kept: one per component version and worker group that was called. Past it, the
 * least recently used idle ones go, so a server that runs for months through many code updates
 * does not keep one for every version it ever ran.
 */
export const MAX_GATHERINGS = 2048;

/**
 * The sandbox's gatherings (ComponentHandle.invoke), one per component and group, shared by every
 * handle opened on it. A dropped gathering costs nothing but its memory of the last call's
 * duration: the next call on that component is sent alone and learns it again.
 */
export class GatheringRegistry {
  /** In order of last use, least recent first (a Map keeps insertion order). */
  private readonly byKey = new Map<string, CallGathering>();
  /** The requests in flight of each group, which its components' gatherings share. */
  private readonly groups = new Map<string, GatheredRequests>();

  constructor(private readonly max = MAX_GATHERINGS) {}

  get size(): number {
    return this.byKey.size;
  }

  /** The gathering of a component (`slot`) in `group`, made when there is none, now the most recently used. */
  of(group: string, slot: string): CallGathering {
    const key = `${group}\n${slot}`;
    let gathering = this.byKey.get(key);
    if (gathering) this.byKey.delete(key);
    else gathering = new CallGathering(this.requestsOf(group));
    this.byKey.set(key, gathering);
    if (this.byKey.size > this.max) this.dropIdle();
    return gathering;
  }

  private requestsOf(group: string): GatheredRequests {
    let requests = this.groups.get(group);
    if (!requests) {
      requests = new GatheredRequests();
      this.groups.set(group, requests);
    }
    return requests;
  }

  /**
   * Drops least recently used gatherings down to the limit, skipping any with calls waiting to go
   * out; then the groups none of the kept gatherings belongs to, unless requests of theirs are out.
   */
  private dropIdle(): void {
    for (const [key, gathering] of this.byKey) {
      if (this.byKey.size <= this.max) break;
      if (gathering.calls.length === 0) this.byKey.delete(key);
    }
    const kept = new Set([...this.byKey.values()].map((gathering) => gathering.requests));
    for (const [group, requests] of this.groups)
      if (!kept.has(requests) && requests.sending === 0) this.groups.delete(group);
  }
}
