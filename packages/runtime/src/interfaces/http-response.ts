import { AppError } from '@tributary/contracts';
import { isPlainObject } from '../util/json.js';

/** A response a component asked for with `http.respond` or `$.respond`. */
export interface HttpResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string | Buffer | null;
}

/**
 * Checks and normalises a respond() argument (contract §3.4): status 100–599 (numeric strings
 * coerced), plain-object headers, and a string, Buffer or object body (objects become JSON).
 */
export function normalizeResponse(input: unknown, caller: string): HttpResponse {
  if (!isPlainObject(input))
    throw new AppError('RESPOND_INVALID', `${caller}: expects an object { status, headers?, body? }`);
  const rawStatus = input['status'];
  const status = typeof rawStatus === 'string' && /^\d+$/.test(rawStatus.trim()) ? Number(rawStatus) : rawStatus;
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 100 || status > 599) {
    throw new AppError(
      'RESPOND_INVALID',
      `${caller}: status must be an integer from 100 to 599, got ${JSON.stringify(rawStatus)}`,
      {
        field: 'status',
      },
    );
  }
  const headers: Record<string, string> = {};
  const rawHeaders = input['headers'] ?? {};
  if (!isPlainObject(rawHeaders))
    throw new AppError('RESPOND_INVALID', `${caller}: headers must be an object`, { field: 'headers' });
  for (const [name, value] of Object.entries(rawHeaders)) {
    if (value === undefined || value === null) continue;
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  const body = input['body'];
  if (body === undefined || body === null) return { status, headers, body: null };
  if (typeof body === 'string' || Buffer.isBuffer(body)) return { status, headers, body };
  if (body instanceof Uint8Array) return { status, headers, body: Buffer.from(body) };
  if (typeof body === 'object' || typeof body === 'number' || typeof body === 'boolean') {
    headers['content-type'] ??= 'application/json';
    return { status, headers, body: JSON.stringify(body) };
  }
  throw new AppError('RESPOND_INVALID', `${caller}: body must be a string, Buffer or object`, { field: 'body' });
}

/** Largest request body an HTTP interface takes (contract §3.6); larger ones get 413. */
export const MAX_ENDPOINT_BODY_BYTES = 512 * 1024;

/** How long a `customResponse` request waits for `http.respond()` before its 504. */
export const CUSTOM_RESPONSE_DEADLINE_MS = 30_000;

const text = (status: number, body: string): HttpResponse => ({
  status,
  headers: { 'content-type': 'text/plain' },
  body,
});

/**
 * The replies an HTTP interface gives on the component's behalf (contract §3.4–§3.6), the same
 * whether `tributary dev` or the server received the request.
 */
export const ENDPOINT_REPLIES = {
  /** Without customResponse: the request is acknowledged on receipt. */
  accepted: text(200, 'OK'),
  /** With customResponse, when the run ended without calling `http.respond()`. */
  noResponse: text(400, 'No response was issued by the source'),
  /** With customResponse, when no response came before the deadline. */
  timeout: text(504, 'Gateway Timeout: the source did not respond in time'),
  /** A `custom_response` workflow whose run ended without `$.respond()` (Pipedream's wording). */
  workflowNoResponse: text(400, 'No $.respond called in workflow'),
  /** A `custom_response` workflow that did not call `$.respond()` before the deadline. */
  workflowTimeout: text(504, 'Gateway Timeout: the workflow did not respond in time'),
  /** `OPTIONS`, answered by the platform. */
  preflight: {
    status: 200,
    headers: { 'access-control-allow-origin': '*', 'access-control-allow-methods': 'GET,HEAD,PUT,PATCH,POST,DELETE' },
    body: null,
  } satisfies HttpResponse,
} as const;
