import { isPlainObject } from '../util/json.js';

/** A name/value pair, how Pipedream's request builder lists headers, query params and body fields. */
interface Field {
  readonly name: string;
  readonly value: unknown;
}

/**
 * The runtime value of an `http_request` prop: the configured request (`url`, `method`, `headers`,
 * `params`, `body`, `auth`, as Pipedream's request builder stores it) plus `execute()`, which sends
 * it and resolves to the response body (parsed when it is JSON), as on Pipedream. A status of 400
 * or more rejects with an error naming the status, the way axios does there.
 */
export function httpRequestValue(config: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const value: Record<string, unknown> = { ...config };
  Object.defineProperty(value, 'execute', { value: () => execute(config), enumerable: false });
  return value;
}

async function execute(config: Readonly<Record<string, unknown>>): Promise<unknown> {
  if (typeof config['url'] !== 'string' || config['url'] === '')
    throw new Error('http_request: the request has no "url"');
  const url = new URL(config['url']);
  for (const { name, value } of fields(config['params'])) url.searchParams.append(name, String(value));
  const headers = new Headers();
  for (const { name, value } of fields(config['headers'])) headers.set(name, String(value));
  applyAuth(headers, config['auth']);
  const method = typeof config['method'] === 'string' ? config['method'].toUpperCase() : 'GET';
  const body = method === 'GET' || method === 'HEAD' ? undefined : bodyOf(config['body'], headers);
  const response = await fetch(url, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await response.text();
  const data = parseBody(text, response.headers.get('content-type'));
  if (response.status >= 400) {
    throw Object.assign(new Error(`Request failed with status code ${response.status}`), {
      status: response.status,
      response: { status: response.status, data },
    });
  }
  return data;
}

/** Headers, params and body fields come as a list of `{ name, value }` or as a plain object. */
function fields(value: unknown): Field[] {
  if (Array.isArray(value)) {
    return value.flatMap((item: unknown) =>
      isPlainObject(item) && typeof item['name'] === 'string' && item['name'] !== ''
        ? [{ name: item['name'], value: item['value'] ?? '' }]
        : [],
    );
  }
  if (isPlainObject(value)) return Object.entries(value).map(([name, item]) => ({ name, value: item ?? '' }));
  return [];
}

function applyAuth(headers: Headers, auth: unknown): void {
  if (!isPlainObject(auth)) return;
  switch (auth['type']) {
    case 'basic': {
      const pair = `${String(auth['username'] ?? '')}:${String(auth['password'] ?? '')}`;
      headers.set('authorization', `Basic ${Buffer.from(pair).toString('base64')}`);
      return;
    }
    case 'bearer':
      headers.set('authorization', `Bearer ${String(auth['token'] ?? '')}`);
      return;
    default:
      return;
  }
}

function bodyOf(body: unknown, headers: Headers): string | undefined {
  if (!isPlainObject(body)) return undefined;
  const mode = body['mode'] ?? body['type'];
  if (typeof body['contentType'] === 'string' && !headers.has('content-type'))
    headers.set('content-type', body['contentType']);
  if (mode === 'raw') return typeof body['raw'] === 'string' ? body['raw'] : undefined;
  const list = fields(body['fields']);
  if (list.length === 0) return undefined;
  if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  return JSON.stringify(Object.fromEntries(list.map(({ name, value }) => [name, value])));
}

function parseBody(text: string, contentType: string | null): unknown {
  if (contentType?.includes('json') || /^\s*[[{]/.test(text)) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}
