import type { HttpResponse } from '@tributary/runtime';

type Reply = HttpResponse | null;

interface Waiter {
  readonly resolve: (reply: Reply) => void;
  readonly reject: (reason: unknown) => void;
  readonly detach: () => void;
}

/** What is remembered of an invocation whose reply came with nobody waiting yet. */
type Unclaimed = { readonly kind: 'reply'; readonly reply: Reply } | { readonly kind: 'answered' };

export interface ReplyWaitersOptions {
  /** Unclaimed replies kept for a late waiter; the oldest go first. */
  readonly keep?: number;
}

const DEFAULT_KEEP = 1024;

/**
 * This process's waiters for customResponse replies, by invocation id. The memory PubSub
 * delivers with it directly; a networked one would deliver what it receives through it.
 */
export class ReplyWaiters {
  private readonly waiters = new Map<string, Waiter>();
  /** Insertion-ordered, so the oldest entry is the first key. */
  private readonly unclaimed = new Map<string, Unclaimed>();
  private readonly keep: number;

  constructor(options: ReplyWaitersOptions = {}) {
    this.keep = Math.max(1, options.keep ?? DEFAULT_KEEP);
  }

  get size(): number {
    return this.waiters.size;
  }

  wait(invocationId: string, signal?: AbortSignal): Promise<Reply> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const early = this.unclaimed.get(invocationId);
    if (early?.kind === 'reply') {
      this.remember(invocationId, ANSWERED);
      return Promise.resolve(early.reply);
    }
    return new Promise<Reply>((resolve, reject) => {
      const onAbort = (): void => {
        if (this.waiters.get(invocationId) !== waiter) return;
        this.waiters.delete(invocationId);
        reject(signal?.reason);
      };
      const waiter: Waiter = { resolve, reject, detach: () => signal?.removeEventListener('abort', onAbort) };
      // One waiter per invocation (the ingress holding the request): a second one replaces the
      // first, which is rejected rather than left pending with nobody able to end it.
      const replaced = this.waiters.get(invocationId);
      this.waiters.set(invocationId, waiter);
      replaced?.detach();
      replaced?.reject(new Error(`another wait for the reply of ${invocationId} replaced this one`));
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Rejects the wait for `invocationId` with `reason` and forgets it; nothing when there is none. */
  cancel(invocationId: string, reason: unknown): void {
    const waiter = this.waiters.get(invocationId);
    if (!waiter) return;
    this.waiters.delete(invocationId);
    waiter.detach();
    waiter.reject(reason);
  }

  /** Hands the reply to its waiter, or keeps it for one that comes late; only the first counts. */
  deliver(invocationId: string, reply: Reply): void {
    const waiter = this.waiters.get(invocationId);
    if (waiter) {
      this.waiters.delete(invocationId);
      waiter.detach();
      // The runner answers again when the invocation commits; that second reply must be dropped.
      this.remember(invocationId, ANSWERED);
      waiter.resolve(reply);
      return;
    }
    if (this.unclaimed.has(invocationId)) return;
    this.remember(invocationId, { kind: 'reply', reply });
  }

  private remember(invocationId: string, entry: Unclaimed): void {
    this.unclaimed.delete(invocationId);
    this.unclaimed.set(invocationId, entry);
    if (this.unclaimed.size > this.keep) {
      const oldest = this.unclaimed.keys().next();
      if (!oldest.done) this.unclaimed.delete(oldest.value);
    }
  }
}

const ANSWERED: Unclaimed = { kind: 'answered' };
