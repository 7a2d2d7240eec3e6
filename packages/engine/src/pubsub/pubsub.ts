import type { StopReason } from '../invocations/stop-reason.js';
import type { HttpResponse } from '@tributary/runtime';

/** What is published when an invocation commits: its events and log lines, per source. */
export type SourceMessage =
  | { readonly kind: 'event'; readonly sourceId: string; readonly record: EventRecord }
  | { readonly kind: 'log'; readonly sourceId: string; readonly record: LogRecord };

/** An event of the event bin (contract §4.2). */
export interface EventRecord {
  readonly id: string;
  readonly indexed_at_ms: number;
  readonly event: unknown;
  readonly metadata: Record<string, unknown>;
}

export interface LogRecord {
  readonly id: string;
  readonly ts: number;
  readonly level: 'info' | 'warn' | 'error';
  readonly message: string;
  readonly invocation_id: string | null;
}

export type SourceListener = (message: SourceMessage) => void;

/** A request to stop a source's runs in flight, and why (the runner does different things after each). */
export interface StopRequest {
  readonly sourceId: string;
  readonly because: StopReason;
}

export type StopRunsListener = (request: StopRequest) => void;

/** Ends a subscription; calling it again does nothing. */
export type Unsubscribe = () => void;

/** What one process holds right now: a leak shows up here as a number that never goes down. */
export interface PubSubStats {
  readonly subscribers: number;
  readonly replyWaiters: number;
}

/**
 * The pub/sub port. Three jobs: fan committed events and logs out to live subscribers (SSE), carry
 * a customResponse reply from wherever the invocation ran to the process holding the HTTP request,
 * and tell every process to stop a source's runs as the source is deleted (the delete may be
 * answered by a process that does not run it). Every implementation keeps these guarantees
 * (test/contracts/pubsub.contract.ts):
 *
 * Source messages
 * - A listener gets every message of its source published after its `subscribe` resolved and
 *   before it unsubscribed, from any process sharing the implementation, and none of other sources.
 * - Messages of one source reach each listener in the order one publisher published them (the
 *   runner serialises a source's invocations, so that is commit order).
 * - Nothing is stored: a subscriber that was away catches up from the event bin with
 *   Last-Event-ID, which is the caller's job (the SSE route subscribes first, then reads the
 *   bin, and drops duplicates by id).
 * - `publish` never throws and never waits; a listener that throws does not stop delivery to the
 *   others or fail the commit that published.
 *
 * Replies
 * - `awaitReply(id)` resolves with the first reply published for `id` (a response, or null when
 *   the invocation ended without one); later replies for the same id are dropped.
 * - A reply published shortly before `awaitReply` is still delivered (how long is the
 *   implementation's; the memory one keeps the latest 1024 unclaimed replies): the ingress can
 *   only wait once `enqueue` gave it the id, and a worker elsewhere may be faster.
 * - Aborting the signal rejects the wait with the signal's reason and forgets the waiter;
 *   a settled wait leaves no listener on the signal.
 * - `cancelReplyWait(id, reason)` does the same for this process's wait for `id` without a signal
 *   (the ingress waits once per request, and an AbortController per request cost it about 3 % of
 *   the main thread's time under load); it does nothing when nobody here waits for `id`.
 *
 * Stop requests
 * - A stop-runs listener gets every request published with `publishStopRuns` after its
 *   `subscribeStopRuns` resolved and before it unsubscribed (or its instance closed), from any
 *   process sharing the implementation, the publishing one included.
 * - Nothing is stored, and a request may be missed while the backend is unreachable: it only
 *   saves waiting for a deadline. What a missed one leaves is harmless, because a commit for a
 *   source that no longer exists is refused (Store.commit).
 * - `publishStopRuns` never throws and never waits; a listener that throws does not stop delivery
 *   to the others.
 *
 * Why the shape suits a Redis implementation: `subscribe` is async so it can resolve once the
 * SUBSCRIBE is acknowledged; `publish`, `publishReply` and `publishStopRuns` return nothing
 * because the publisher has nothing to wait for (the event bin is the record, a lost reply ends in
 * the ingress's 504, a lost stop request in the run's deadline and a refused commit).
 * `RedisPubSub` keeps one subscriber connection per process and dispatches locally with
 * `SourceFanout` and `ReplyWaiters`; `publishReply` also stores the reply with a short TTL
 * (SET NX) so that a waiter registering just after the reply reads it.
 */
export interface PubSub {
  publish(message: SourceMessage): void;
  subscribe(sourceId: string, listener: SourceListener): Promise<Unsubscribe>;
  awaitReply(invocationId: string, signal?: AbortSignal): Promise<HttpResponse | null>;
  cancelReplyWait(invocationId: string, reason: unknown): void;
  publishReply(invocationId: string, response: HttpResponse | null): void;
  /** Asks every process sharing the implementation to stop the runs in flight of a source. */
  publishStopRuns(request: StopRequest): void;
  /** Resolves once stop requests published from then on reach `listener`. */
  subscribeStopRuns(listener: StopRunsListener): Promise<Unsubscribe>;
  stats(): PubSubStats;
  /**
   * Lets go of what the implementation holds (connections); the engine calls it last, when it stops.
   * Nothing is published or delivered afterwards.
   */
  close(): Promise<void>;
}
