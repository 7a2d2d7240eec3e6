import type { SendRecord } from '@tributary/runtime';
import type { NewDelivery } from './delivery-jobs.js';
import { newDeliveryId } from './delivery-ids.js';
import type { DeliveryContext } from './delivery-types.js';
import { s3ObjectKey } from './deliverers/s3-deliverer.js';
import { redactConfig } from './redact-config.js';

/** A step's sends as delivery jobs: ids, targets, redacted copies, and each S3 key fixed now. */
export function sendJobs(
  sends: readonly SendRecord[],
  context: DeliveryContext,
  options: { readonly createdAt: number; readonly maxAttempts: number },
): NewDelivery[] {
  return sends.map((send) => {
    const id = newDeliveryId('dlv');
    const config =
      send.kind === 's3'
        ? { ...send.config, key: s3ObjectKey(String(send.config['prefix']), options.createdAt, id) }
        : send.config;
    return {
      id,
      kind: send.kind,
      owner: context.owner,
      runId: context.runId,
      stepName: context.stepName ?? null,
      subscriptionId: null,
      target: sendTarget(send.kind, config, context.emitterId),
      config,
      shown: redactConfig(send.kind, config),
      maxAttempts: options.maxAttempts,
      createdAt: options.createdAt,
    };
  });
}

/**
 * What a delivery's `target` names, per kind: where it goes, as lists and the SSE replay look it up.
 * An S3 send whose key is not fixed yet (a local run, which delivers nothing) names its prefix.
 */
export function sendTarget(kind: SendRecord['kind'], config: Record<string, unknown>, emitterId?: string): string {
  switch (kind) {
    case 'http':
      return String(config['url']);
    case 'email':
      return 'owner';
    case 's3':
      return `${String(config['bucket'])}/${String(config['key'] ?? `${String(config['prefix'])}…`)}`;
    case 'emit':
      return emitterId ?? '';
    case 'sse':
      return String(config['channel']);
    default: {
      const never: never = kind;
      return String(never);
    }
  }
}
