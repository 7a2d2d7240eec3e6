import type { EmailSettings } from './deliverers/email-deliverer.js';
import type { S3Settings } from './deliverers/s3-deliverer.js';
import type { DeliveryRetryPolicy } from './retry-policy.js';

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
