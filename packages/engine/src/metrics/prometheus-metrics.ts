import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { InvocationOutcome, MetricSources, Metrics, QueueDepth, WorkerExitReason } from '../ports/metrics.js';

/** Invocations take milliseconds to minutes (a source's timeout defaults to 5 minutes). */
const INVOCATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
const HTTP_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];
const DRIFT_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 30, 60, 300];

/**
 * The metrics port on prom-client, in a registry of its own (two engines in one process, as in
 * tests, never share counters). The process's default metrics (CPU, memory, event-loop delay
 * percentiles from `monitorEventLoopDelay`) go in the same registry under `tributary_`.
 */
export class PrometheusMetrics implements Metrics {
  readonly registry = new Registry();
  private sources: MetricSources | null = null;
  private readonly requests: Histogram<'method' | 'route' | 'status'>;
  private readonly acks: Counter<'status'>;
  private readonly invocations: Histogram<'kind' | 'outcome'>;
  private readonly platformFailures: Counter<'kind'>;
  private readonly workerStarts: Counter;
  private readonly workerExits: Counter<'reason'>;
  private readonly drift: Histogram;
  private readonly sse: Gauge;
  /**
   * The labelled series of the per-request metrics, kept by their label values: prom-client hashes
   * a label object on every call, and this runs once per request on the ingress's hot path.
   */
  private readonly requestSeries = new Map<string, { observe(value: number): void }>();
  private readonly ackSeries = new Map<number, { inc(): void }>();
  /** The same for every finished invocation: one series per kind and outcome, bound once. */
  private readonly invocationSeries = new Map<string, { observe(value: number): void }>();
  private readonly failureSeries = new Map<string, { inc(): void }>();

  constructor() {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'tributary_' });
    this.requests = new Histogram({
      name: 'tributary_http_request_duration_seconds',
      help: 'HTTP requests answered, by method, matched route pattern and status',
      labelNames: ['method', 'route', 'status'],
      buckets: HTTP_BUCKETS,
      registers,
    });
    this.acks = new Counter({
      name: 'tributary_ingress_acknowledgements_total',
      help: 'Requests to HTTP endpoints answered by the ingress, by status (2xx: the event is durable)',
      labelNames: ['status'],
      registers,
    });
    this.invocations = new Histogram({
      name: 'tributary_invocation_duration_seconds',
      help: 'Invocations that produced a result, by kind and outcome, with their run time in the worker',
      labelNames: ['kind', 'outcome'],
      buckets: INVOCATION_BUCKETS,
      registers,
    });
    this.platformFailures = new Counter({
      name: 'tributary_invocation_platform_failures_total',
      help: 'Invocations that failed in the platform (retried with backoff, then dead letters)',
      labelNames: ['kind'],
      registers,
    });
    this.workerStarts = new Counter({
      name: 'tributary_sandbox_worker_starts_total',
      help: 'Sandbox worker processes started',
      registers,
    });
    this.workerExits = new Counter({
      name: 'tributary_sandbox_worker_exits_total',
      help: 'Sandbox worker processes that ended: evicted by the pool, or crashed (timeout, memory, payload, crashed)',
      labelNames: ['reason'],
      registers,
    });
    this.drift = new Histogram({
      name: 'tributary_timer_drift_seconds',
      help: 'How late timer ticks were queued after their due time',
      buckets: DRIFT_BUCKETS,
      registers,
    });
    this.sse = new Gauge({ name: 'tributary_sse_clients', help: 'Open SSE streams', registers });
    const read = (): MetricSources => {
      if (!this.sources) throw new Error('the metrics were not bound to an engine');
      return this.sources;
    };
    // One query serves both queue gauges: the registry collects its metrics side by side, so the
    // second collect finds the first one's read in flight and shares it.
    let reading: Promise<readonly QueueDepth[]> | null = null;
    const queue = (): Promise<readonly QueueDepth[]> =>
      (reading ??= read()
        .queue()
        .finally(() => {
          reading = null;
        }));
    new Gauge({
      name: 'tributary_queue_depth',
      help: 'Items queued, by kind (source invocations, workflow runs, deliveries)',
      labelNames: ['kind'],
      registers,
      collect: async function (this: Gauge<'kind'>) {
        for (const entry of await queue()) this.set({ kind: entry.kind }, entry.depth);
      },
    });
    new Gauge({
      name: 'tributary_queue_oldest_age_seconds',
      help: 'Age of the oldest queued item, by kind (0 when none is queued)',
      labelNames: ['kind'],
      registers,
      collect: async function (this: Gauge<'kind'>) {
        for (const entry of await queue()) this.set({ kind: entry.kind }, entry.oldestAgeMs / 1000);
      },
    });
    new Gauge({
      name: 'tributary_sandbox_workers',
      help: 'Sandbox worker processes alive, by state',
      labelNames: ['state'],
      registers,
      collect(this: Gauge<'state'>) {
        const pool = read().pool();
        this.set({ state: 'busy' }, pool.busy);
        this.set({ state: 'idle' }, pool.workers - pool.busy);
      },
    });
    new Gauge({
      name: 'tributary_sandbox_memory_bytes',
      help: 'Resident memory of all sandbox workers (process trees)',
      registers,
      collect(this: Gauge) {
        this.set(read().pool().rssBytes);
      },
    });
  }

  httpRequest(input: { method: string; route: string; status: number; seconds: number }): void {
    const key = `${input.method} ${input.status} ${input.route}`;
    let series = this.requestSeries.get(key);
    if (!series) {
      series = this.requests.labels({ method: input.method, route: input.route, status: String(input.status) });
      this.requestSeries.set(key, series);
    }
    series.observe(input.seconds);
  }

  ingressAcknowledged(status: number): void {
    let series = this.ackSeries.get(status);
    if (!series) {
      series = this.acks.labels({ status: String(status) });
      this.ackSeries.set(status, series);
    }
    series.inc();
  }

  invocationFinished(input: { kind: 'source' | 'workflow'; outcome: InvocationOutcome; seconds: number | null }): void {
    if (input.seconds === null) {
      let series = this.failureSeries.get(input.kind);
      if (!series) {
        series = this.platformFailures.labels({ kind: input.kind });
        this.failureSeries.set(input.kind, series);
      }
      series.inc();
      return;
    }
    const key = `${input.kind} ${input.outcome}`;
    let series = this.invocationSeries.get(key);
    if (!series) {
      series = this.invocations.labels({ kind: input.kind, outcome: input.outcome });
      this.invocationSeries.set(key, series);
    }
    series.observe(input.seconds);
  }

  workerStarted(): void {
    this.workerStarts.inc();
  }

  workerExited(reason: WorkerExitReason): void {
    this.workerExits.inc({ reason });
  }

  timerDrift(seconds: number): void {
    this.drift.observe(Math.max(0, seconds));
  }

  sseClientOpened(): () => void {
    this.sse.inc();
    let open = true;
    return () => {
      if (!open) return;
      open = false;
      this.sse.dec();
    };
  }

  bind(sources: MetricSources): void {
    this.sources = sources;
  }

  async render(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }
}
