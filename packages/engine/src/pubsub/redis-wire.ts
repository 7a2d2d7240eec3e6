import type { HttpResponse } from '@tributary/runtime';
import type { StopReason } from '../invocations/stop-reason.js';
import type { SourceMessage, StopRequest } from './pubsub.js';

/**
 * What RedisPubSub puts on the wire, as JSON. Source messages are plain JSON already; a reply's
 * body may be a Buffer, which JSON would turn into `{ type, data }`, so it travels as base64.
 */
type WireBody = { readonly text: string } | { readonly base64: string } | null;

interface WireResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: WireBody;
}

interface WireReply {
  readonly invocationId: string;
  readonly response: WireResponse | null;
}

export function encodeSourceMessage(message: SourceMessage): string {
  return JSON.stringify(message);
}

/** Trusts its input: only Tributary processes sharing the prefix publish on these channels. */
export function decodeSourceMessage(text: string): SourceMessage {
  return JSON.parse(text) as SourceMessage;
}

interface WireStopRuns {
  readonly sourceId: string;
  /** Absent from processes before updates stopped runs elsewhere: those only stopped for deletes. */
  readonly because?: StopReason;
}

/** An object rather than the bare id, so a later field does not break processes of this version. */
export function encodeStopRuns(request: StopRequest): string {
  const wire: WireStopRuns = { sourceId: request.sourceId, because: request.because };
  return JSON.stringify(wire);
}

export function decodeStopRuns(text: string): StopRequest {
  const wire = JSON.parse(text) as Partial<WireStopRuns> | null;
  if (typeof wire?.sourceId !== 'string') throw new Error('a stop request without a source id');
  return { sourceId: wire.sourceId, because: wire.because === 'updated' ? 'updated' : 'deleted' };
}

export function encodeReply(invocationId: string, response: HttpResponse | null): string {
  const wire: WireReply = {
    invocationId,
    response: response && { status: response.status, headers: response.headers, body: encodeBody(response.body) },
  };
  return JSON.stringify(wire);
}

export function decodeReply(text: string): { invocationId: string; response: HttpResponse | null } {
  const wire = JSON.parse(text) as WireReply;
  const response = wire.response;
  return {
    invocationId: wire.invocationId,
    response: response && { status: response.status, headers: response.headers, body: decodeBody(response.body) },
  };
}

function encodeBody(body: HttpResponse['body']): WireBody {
  if (body === null) return null;
  return typeof body === 'string' ? { text: body } : { base64: body.toString('base64') };
}

function decodeBody(body: WireBody): HttpResponse['body'] {
  if (body === null) return null;
  return 'text' in body ? body.text : Buffer.from(body.base64, 'base64');
}
