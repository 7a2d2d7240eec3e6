import type { SourceListener, SourceMessage, Unsubscribe } from './pubsub.js';

/**
 * The listeners of this process, per source. The memory PubSub delivers with it directly; a
 * networked one would deliver what it receives through it, so local dispatch behaves the same.
 */
export class SourceFanout {
  private readonly listeners = new Map<string, Set<SourceListener>>();
  private count = 0;

  constructor(private readonly onListenerError: (error: unknown) => void) {}

  get size(): number {
    return this.count;
  }

  add(sourceId: string, listener: SourceListener): Unsubscribe {
    // A wrapper per subscription: the same function subscribed twice is two subscriptions.
    const entry: SourceListener = (message) => listener(message);
    let set = this.listeners.get(sourceId);
    if (!set) {
      set = new Set();
      this.listeners.set(sourceId, set);
    }
    set.add(entry);
    this.count += 1;
    return () => {
      const current = this.listeners.get(sourceId);
      if (!current?.delete(entry)) return;
      this.count -= 1;
      if (current.size === 0) this.listeners.delete(sourceId);
    };
  }

  deliver(message: SourceMessage): void {
    const set = this.listeners.get(message.sourceId);
    if (!set) return;
    for (const listener of set) {
      try {
        listener(message);
      } catch (error) {
        // One broken subscriber (a dead socket) must not starve the others or fail the commit.
        this.onListenerError(error);
      }
    }
  }
}
