import type { SendRecord } from '@tributary/runtime';
import type { EventRecord, PubSub } from '../pubsub/pubsub.js';
import { AttemptWaiters } from './attempt-waiters.js';
import { KindDeliverers } from './attempt-by-kind.js';
import { checkDestinations } from './check-destination.js';
import type { DeliveryJobs, NewDelivery } from './delivery-jobs.js';
import { newDeliveryId } from './delivery-ids.js';
import type { DeliverySettings, EmitFanOut } from './delivery-settings.js';
import type { DeliveryContext, DeliveryKind, DeliveryRecord } from './delivery-types.js';
import { DeliveryWorker } from './delivery-worker.js';
import { redactConfig } from './redact-config.js';
import { DEFAULT_DELIVERY_RETRY, type DeliveryRetryPolicy } from './retry-policy.js';
import { sendJobs } from './send-jobs.js';
import { channelRecord } from './sse-channels.js';

export type { DeliverySettings, EmitFanOut } from './delivery-settings.js';

export interface DeliveryServiceOptions {
  readonly jobs: DeliveryJobs;
  readonly settings: DeliverySettings;
  readonly pubsub: PubSub;
  /** `$.send.emit`'s subscribers (the subscriptions service). */
  readonly fanOut: EmitFanOut;
  readonly now: () => number;
  readonly log: (message: string) => void;
  /** Longest sleep of the worker between looks at the table (default 1 s). */
  readonly maxSleepMs?: number;
}

/** A job to queue that is not a `$.send.*` call: an event for a webhook listener. */
export interface ExtraDelivery {
  /** A derived id makes queuing the same delivery twice store it once (default: a new id). */
  readonly id?: string;
  readonly kind: DeliveryKind;
  readonly owner: string;
  readonly runId: string;
  readonly subscriptionId: string | null;
  readonly target: string;
  readonly config: Record<string, unknown>;
}

/**
 * Delivers `$.send.*` calls after the step that made them, and emitted events to webhook
 * listeners: each one a durable job with its attempts, backoff and log (docs/destinations.md).
 * `deliver` checks every destination first and stores nothing when one is bad.
 */
export class DeliveryService {
  private readonly worker: DeliveryWorker;
  private readonly retry: DeliveryRetryPolicy;
  private readonly deliverers: KindDeliverers;
  private readonly waiters = new AttemptWaiters();

  constructor(private readonly options: DeliveryServiceOptions) {
    const { settings } = options;
    this.retry = { ...DEFAULT_DELIVERY_RETRY, ...settings.retry };
    this.deliverers = new KindDeliverers({
      settings,
      timeoutMs: settings.timeoutMs ?? 5000,
      pubsub: options.pubsub,
      fanOut: options.fanOut,
      now: options.now,
    });
    this.worker = new DeliveryWorker({
      jobs: options.jobs,
      attempt: (job) => this.deliverers.attempt(job),
      retry: this.retry,
      now: options.now,
      log: options.log,
      ...(options.maxSleepMs !== undefined ? { maxSleepMs: options.maxSleepMs } : {}),
      onAttempted: (id) => this.waiters.settle(id),
    });
  }

  get retryPolicy(): DeliveryRetryPolicy {
    return this.retry;
  }

  start(): void {
    this.worker.start();
  }

  stop(): Promise<void> {
    return this.worker.stop();
  }

  /** Throws `DESTINATION_INVALID` for the first send that can never be delivered here. */
  check(sends: readonly SendRecord[]): void {
    checkDestinations(sends, {
      allowPrivateUrls: this.options.settings.allowPrivateUrls,
      emailConfigured: this.deliverers.emailConfigured,
      s3Configured: this.deliverers.s3Configured,
    });
  }

  /**
   * Queues a step's `$.send.*` calls as delivery jobs (all or none: a bad destination throws
   * `DESTINATION_INVALID` and nothing is stored) and resolves with their records. With `waitMs`,
   * first waits up to that long for each one's first attempt, so the records say how it went.
   */
  async deliver(
    sends: readonly SendRecord[],
    context: DeliveryContext,
    options: { readonly waitMs?: number } = {},
  ): Promise<DeliveryRecord[]> {
    this.check(sends);
    if (sends.length === 0) return [];
    const jobs = sendJobs(sends, context, { createdAt: this.options.now(), maxAttempts: this.retry.maxAttempts });
    return this.queue(jobs, options.waitMs ?? 0);
  }

  /** Queues jobs that are not `$.send.*` calls (webhook listeners' events). */
  async enqueue(deliveries: readonly ExtraDelivery[]): Promise<void> {
    const createdAt = this.options.now();
    await this.queue(
      deliveries.map((delivery) => ({
        id: delivery.id ?? newDeliveryId('dlv'),
        kind: delivery.kind,
        owner: delivery.owner,
        runId: delivery.runId,
        stepName: null,
        subscriptionId: delivery.subscriptionId,
        target: delivery.target,
        config: delivery.config,
        shown: redactConfig(delivery.kind, delivery.config),
        maxAttempts: this.retry.maxAttempts,
        createdAt,
      })),
      0,
    );
  }

  get(id: string): Promise<DeliveryRecord | undefined> {
    return this.options.jobs.get(id);
  }

  listByRun(runId: string): Promise<DeliveryRecord[]> {
    return this.options.jobs.listByRun(runId);
  }

  listBySubscription(
    subscriptionId: string,
    page: { readonly limit: number; readonly before?: string },
  ): Promise<{ data: DeliveryRecord[]; total: number }> {
    return this.options.jobs.listBySubscription(subscriptionId, page);
  }

  /** The last `limit` messages delivered to an SSE channel, oldest first (replayed on connect). */
  async channelReplay(channel: string, limit = 100): Promise<EventRecord[]> {
    const records = await this.options.jobs.recentByTarget('sse', channel, limit);
    return records
      .filter((record) => record.status === 'delivered')
      .map((record) =>
        channelRecord({
          id: record.id,
          run_id: record.run_id,
          step_name: record.step_name,
          at: record.delivered_at ?? record.created_at,
          channel: record.target,
          payload: record.config['payload'],
        }),
      );
  }

  private async queue(jobs: readonly NewDelivery[], waitMs: number): Promise<DeliveryRecord[]> {
    const attempted = waitMs > 0 ? jobs.map((job) => this.waiters.wait(job.id, waitMs)) : [];
    await this.options.jobs.insert(jobs);
    this.worker.wake();
    await Promise.all(attempted);
    const records = await Promise.all(jobs.map((job) => this.options.jobs.get(job.id)));
    return records.filter((record): record is DeliveryRecord => record !== undefined);
  }
}
