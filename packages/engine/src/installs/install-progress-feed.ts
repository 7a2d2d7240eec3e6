import { AsyncLocalStorage } from 'node:async_hooks';
import type { InstallProgress } from '@tributary/sandbox';

/**
 * Whose request an install runs for. `progressId` is the id a client chose and sent with the
 * request (`X-Tributary-Progress`); `caller` names who signed the request in (one API key, or one
 * browser session), so a stream shows a caller its own installs and nobody else's.
 */
export interface InstallScope {
  readonly progressId: string | null;
  readonly caller: string | null;
}

/** An install seen by a listener, with the scope of the request it runs for (null: none, e.g. at startup). */
export type InstallProgressListener = (progress: InstallProgress, scope: InstallScope | null) => void;

/**
 * The npm installs this process runs for components, as they start and finish: a deploy that
 * waits on one shows its progress (`GET /v1/installs/sse`) instead of a silent wait. In-process
 * only: the install runs in the process that validates the code, the one answering the request.
 * The scope travels with the request's async work (AsyncLocalStorage), so the sandbox, deep
 * below the route, needs no parameter to say whose install it is.
 */
export class InstallProgressFeed {
  private readonly listeners = new Set<InstallProgressListener>();
  private readonly scopes = new AsyncLocalStorage<InstallScope>();
  /** Requests inside `within` now: the storage is on only while there is one. */
  private active = 0;

  subscribe(listener: InstallProgressListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Runs a request's work so the installs it starts carry `scope`. While any AsyncLocalStorage of
   * the process is enabled, Node 20 runs a hook at every promise the process creates (measured:
   * awaits 2.4 times slower), and `run` leaves it enabled for good: one API call would tax every
   * later HTTP trigger and workflow step. So the storage is disabled when the last request inside
   * it ends; an install a request left running past its answer is published without a scope.
   */
  async within<T>(scope: InstallScope, work: () => Promise<T>): Promise<T> {
    this.active += 1;
    try {
      return await this.scopes.run(scope, work);
    } finally {
      this.active -= 1;
      if (this.active === 0) this.scopes.disable();
    }
  }

  publish(progress: InstallProgress): void {
    const scope = this.scopes.getStore() ?? null;
    for (const listener of this.listeners) {
      try {
        listener(progress, scope);
      } catch {
        // A listener is a client's stream; one that fails must not fail the install.
      }
    }
  }
}
