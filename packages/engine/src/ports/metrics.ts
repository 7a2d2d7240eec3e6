/** What the invocation queue holds, per kind of work, read when metrics are scraped. */
export type QueueKind = 'source' | 'workflow' | 'delivery';

export interface QueueDepth {
  readonly kind: QueueKind;
  readonly depth: number;
  /** Age of the oldest queued item in ms (0 when none is queued). */
  readonly oldestAgeMs: number;
}

/** How an invocation ended: a result (success or the component's failure), or the platform's failure. */
export type InvocationOutcome = 'success' | 'error' | 'timeout' | 'out_of_memory' | 'crashed' | 'platform_failure';

/**
 * Why a sandbox worker process ended: stopped by the pool (`evicted`) or at shutdown, else killed
 * at a limit (`timeout`, `memory`, `payload`) or died by itself (`crashed`).
 */
export type WorkerExitReason = 'evicted' | 'shutdown' | 'timeout' | 'memory' | 'payload' | 'cancelled' | 'crashed';

export interface PoolStats {
  readonly workers: number;
  readonly busy: number;
  /** Resident memory of all workers' process trees, at their last poll. */
  readonly rssBytes: number;
}

/** Readings taken at scrape time from the engine's parts (bound once the engine is composed). */
export interface MetricSources {
  readonly queue: () => Promise<readonly QueueDepth[]>;
  readonly pool: () => PoolStats;
}

/**
 * The engine's metrics port: the engine and the server report what happens through it, and the
 * operator's scrape reads it. The Prometheus implementation is `PrometheusMetrics`; `NO_METRICS`
 * records nothing (metrics off). Passed in through the engine's options, never a global.
 */
export interface Metrics {
  /** An HTTP request was answered: `route` is the matched pattern, never the raw path. */
  httpRequest(input: {
    readonly method: string;
    readonly route: string;
    readonly status: number;
    readonly seconds: number;
  }): void;
  /** The ingress answered a request to an HTTP endpoint (`status` is what the caller got). */
  ingressAcknowledged(status: number): void;
  invocationFinished(input: {
    readonly kind: 'source' | 'workflow';
    readonly outcome: InvocationOutcome;
    /** Time it ran in its worker (null for a platform failure, which has none to speak of). */
    readonly seconds: number | null;
  }): void;
  workerStarted(): void;
  workerExited(reason: WorkerExitReason): void;
  /** A timer tick was queued this long after it was due. */
  timerDrift(seconds: number): void;
  /** An SSE stream opened; the returned function is called once when it closes. */
  sseClientOpened(): () => void;
  /** The engine's readings for the gauges taken at scrape time. */
  bind(sources: MetricSources): void;
  /** The exposition text and its content type; null when metrics are off. */
  render(): Promise<{ readonly contentType: string; readonly text: string } | null>;
}

/** Records nothing: metrics off (the benchmark's baseline, and engines made without metrics). */
export const NO_METRICS: Metrics = {
  httpRequest: () => undefined,
  ingressAcknowledged: () => undefined,
  invocationFinished: () => undefined,
  workerStarted: () => undefined,
  workerExited: () => undefined,
  timerDrift: () => undefined,
  sseClientOpened: () => () => undefined,
  bind: () => undefined,
  render: () => Promise.resolve(null),
};
