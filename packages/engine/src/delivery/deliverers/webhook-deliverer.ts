import type { AttemptOutcome, DeliveryJob } from '../delivery-types.js';
import { EgressError, egressRequest } from '../egress-request.js';
import { SIGNATURE_HEADER, signWebhook } from '../webhook-signature.js';

export interface WebhookDelivererOptions {
  readonly timeoutMs: number;
  readonly allowPrivateUrls: boolean;
  readonly now: () => number;
}

/**
 * POSTs an emitted event to a subscription's `listener_url`, signed. Any answer but 2xx is
 * retried: a listener is a service the subscriber runs, and its 4xx is as likely a deploy in
 * progress as a final refusal.
 */
export async function deliverWebhook(job: DeliveryJob, options: WebhookDelivererOptions): Promise<AttemptOutcome> {
  const body = String(job.config['body']);
  const signature = signWebhook(String(job.config['secret']), Math.floor(options.now() / 1000), body);
  try {
    const response = await egressRequest({
      method: 'POST',
      url: new URL(String(job.config['url'])),
      headers: {
        'content-type': 'application/json',
        [SIGNATURE_HEADER]: signature,
        'x-tributary-delivery': job.id,
        'x-tributary-subscription': job.subscriptionId ?? '',
        'x-tributary-attempt': String(job.attempts + 1),
      },
      body: Buffer.from(body),
      timeoutMs: options.timeoutMs,
      allowPrivate: options.allowPrivateUrls,
    });
    if (response.status >= 200 && response.status < 300) return { ok: true, detail: `HTTP ${response.status}` };
    return { ok: false, detail: `HTTP ${response.status}`, retry: true };
  } catch (error) {
    if (error instanceof EgressError) return { ok: false, detail: error.message, retry: error.retryable };
    throw error;
  }
}
