import { isIP } from 'node:net';
import { AppError } from '@tributary/contracts';
import type { SendRecord } from '@tributary/runtime';
import { isPrivateAddress, PRIVATE_ADDRESS_HINT } from '../components/fetch-component-url.js';

/** What the operator configured, as far as checking a destination needs it. */
export interface DestinationSettings {
  readonly allowPrivateUrls: boolean;
  readonly emailConfigured: boolean;
  readonly s3Configured: boolean;
}

/** SSE channel names travel in a URL path (`/v1/sse/{channel}`): a plain name, no slashes. */
export const CHANNEL_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/;

/** S3's bucket naming rules (3–63 characters, lower case, digits, dots and hyphens, not an IP). */
const BUCKET_PATTERN = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

function invalid(index: number, kind: string, field: string, message: string): AppError {
  return new AppError('DESTINATION_INVALID', `sends[${index}] ($.send.${kind}): ${message}`, {
    field: `sends.${index}.${field}`,
  });
}

/**
 * Refuses a destination that can never be delivered here, before anything is stored: the runtime
 * checked the shape at call time (SEND_INVALID); this checks it against what this server can
 * reach and what the operator configured. Returns normally when every send can be attempted.
 */
export function checkDestinations(sends: readonly SendRecord[], settings: DestinationSettings): void {
  sends.forEach((send, index) => {
    const config = send.config;
    switch (send.kind) {
      case 'http':
        checkUrl(index, 'http', 'url', config['url'], settings.allowPrivateUrls);
        return;
      case 'email':
        if (!settings.emailConfigured)
          throw invalid(
            index,
            'email',
            'kind',
            'email is not configured on this server: the operator sets TRIBUTARY_SMTP_URL, TRIBUTARY_SMTP_FROM and TRIBUTARY_OWNER_EMAIL',
          );
        return;
      case 's3': {
        if (!settings.s3Configured)
          throw invalid(
            index,
            's3',
            'kind',
            's3 is not configured on this server: the operator sets TRIBUTARY_S3_ENDPOINT',
          );
        const bucket = String(config['bucket'] ?? '');
        if (!BUCKET_PATTERN.test(bucket) || bucket.includes('..') || isIP(bucket) !== 0)
          throw invalid(
            index,
            's3',
            'bucket',
            `"${bucket}" is not a valid S3 bucket name (3–63 lower-case letters, digits, dots and hyphens)`,
          );
        return;
      }
      case 'emit':
        return;
      case 'sse': {
        const channel = String(config['channel'] ?? '');
        if (!CHANNEL_PATTERN.test(channel))
          throw invalid(
            index,
            'sse',
            'channel',
            `"${channel}" is not a valid channel name (1–128 letters, digits, "_", ".", ":" or "-")`,
          );
        return;
      }
      default: {
        const never: never = send.kind;
        throw new AppError('INTERNAL', `unknown destination kind ${String(never)}`);
      }
    }
  });
}

/** An http(s) URL with a host, not an address the server keeps to itself. */
export function checkUrl(index: number, kind: string, field: string, value: unknown, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    throw invalid(index, kind, field, `${JSON.stringify(value)} is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw invalid(index, kind, field, `the URL must be http or https, got ${url.protocol}`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && ((isIP(host) !== 0 && isPrivateAddress(host)) || host === 'localhost'))
    throw invalid(
      index,
      kind,
      field,
      `${url.hostname} is a private or loopback address, which this server does not reach (${PRIVATE_ADDRESS_HINT})`,
    );
  return url;
}
