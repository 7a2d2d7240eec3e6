import type { PoolStats, QueueDepth } from '../ports/metrics.js';
import type { ReadinessReport } from './readiness.js';
import type { RecentFailure } from './recent-failures.js';

export interface StatusReport {
  readonly startedAt: number;
  readonly uptimeMs: number;
  readonly storage: 'sqlite' | 'postgres';
  readonly queue: readonly QueueDepth[];
  readonly pool: PoolStats;
  readonly readiness: ReadinessReport;
  /** Newest first, each with its source's name (null once the source is deleted). */
  readonly recentFailures: readonly (RecentFailure & { readonly sourceName: string | null })[];
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
}

/** One answer to "how is this server doing": for `tributary status` and the web app's Settings. */
export class StatusService {
  constructor(private readonly options: StatusOptions) {}

  async read(): Promise<StatusReport> {
    const { options } = this;
    const [queue, readiness] = await Promise.all([options.queue(), options.readiness()]);
    const failures = options.failures();
    const names = new Map<string, string | null>();
    for (const sourceId of new Set(failures.map((failure) => failure.sourceId)))
      names.set(sourceId, await options.sourceName(sourceId));
    return {
      startedAt: options.startedAt,
      uptimeMs: options.now() - options.startedAt,
      storage: options.storage,
      queue,
      pool: options.pool(),
      readiness,
      recentFailures: failures.map((failure) => ({ ...failure, sourceName: names.get(failure.sourceId) ?? null })),
    };
  }
}
