import type { Unsubscribe } from './pubsub.js';

/**
 * Listeners of one kind in this process, each called in turn: one that throws is reported and
 * does not keep the others from theirs. `SourceFanout` keeps one per source; the PubSubs keep one
 * for stop requests. After `close` nothing is delivered and new listeners are not kept, as the
 * port promises of a closed instance.
 */
export class ListenerSet<T> {
  private readonly listeners = new Set<(value: T) => void>();
  private closed = false;

  constructor(private readonly onListenerError: (error: unknown) => void) {}

  get size(): number {
    return this.listeners.size;
  }

  add(listener: (value: T) => void): Unsubscribe {
    if (this.closed) return () => undefined;
    // A wrapper per subscription: the same function subscribed twice is two subscriptions.
    const entry = (value: T): void => listener(value);
    this.listeners.add(entry);
    return () => void this.listeners.delete(entry);
  }

  deliver(value: T): void {
    if (this.closed) return;
    for (const listener of this.listeners) {
      try {
        listener(value);
      } catch (error) {
        // One broken listener (a dead SSE socket, a runner gone) must not starve the others.
        this.onListenerError(error);
      }
    }
  }

  close(): void {
    this.closed = true;
    this.listeners.clear();
  }
}
