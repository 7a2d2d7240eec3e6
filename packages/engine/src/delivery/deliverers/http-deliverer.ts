import type { AttemptOutcome, DeliveryJob } from '../delivery-types.js';
import { EgressError, egressRequest, retryableStatus } from '../egress-request.js';

export interface HttpDelivererOptions {
  readonly timeoutMs: number;
  readonly allowPrivateUrls: boolean;
}

/**
 * `$.send.http`: the request as configured (method, url, params, headers, data, basic auth). An
 * object `data` is sent as JSON. 2xx is delivered; 5xx, 408, 429 and network errors are retried;
 * any other status fails at once (the same request would get the same answer).
 */
export async function deliverHttp(job: DeliveryJob, options: HttpDelivererOptions): Promise<AttemptOutcome> {
  const config = job.config;
  const url = new URL(String(config['url']));
  const params = (config['params'] ?? {}) as Record<string, unknown>;
  for (const [name, value] of Object.entries(params)) url.searchParams.append(name, String(value));
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries((config['headers'] ?? {}) as Record<string, unknown>))
    headers[name.toLowerCase()] = String(value);
  const data = config['data'];
  let body: Buffer | null = null;
  if (typeof data === 'string') body = Buffer.from(data);
  else if (data !== undefined && data !== null) {
    body = Buffer.from(JSON.stringify(data));
    headers['content-type'] ??= 'application/json';
  }
  // The same on every attempt: a receiver drops the duplicates at-least-once delivery can bring.
  headers['x-tributary-delivery'] ??= job.id;
  const auth = config['auth'] as { username?: unknown; password?: unknown } | undefined;
  if (auth && typeof auth === 'object')
    headers['authorization'] ??=
      `Basic ${Buffer.from(`${String(auth.username ?? '')}:${String(auth.password ?? '')}`).toString('base64')}`;
  try {
    const response = await egressRequest({
      method: String(config['method']),
      url,
      headers,
      body,
      timeoutMs: options.timeoutMs,
      allowPrivate: options.allowPrivateUrls,
    });
    if (response.status >= 200 && response.status < 300) return { ok: true, detail: `HTTP ${response.status}` };
    return { ok: false, detail: `HTTP ${response.status}`, retry: retryableStatus(response.status) };
  } catch (error) {
    if (error instanceof EgressError) return { ok: false, detail: error.message, retry: error.retryable };
    throw error;
  }
}
