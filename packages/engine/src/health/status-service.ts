import type { PoolStats, QueueDepth } from '../ports/metrics.js';
import type { ReadinessReport } from './readiness.js';
import type { RecentFailure } from './recent-failures.js';

/** A recent failure with the name of what failed: its source or workflow (null once deleted). */
export type NamedFailure = RecentFailure & { readonly name: string | null };

export interface StatusReport {
  readonly startedAt: number;
  readonly uptimeMs: number;
  readonly storage: 'sqlite' | 'postgres';
  readonly queue: readonly QueueDepth[];
  readonly pool: PoolStats;
  readonly readiness: ReadinessReport;
  /** Newest first. */
  readonly recentFailures: readonly NamedFailure[];
}

export interface StatusOptions {
  readonly startedAt: number;
  readonly now: () => number;
  readonly storage: 'sqlite' | 'postgres';
  readonly queue: () => Promise<readonly QueueDepth[]>;
  readonly pool: () => PoolStats;
  readonly readiness: () => Promise<ReadinessReport>;
  readonly failures: () => readonly RecentFailure[];
  readonly sourceName: (sourceId: string) => Promise<string | null>;
  readonly workflowName: (workflowId: string) => Promise<string | null>;
}

/** One answer to "how is this server doing": for `tributary status` and the web app's Settings. */
export class StatusService {
  constructor(private readonly options: StatusOptions) {}

  async read(): Promise<StatusReport> {
    const { options } = this;
    const [queue, readiness] = await Promise.all([options.queue(), options.readiness()]);
    const failures = options.failures();
    // Each source or workflow is read once, however often it failed.
    const names = new Map<string, Promise<string | null>>();
    const cached = (id: string, read: (id: string) => Promise<string | null>): Promise<string | null> => {
      const known = names.get(id) ?? read(id);
      names.set(id, known);
      return known;
    };
    const nameOf = (failure: RecentFailure): Promise<string | null> => {
      switch (failure.kind) {
        case 'source':
          return cached(failure.sourceId, options.sourceName);
        case 'workflow':
          return cached(failure.workflowId, options.workflowName);
      }
    };
    const recentFailures = await Promise.all(
      failures.map(async (failure): Promise<NamedFailure> => ({ ...failure, name: await nameOf(failure) })),
    );
    return {
      startedAt: options.startedAt,
      uptimeMs: options.now() - options.startedAt,
      storage: options.storage,
      queue,
      pool: options.pool(),
      readiness,
      recentFailures,
    };
  }
}
