/** Raw parts of an HTTP request as an ingress received them. */
export interface RawHttpRequest {
  readonly method: string;
  /** Path below the endpoint, starting with `/`. */
  readonly path: string;
  /** The full URL the caller used. */
  readonly url: string;
  readonly query: URLSearchParams;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Buffer;
}

/**
 * Builds the event an HTTP-triggered source receives (contract §3.5): lower-cased headers, query
 * values as strings (repeated keys as arrays), `body` parsed from JSON when it parses, urlencoded
 * bodies kept as text, and `bodyRaw`/`rawBody` holding the text as sent.
 */
export function buildHttpEvent(request: RawHttpRequest): Record<string, unknown> {
  // Built with Object.fromEntries, which defines own properties: a key `__proto__` (from a query
  // string or a header name) is kept as data instead of replacing the object's prototype.
  const headers: Record<string, string> = Object.fromEntries(
    Object.entries(request.headers).flatMap(([name, value]) =>
      value === undefined ? [] : [[name.toLowerCase(), Array.isArray(value) ? value.join(', ') : value]],
    ),
  );
  const query: Record<string, string | string[]> = Object.fromEntries(
    [...new Set(request.query.keys())].map((key) => {
      const values = request.query.getAll(key);
      return [key, values.length === 1 ? (values[0] ?? '') : values];
    }),
  );
  const bodyRaw = request.body.toString('utf8');
  return {
    method: request.method.toUpperCase(),
    path: request.path,
    query,
    headers,
    bodyRaw,
    rawBody: bodyRaw,
    body: parseBody(bodyRaw, headers['content-type'] ?? ''),
    url: request.url,
  };
}

function parseBody(text: string, contentType: string): unknown {
  if (text === '') return undefined;
  if (contentType.includes('application/x-www-form-urlencoded')) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
