/**
 * What the contract suites are given: a way to open (and reopen) one backend's Store, queue and
 * scheduler on the same data, with an injected clock. A PostgreSQL or BullMQ implementation
 * provides its own factory and runs the same suites.
 */
import type { InvocationQueue, RetryPolicy } from '../../src/ports/invocation-queue.js';
import type { Scheduler } from '../../src/ports/scheduler.js';
import type { SourceCommit, Store, StoredSource } from '../../src/ports/store.js';

export interface Backend {
  readonly store: Store;
  readonly queue: InvocationQueue;
  /** Not started: the suites call `tick()`, or `start()` when they test the loop. */
  readonly scheduler: Scheduler;
  /** Creates what a source row refers to (its saved component) in this backend. */
  seedComponent(componentId: string): Promise<void>;
  /** Closes every connection; the data stays for the next `open`. */
  close(): Promise<void>;
}

export interface OpenOptions {
  readonly now: () => number;
  readonly retry: RetryPolicy;
  /** Told which sources got timer ticks queued. */
  readonly onQueued?: (sourceIds: readonly string[]) => void;
  /** Where the scheduler reports a failed check. */
  readonly log?: (message: string) => void;
}

export interface BackendFactory {
  open(options: OpenOptions): Promise<Backend>;
  /** Removes the data (after the last close). */
  dispose(): Promise<void>;
}

export type MakeBackend = () => Promise<BackendFactory>;

/** A clock the tests move by hand. */
export class TestClock {
  constructor(private ms: number) {}
  readonly now = (): number => this.ms;
  advance(ms: number): void {
    this.ms += ms;
  }
}

export const RETRY: RetryPolicy = { maxAttempts: 3, baseDelayMs: 1000, maxDelayMs: 1500 };

let counter = 0;
/** A fresh id with a prefix; unique within the test process. */
export function uniqueId(prefix: string): string {
  counter += 1;
  return `${prefix}_${process.pid}_${counter}`;
}

export function sourceRow(
  id: string,
  componentId: string,
  now: number,
  extra: Partial<StoredSource> = {},
): StoredSource {
  return {
    id,
    component_id: componentId,
    name: id,
    name_slug: id,
    active: 1,
    configured_props: '{}',
    endpoint_id: null,
    custom_response: 0,
    timer: null,
    next_fire_at: null,
    created_at: now,
    updated_at: now,
    ...extra,
  };
}

export function emptyCommit(sourceId: string, extra: Partial<SourceCommit> = {}): SourceCommit {
  return { sourceId, events: [], logs: [], db: '{}', dedupe: null, ...extra };
}

/** Creates a source (and its component) through the ports. */
export async function createSource(
  backend: Backend,
  now: number,
  extra: Partial<StoredSource> = {},
): Promise<StoredSource> {
  const componentId = uniqueId('sc');
  await backend.seedComponent(componentId);
  const row = sourceRow(uniqueId('dc'), componentId, now, extra);
  await backend.store.insertSource(row, emptyCommit(row.id));
  return row;
}
