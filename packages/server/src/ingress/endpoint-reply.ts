import type { ServerResponse } from 'node:http';
import type { AppError } from '@tributary/contracts';
import type { HttpResponse } from '@tributary/engine';

const PLAIN = 'text/plain; charset=utf-8';
const OCTET = 'application/octet-stream';
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Writes an endpoint's answer (the component's `http.respond()`, or a platform reply) as the API's
 * framework would: a text body without a content type is `text/plain; charset=utf-8`, a binary one
 * `application/octet-stream`, a JSON type without a charset gets `; charset=utf-8`, the length is
 * counted, and a 1xx or 204 answer carries neither. Header names are lower-cased.
 */
export function writeEndpointResponse(res: ServerResponse, method: string | undefined, response: HttpResponse): void {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) headers[name.toLowerCase()] = value;
  const body = response.body ?? '';
  const type = headers['content-type'];
  if (typeof body === 'string') {
    if (type === undefined) headers['content-type'] = PLAIN;
    else if (isJsonType(type) && !/;\s*charset=/i.test(type))
      headers['content-type'] = `${type.trim().replace(/;\s*$/, '')}; charset=utf-8`;
  } else if (type === undefined) {
    headers['content-type'] = OCTET;
  }
  const status = response.status;
  if ((status >= 100 && status < 200) || status === 204) {
    delete headers['content-type'];
    delete headers['content-length'];
    res.writeHead(status, headers);
    res.end();
    return;
  }
  const length = Buffer.byteLength(body);
  const stated = headers['content-length'];
  if (!stated || (method !== 'HEAD' && Number(stated) !== length)) headers['content-length'] = String(length);
  res.writeHead(status, headers);
  res.end(body);
}

/** The API's error body (`{ error: { code, message, details? } }`) with the code's status. */
export function writeEndpointError(res: ServerResponse, error: AppError, headers: Record<string, string> = {}): void {
  const details = Object.keys(error.details).length > 0 ? { details: error.details } : {};
  const body = JSON.stringify({ error: { code: error.code, message: error.message, ...details } });
  res.writeHead(error.status, {
    ...headers,
    'content-type': JSON_TYPE,
    'content-length': String(Buffer.byteLength(body)),
  });
  res.end(body);
}

function isJsonType(type: string): boolean {
  return (type.split(';', 1)[0] ?? '').toLowerCase().includes('json');
}
