import type {
  AppAuthModes,
  InvocationKind,
  InvocationResult,
  InvocationState,
  HttpResponse,
  LogEntry,
} from '@tributary/runtime';
import type { ComponentHandle, Sandbox } from '@tributary/sandbox';
import type { AppError } from '@tributary/contracts';
import type { Selectable } from 'kysely';
import type { AppPropDescription } from '../accounts/account-service.js';
import type { ComponentService, ComponentRow } from '../components/component-service.js';
import type { EventRecord, LogRecord, PubSub } from '../pubsub/pubsub.js';
import { sealedAt } from '../secrets/sealed-places.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { Database } from '../store/schema.js';
import { accountFailureResult, isAccountFailure } from '../accounts/account-failure.js';
import { openProps } from './configured-props.js';
import { EventIds, LOG_SIZE } from './event-store.js';
import type { SourceCommit } from '../store/sqlite-writes.js';
import { TurnBudget } from './turn-budget.js';

export type SourceRow = Selectable<Database['sources']>;

export interface ExecutorOptions {
  readonly sandbox: Sandbox;
  readonly components: ComponentService;
  readonly box: SecretBox;
  readonly pubsub: PubSub;
  readonly now: () => number;
  /** Public base URL of the server, for `this.http.endpoint`. */
  readonly publicUrl: string;
  readonly sourceTimeoutMs: number;
  /** Called with each commit's events (after dedupe) once they are stored: subscriptions' hand-off. */
  readonly onCommitted?: (sourceId: string, events: readonly EventRecord[]) => void;
  /** Credentials of the connected accounts that app props point at (`{ authProvisionId }`). */
  readonly accounts?: {
    credentialsFor(
      configured: Readonly<Record<string, unknown>>,
    ): Promise<Readonly<Record<string, Readonly<Record<string, unknown>>>>>;
    appAuthFor(props: readonly AppPropDescription[]): Promise<AppAuthModes>;
  };
}

/** Results turned into rows, before they are written. */
export interface BuiltCommit {
  readonly events: EventRecord[];
  readonly logs: Omit<LogRecord, 'id'>[];
  readonly commit: SourceCommit;
}

/** What one invocation wrote, ready to commit. */
export interface Committed {
  readonly events: EventRecord[];
  readonly logs: LogRecord[];
}

/**
 * Runs a source's hooks and `run` in its sandbox worker, and commits an invocation's emits (after
 * dedupe), db writes, dedupe state and logs in one transaction (architecture §3).
 */
export class SourceExecutor {
  readonly ids = new EventIds();

  constructor(private readonly options: ExecutorOptions) {}

  endpointUrl(endpointId: string | null): string | null {
    return endpointId ? `${this.options.publicUrl}/e/${endpointId}` : null;
  }

  /**
   * The worker that runs a source's code. Workers are keyed by saved component, so sources deployed
   * from the same code share one warm worker (state travels with each invocation, never stays in
   * the worker); see docs/decisions/0003-server.md.
   */
  /**
   * The component loaded in a worker of `group`: the id of the owner whose code it is, so that
   * components of different owners never share a worker process (decision 0007), or a narrower
   * group (a workflow's expressions). Required, so no caller falls into one group shared by all.
   */
  async handle(component: ComponentRow, group: string): Promise<ComponentHandle> {
    const prepared = await this.options.components.prepare(component);
    return this.options.sandbox.open(prepared, { key: `component:${component.id}`, purpose: 'run', group });
  }

  /** Runs one hook or `run` of a source with its configured props (secrets opened) and state. */
  async invoke(input: {
    readonly handle: ComponentHandle;
    readonly source: Pick<SourceRow, 'id' | 'configured_props' | 'endpoint_id'>;
    readonly kind: InvocationKind;
    readonly state: InvocationState;
    readonly event?: unknown;
    readonly onLog?: (entry: LogEntry) => void;
    readonly onRespond?: (response: HttpResponse) => void;
    /** Stops the run: it then rejects with the signal's reason (ComponentHandle.invoke). */
    readonly signal?: AbortSignal;
  }): Promise<InvocationResult> {
    const configured = openProps(
      JSON.parse(input.source.configured_props) as Record<string, unknown>,
      this.options.box,
      (prop) => sealedAt.sourceProp(input.source.id, prop),
    );
    const endpointUrl = this.endpointUrl(input.source.endpoint_id);
    const accounts = await this.accountsFor(configured);
    if (accounts instanceof Error) {
      const now = this.options.now();
      return accountFailureResult({ error: accounts, type: 'source', kind: input.kind, state: input.state, now });
    }
    return input.handle.invoke(
      {
        kind: input.kind,
        configured,
        accounts,
        ...(await this.appAuth(input.handle)),
        ...(input.event !== undefined ? { event: input.event } : {}),
        state: input.state,
        ...(endpointUrl ? { endpointUrl } : {}),
        timeoutMs: this.options.sourceTimeoutMs,
        ...(input.signal ? { signal: input.signal } : {}),
      },
      { ...(input.onLog ? { onLog: input.onLog } : {}), ...(input.onRespond ? { onRespond: input.onRespond } : {}) },
    );
  }

  /**
   * Runs several queued `run`s of one source in one request to its worker, in order, each from the
   * state the previous one left (ComponentHandle.invokeBatch): fewer results than events when the
   * worker failed part way, and the rest did not run.
   */
  async invokeBatch(input: {
    readonly handle: ComponentHandle;
    readonly source: Pick<SourceRow, 'id' | 'configured_props' | 'endpoint_id'>;
    readonly events: readonly unknown[];
    readonly state: InvocationState;
    /** An item's http.respond(), as it happens. */
    readonly onRespond?: (item: number, response: HttpResponse) => void;
    /** Stops the batch: it then rejects with the signal's reason (ComponentHandle.invokeBatch). */
    readonly signal?: AbortSignal;
  }): Promise<InvocationResult[]> {
    const configured = openProps(
      JSON.parse(input.source.configured_props) as Record<string, unknown>,
      this.options.box,
      (prop) => sealedAt.sourceProp(input.source.id, prop),
    );
    const endpointUrl = this.endpointUrl(input.source.endpoint_id);
    // Accounts as `invoke` fills them: a batch runs the same `run` as one invocation would.
    const accounts = await this.accountsFor(configured);
    if (accounts instanceof Error) {
      const now = this.options.now();
      return input.events.map(() =>
        accountFailureResult({ error: accounts, type: 'source', kind: 'run', state: input.state, now }),
      );
    }
    return input.handle.invokeBatch(
      {
        configured,
        accounts,
        ...(await this.appAuth(input.handle)),
        events: input.events,
        state: input.state,
        ...(endpointUrl ? { endpointUrl } : {}),
        timeoutMs: this.options.sourceTimeoutMs,
        ...(input.signal ? { signal: input.signal } : {}),
      },
      input.onRespond ? { onRespond: input.onRespond } : {},
    );
  }

  /** The runtime's accounts, or the account error that fails the run before it starts (needs reconnect). */
  private async accountsFor(
    configured: Readonly<Record<string, unknown>>,
  ): Promise<Readonly<Record<string, Readonly<Record<string, unknown>>>> | AppError> {
    try {
      return (await this.options.accounts?.credentialsFor(configured)) ?? {};
    } catch (error) {
      if (isAccountFailure(error)) return error;
      throw error;
    }
  }

  /** The source's apps that run without an account (AccountService.appAuthFor), as request fields. */
  private async appAuth(handle: ComponentHandle): Promise<{ appAuth?: AppAuthModes }> {
    if (!this.options.accounts || !handle.loaded.info) return {};
    return {
      appAuth: await this.options.accounts.appAuthFor(handle.loaded.info.props as unknown as AppPropDescription[]),
    };
  }

  /**
   * Turns invocation results into one commit (events with their ids, log lines with markers),
   * yielding to the event loop every thousand events so one run's many emits do not hold it.
   */
  async buildCommit(input: {
    readonly sourceId: string;
    readonly invocationId: string | null;
    /** One id per result, when the results are several invocations (a batch). */
    readonly invocationIds?: readonly string[];
    readonly results: readonly InvocationResult[];
    readonly state: InvocationState;
  }): Promise<BuiltCommit> {
    const now = this.options.now();
    const budget = new TurnBudget();
    const events: EventRecord[] = [];
    const logs: Omit<LogRecord, 'id'>[] = [];
    for (const [index, result] of input.results.entries()) {
      for (const emit of result.emits) {
        const { id, ms } = this.ids.next(now);
        const metadata = {
          emitter_id: input.sourceId,
          emit_id: id,
          name: emit.metadata.name,
          ...(emit.metadata.id !== undefined ? { id: emit.metadata.id } : {}),
          summary: emit.metadata.summary,
          ts: emit.metadata.ts,
        };
        events.push({ id, indexed_at_ms: ms, event: emit.event, metadata });
        if (budget.spent()) await budget.pause();
      }
      const invocationId = input.invocationIds?.[index] ?? input.invocationId ?? result.invocationId;
      for (const entry of markers(result).slice(-LOG_SIZE))
        logs.push({ ts: entry.ts, level: entry.level, message: entry.message, invocation_id: invocationId });
    }
    const inserts: SourceCommit['events'][number][] = [];
    for (const record of events) {
      inserts.push({
        id: record.id,
        indexedAtMs: record.indexed_at_ms,
        event: JSON.stringify(record.event),
        metadata: JSON.stringify(record.metadata),
      });
      if (budget.spent()) await budget.pause();
    }
    return {
      events,
      logs,
      commit: {
        sourceId: input.sourceId,
        events: inserts,
        logs: logs.map((log) => ({
          invocationId: log.invocation_id,
          ts: log.ts,
          level: log.level,
          message: log.message,
        })),
        db: JSON.stringify(input.state.db),
        dedupe: input.state.dedupe ? JSON.stringify(input.state.dedupe) : null,
      },
    };
  }

  /** The committed records, with the ids the log lines got, ready to publish. */
  committed(built: BuiltCommit, logIds: readonly number[]): Committed {
    return {
      events: built.events,
      logs: built.logs.map((log, index) => ({ ...log, id: String(logIds[index] ?? '') })),
    };
  }

  /** Publishes committed events and logs to live subscribers, in order, a thousand per turn of the event loop. */
  async publish(sourceId: string, committed: Committed): Promise<void> {
    const budget = new TurnBudget();
    for (const record of committed.events) {
      this.options.pubsub.publish({ kind: 'event', sourceId, record });
      if (budget.spent()) await budget.pause();
    }
    for (const record of committed.logs) this.options.pubsub.publish({ kind: 'log', sourceId, record });
    this.options.onCommitted?.(sourceId, committed.events);
  }
}

/**
 * An invocation's log lines, framed by start and end markers (contract §3.7): "started" at the
 * time the invocation started, the end marker at start + duration, the lines as stamped in the
 * worker (same clock) between them.
 */
function markers(result: InvocationResult): LogEntry[] {
  const start = result.startedAtMs;
  const end: LogEntry = result.ok
    ? {
        level: 'info',
        message: `--- ${result.kind} finished in ${result.durationMs} ms`,
        ts: start + result.durationMs,
      }
    : {
        level: 'error',
        message: `--- ${result.kind} failed in ${result.durationMs} ms: ${result.error?.code ?? 'ERROR'}`,
        ts: start + result.durationMs,
      };
  return [{ level: 'info', message: `--- ${result.kind} started`, ts: start }, ...result.logs, end];
}
