import { ListenerSet } from './listener-set.js';
import type { SourceListener, SourceMessage, Unsubscribe } from './pubsub.js';

/**
 * The listeners of this process, per source. The memory PubSub delivers with it directly; a
 * networked one delivers what it receives through it, so local dispatch behaves the same.
 */
export class SourceFanout {
  private readonly listeners = new Map<string, ListenerSet<SourceMessage>>();

  constructor(private readonly onListenerError: (error: unknown) => void) {}

  get size(): number {
    let count = 0;
    for (const set of this.listeners.values()) count += set.size;
    return count;
  }

  add(sourceId: string, listener: SourceListener): Unsubscribe {
    let set = this.listeners.get(sourceId);
    if (!set) {
      set = new ListenerSet(this.onListenerError);
      this.listeners.set(sourceId, set);
    }
    const remove = set.add(listener);
    return () => {
      remove();
      // A source nobody listens to holds nothing; a second call finds its set gone or replaced.
      if (set.size === 0 && this.listeners.get(sourceId) === set) this.listeners.delete(sourceId);
    };
  }

  deliver(message: SourceMessage): void {
    this.listeners.get(message.sourceId)?.deliver(message);
  }
}
