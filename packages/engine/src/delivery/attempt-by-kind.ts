import { countOf } from '@tributary/contracts';
import type { PubSub } from '../pubsub/pubsub.js';
import type { AttemptOutcome, DeliveryJob } from './delivery-types.js';
import type { DeliverySettings, EmitFanOut } from './delivery-settings.js';
import { emailDeliverer } from './deliverers/email-deliverer.js';
import { deliverHttp } from './deliverers/http-deliverer.js';
import { s3Deliverer } from './deliverers/s3-deliverer.js';
import { deliverWebhook } from './deliverers/webhook-deliverer.js';
import { channelRecord, publishToChannel } from './sse-channels.js';

export interface KindDeliverersOptions {
  readonly settings: DeliverySettings;
  /** Deadline of one http, webhook or SMTP attempt. */
  readonly timeoutMs: number;
  readonly pubsub: PubSub;
  readonly fanOut: EmitFanOut;
  readonly now: () => number;
}

type Deliverer = (job: DeliveryJob) => Promise<AttemptOutcome>;

/** One deliverer per kind, and the one attempt of a job by its kind. */
export class KindDeliverers {
  private readonly email: Deliverer | null;
  private readonly s3: Deliverer | null;

  constructor(private readonly options: KindDeliverersOptions) {
    const { settings } = options;
    // Transports are made once: nodemailer and the S3 client keep their connections between attempts.
    this.email = settings.email ? emailDeliverer({ ...settings.email, timeoutMs: options.timeoutMs }) : null;
    this.s3 = settings.s3 ? s3Deliverer(settings.s3) : null;
  }

  get emailConfigured(): boolean {
    return this.email !== null;
  }

  get s3Configured(): boolean {
    return this.s3 !== null;
  }

  /** One attempt of one job, by kind. */
  async attempt(job: DeliveryJob): Promise<AttemptOutcome> {
    const { settings, timeoutMs } = this.options;
    switch (job.kind) {
      case 'http':
        return deliverHttp(job, { timeoutMs, allowPrivateUrls: settings.allowPrivateUrls });
      case 'email':
        return this.email
          ? this.email(job)
          : { ok: false, detail: 'email is no longer configured on this server', retry: false };
      case 's3':
        return this.s3
          ? this.s3(job)
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
        return { ok: true, detail: `handed to ${countOf(reached, 'subscriber')} of ${job.target}` };
      }
      case 'sse':
        publishToChannel(
          this.options.pubsub,
          job.target,
          channelRecord({
            id: job.id,
            run_id: job.runId,
            step_name: job.stepName,
            at: this.options.now(),
            channel: job.target,
            payload: job.config['payload'],
          }),
        );
        return { ok: true, detail: `published on channel ${job.target}` };
      case 'webhook':
        return deliverWebhook(job, {
          timeoutMs,
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
