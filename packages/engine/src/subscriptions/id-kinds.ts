/** A kind of emitter, by id prefix: whether an id names one. */
export interface EmitterKind {
  exists(id: string): Promise<boolean>;
}

/** A kind of listener, by id prefix: whether an id names one, and how it gets an event. */
export interface ListenerKind {
  exists(id: string): Promise<boolean>;
  /** Queues a run of the listener with the event (durably: the listener's own queue). */
  run(id: string, event: unknown): Promise<void>;
}

/**
 * Kinds of ids by prefix (`dc_` sources; workflows add `wf_`): subscriptions accept and reach
 * whatever kinds are registered, so a new kind of emitter or listener needs no change here.
 */
export class IdKinds<T> {
  private readonly kinds = new Map<string, T>();

  register(prefix: string, kind: T): void {
    this.kinds.set(prefix, kind);
  }

  find(id: string): T | undefined {
    for (const [prefix, kind] of this.kinds) if (id.startsWith(prefix)) return kind;
    return undefined;
  }

  /** The registered prefixes, for error messages: `dc_…, wf_…`. */
  describe(): string {
    return [...this.kinds.keys()].map((prefix) => `${prefix}…`).join(', ');
  }
}
