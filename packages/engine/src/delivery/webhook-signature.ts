import { createHmac } from 'node:crypto';

/** The header every webhook delivery carries (docs/rest-api.md, "Verifying a delivery"). */
export const SIGNATURE_HEADER = 'x-tributary-signature';

/**
 * `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed with the subscription's secret>`.
 * The time is signed with the body so a captured delivery cannot be replayed later as new.
 */
export function signWebhook(secret: string, timestampS: number, body: string): string {
  const mac = createHmac('sha256', secret).update(`${timestampS}.${body}`).digest('hex');
  return `t=${timestampS},v1=${mac}`;
}
