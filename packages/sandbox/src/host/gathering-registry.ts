import { CallGathering } from './component-handle.js';

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

  constructor(private readonly max = MAX_GATHERINGS) {}

  get size(): number {
    return this.byKey.size;
  }

  /** The gathering of `key`, made when there is none, now the most recently used. */
  of(key: string): CallGathering {
    let gathering = this.byKey.get(key);
    if (gathering) this.byKey.delete(key);
    else gathering = new CallGathering();
    this.byKey.set(key, gathering);
    if (this.byKey.size > this.max) this.dropIdle();
    return gathering;
  }

  /** Drops least recently used gatherings down to the limit, skipping any with calls waiting to go out. */
  private dropIdle(): void {
    for (const [key, gathering] of this.byKey) {
      if (this.byKey.size <= this.max) return;
      if (gathering.calls.length === 0) this.byKey.delete(key);
    }
  }
}
