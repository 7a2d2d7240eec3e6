import type { DeliveryKind } from './delivery-types.js';

export const REDACTED_VALUE = '[REDACTED]';

/** Header names whose values are credentials. */
const SECRET_HEADER = /^(authorization|proxy-authorization|cookie|x-api-key)$|token|secret|key|password/i;

/**
 * A delivery's configuration as the API and the run report may show it: credentials replaced
 * (an http `auth.password`, credential headers), a webhook's signing secret and body left out.
 */
export function redactConfig(kind: DeliveryKind, config: Record<string, unknown>): Record<string, unknown> {
  switch (kind) {
    case 'http': {
      const shown: Record<string, unknown> = { ...config };
      const auth = config['auth'];
      if (auth && typeof auth === 'object') shown['auth'] = { ...auth, password: REDACTED_VALUE };
      const headers = config['headers'];
      if (headers && typeof headers === 'object')
        shown['headers'] = Object.fromEntries(
          Object.entries(headers).map(([name, value]) => [name, SECRET_HEADER.test(name) ? REDACTED_VALUE : value]),
        );
      return shown;
    }
    case 'webhook':
      return { url: config['url'], event_id: config['event_id'] ?? null };
    case 'email':
    case 's3':
    case 'emit':
    case 'sse':
      return config;
    default: {
      const never: never = kind;
      return never;
    }
  }
}
