import type { SendRecord } from '@tributary/runtime';
import type { EventRecord, PubSub } from '../pubsub/pubsub.js';
import { checkDestinations } from './check-destination.js';
import type { DeliveryJobs, NewDelivery } from './delivery-jobs.js';
import { newDeliveryId } from './delivery-ids.js';
import type { AttemptOutcome, DeliveryContext, DeliveryJob, DeliveryKind, DeliveryRecord } from './delivery-types.js';
import { DeliveryWorker } from './delivery-worker.js';
import { emailDeliverer, type EmailSettings } from './deliverers/email-deliverer.js';
import { deliverHttp } from './deliverers/http-deliverer.js';
import { s3Deliverer, s3ObjectKey, type S3Settings } from './deliverers/s3-deliverer.js';
import { deliverWebhook } from './deliverers/webhook-deliverer.js';
import { redactConfig } from './redact-config.js';
import { DEFAULT_DELIVERY_RETRY, type DeliveryRetryPolicy } from './retry-policy.js';
import { publishToChannel } from './sse-channels.js';

/** The operator's delivery settings (docs/config.md, docs/destinations.md). */
export interface DeliverySettings {
  readonly allowPrivateUrls: boolean;
  /** Deadline of one http, webhook or SMTP attempt (default 5 s, the contract's http timeout). */
  readonly timeoutMs?: number;
  readonly email?: Omit<EmailSettings, 'timeoutMs'> | null;
  readonly s3?: S3Settings | null;
  readonly retry?: Partial<DeliveryRetryPolicy>;
}

/** Hands an emitted event to the emitter's subscribers; resolves with how many it reached. */
export type EmitFanOut = (input: {
  readonly emitterId: string;
  readonly channel: string;
  readonly event: unknown;
  readonly runId: string;
  /** The emit's delivery id, stable across its attempts. */
  readonly sendId: string;
}) => Promise<number>;

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
  private readonly timeoutMs: number;
  private readonly sendEmail: ((job: DeliveryJob) => Promise<AttemptOutcome>) | null;
  private readonly putS3: ((job: DeliveryJob) => Promise<AttemptOutcome>) | null;
  private readonly waiters = new Map<string, Set<() => void>>();

  constructor(private readonly options: DeliveryServiceOptions) {
    const { settings } = options;
    this.retry = { ...DEFAULT_DELIVERY_RETRY, ...settings.retry };
    this.timeoutMs = settings.timeoutMs ?? 5000;
    this.sendEmail = settings.email ? emailDeliverer({ ...settings.email, timeoutMs: this.timeoutMs }) : null;
    this.putS3 = settings.s3 ? s3Deliverer(settings.s3) : null;
    this.worker = new DeliveryWorker({
      jobs: options.jobs,
      attempt: (job) => this.attempt(job),
      retry: this.retry,
      now: options.now,
      log: options.log,
      ...(options.maxSleepMs !== undefined ? { maxSleepMs: options.maxSleepMs } : {}),
      onAttempted: (id) => this.attempted(id),
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
      emailConfigured: this.sendEmail !== null,
      s3Configured: this.putS3 !== null,
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
    const createdAt = this.options.now();
    const jobs: NewDelivery[] = sends.map((send) => {
      const id = newDeliveryId('dlv');
      const config =
        send.kind === 's3'
          ? { ...send.config, key: s3ObjectKey(String(send.config['prefix']), createdAt, id) }
          : send.config;
      return {
        id,
        kind: send.kind,
        owner: context.owner,
        runId: context.runId,
        stepName: context.stepName ?? null,
        subscriptionId: null,
        target: targetOf(send.kind, config, context),
        config,
        shown: redactConfig(send.kind, config),
        maxAttempts: this.retry.maxAttempts,
        createdAt,
      };
    });
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
    return records.filter((record) => record.status === 'delivered').map(channelRecord);
  }

  private async queue(jobs: readonly NewDelivery[], waitMs: number): Promise<DeliveryRecord[]> {
    const attempted = waitMs > 0 ? jobs.map((job) => this.waitFor(job.id, waitMs)) : [];
    await this.options.jobs.insert(jobs);
    this.worker.wake();
    await Promise.all(attempted);
    const records = await Promise.all(jobs.map((job) => this.options.jobs.get(job.id)));
    return records.filter((record): record is DeliveryRecord => record !== undefined);
  }

  private waitFor(id: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const waiters = this.waiters.get(id) ?? new Set();
      this.waiters.set(id, waiters);
      const done = (): void => {
        clearTimeout(timer);
        waiters.delete(done);
        if (waiters.size === 0) this.waiters.delete(id);
        resolve();
      };
      const timer = setTimeout(done, ms);
      waiters.add(done);
    });
  }

  private attempted(id: string): void {
    for (const done of [...(this.waiters.get(id) ?? [])]) done();
  }

  /** One attempt of one job, by kind. */
  private async attempt(job: DeliveryJob): Promise<AttemptOutcome> {
    const { settings } = this.options;
    switch (job.kind) {
      case 'http':
        return deliverHttp(job, { timeoutMs: this.timeoutMs, allowPrivateUrls: settings.allowPrivateUrls });
      case 'email':
        return this.sendEmail
          ? this.sendEmail(job)
          : { ok: false, detail: 'email is no longer configured on this server', retry: false };
      case 's3':
        return this.putS3
          ? this.putS3(job)
          : { ok: false, detail: 's3 is no longer configured on this server', retry: false };
      case 'emit': {
        if (job.target === '')
          return { ok: true, detail: 'a standalone action run has no subscribers: delivered to nobody' };
        const reached = await this.options.fanOut({
          emitterId: job.target,
          channel: typeof job.config['channel'] === 'string' ? job.config['channel'] : '',
          event: job.config['raw_event'] ?? null,
          runId: job.runId,
          sendId: job.id,
        });
        return { ok: true, detail: `handed to ${reached} subscriber(s) of ${job.target}` };
      }
      case 'sse':
        publishToChannel(
          this.options.pubsub,
          job.target,
          channelRecord({
            id: job.id,
            run_id: job.runId,
            step_name: job.stepName,
            created_at: this.options.now(),
            target: job.target,
            config: job.config,
          }),
        );
        return { ok: true, detail: `published on channel ${job.target}` };
      case 'webhook':
        return deliverWebhook(job, {
          timeoutMs: this.timeoutMs,
          allowPrivateUrls: settings.allowPrivateUrls,
          now: this.options.now,
        });
      default: {
        const never: never = job.kind;
        return { ok: false, detail: `unknown delivery kind ${String(never)}`, retry: false };
      }
    }
  }
}

function targetOf(kind: SendRecord['kind'], config: Record<string, unknown>, context: DeliveryContext): string {
  switch (kind) {
    case 'http':
      return String(config['url']);
    case 'email':
      return 'owner';
    case 's3':
      return `${String(config['bucket'])}/${String(config['key'])}`;
    case 'emit':
      return context.emitterId ?? '';
    case 'sse':
      return String(config['channel']);
    default: {
      const never: never = kind;
      return String(never);
    }
  }
}

/** An SSE channel message: the frame's `id` is the delivery id, `data` the payload with where it came from. */
function channelRecord(
  record: Pick<DeliveryRecord, 'id' | 'run_id' | 'step_name' | 'created_at' | 'target' | 'config'>,
): EventRecord {
  return {
    id: record.id,
    indexed_at_ms: record.created_at,
    event: record.config['payload'] ?? null,
    metadata: { channel: record.target, run_id: record.run_id, step_name: record.step_name },
  };
}
