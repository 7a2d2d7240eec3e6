import type { StopRunsListener, Unsubscribe } from './pubsub.js';

/**
 * This process's stop-runs listeners (one per engine that runs invocations). The memory PubSub
 * delivers with it directly; the Redis one delivers what arrives on its stop channel through it.
 * After `close` nothing is delivered and new listeners are not kept, as the port promises.
 */
export class StopRunsListeners {
  private readonly listeners = new Set<StopRunsListener>();
  private closed = false;

  constructor(private readonly onListenerError: (error: unknown) => void) {}

  add(listener: StopRunsListener): Unsubscribe {
    if (this.closed) return () => undefined;
    // A wrapper per subscription: the same function subscribed twice is two subscriptions.
    const entry: StopRunsListener = (sourceId) => listener(sourceId);
    this.listeners.add(entry);
    return () => void this.listeners.delete(entry);
  }

  deliver(sourceId: string): void {
    if (this.closed) return;
    for (const listener of this.listeners) {
      try {
        listener(sourceId);
      } catch (error) {
        // One engine failing to stop its run must not keep the others from stopping theirs.
        this.onListenerError(error);
      }
    }
  }

  close(): void {
    this.closed = true;
    this.listeners.clear();
  }
}
