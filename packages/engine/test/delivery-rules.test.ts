/**
 * The rules of deliveries that need no server: which destinations are refused before anything is
 * stored, what a delivery shows of its configuration, the backoff, the S3 object key and the
 * webhook signature; and the egress rule of http deliveries against a real receiver on loopback.
 */
import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppError } from '@tributary/contracts';
import { describe, expect, it } from 'vitest';
import { checkDestinations, type DestinationSettings } from '../src/delivery/check-destination.js';
import { s3ObjectKey } from '../src/delivery/deliverers/s3-deliverer.js';
import { egressRequest, EgressError } from '../src/delivery/egress-request.js';
import { redactConfig } from '../src/delivery/redact-config.js';
import { DEFAULT_DELIVERY_RETRY, deliveryBackoffMs } from '../src/delivery/retry-policy.js';
import { signWebhook } from '../src/delivery/webhook-signature.js';

const nothing: DestinationSettings = { allowPrivateUrls: false, emailConfigured: false, s3Configured: false };
const everything: DestinationSettings = { allowPrivateUrls: true, emailConfigured: true, s3Configured: true };

function refusal(run: () => void): AppError {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe('checkDestinations', () => {
  it('accepts every kind when the operator configured it', () => {
    expect(() =>
      checkDestinations(
        [
          { kind: 'http', config: { method: 'POST', url: 'http://127.0.0.1:9/x' } },
          { kind: 'email', config: {} },
          { kind: 's3', config: { bucket: 'my-bucket.logs', prefix: 'p/', payload: 1 } },
          { kind: 'emit', config: { raw_event: {} } },
          { kind: 'sse', config: { channel: 'orders:eu-1', payload: 1 } },
        ],
        everything,
      ),
    ).not.toThrow();
  });

  it.each([
    [
      'an http URL with another scheme',
      { kind: 'http', config: { method: 'GET', url: 'file:///etc/passwd' } },
      'sends.0.url',
    ],
    ['localhost', { kind: 'http', config: { method: 'GET', url: 'http://localhost:8080/' } }, 'sends.0.url'],
    [
      'a link-local address',
      { kind: 'http', config: { method: 'GET', url: 'http://169.254.169.254/latest' } },
      'sends.0.url',
    ],
    ['an IPv6 loopback', { kind: 'http', config: { method: 'GET', url: 'http://[::1]/' } }, 'sends.0.url'],
    ['email without SMTP', { kind: 'email', config: {} }, 'sends.0.kind'],
    ['s3 without an endpoint', { kind: 's3', config: { bucket: 'b-1', prefix: 'p', payload: 1 } }, 'sends.0.kind'],
    ['an SSE channel with a slash', { kind: 'sse', config: { channel: 'a/b', payload: 1 } }, 'sends.0.channel'],
  ] as const)('refuses %s with DESTINATION_INVALID naming the field', (_what, send, field) => {
    const error = refusal(() => checkDestinations([send], nothing));
    expect(error.code).toBe('DESTINATION_INVALID');
    expect(error.details.field).toBe(field);
  });

  it.each(['ab', 'UPPER', 'under_score', 'a..b', '192.168.1.1', '-start', `${'a'.repeat(64)}`])(
    'refuses the bucket name %s',
    (bucket) => {
      const error = refusal(() =>
        checkDestinations([{ kind: 's3', config: { bucket, prefix: 'p', payload: 1 } }], everything),
      );
      expect(error).toMatchObject({ code: 'DESTINATION_INVALID', details: { field: 'sends.0.bucket' } });
    },
  );

  it('names the index of the bad send', () => {
    const error = refusal(() =>
      checkDestinations(
        [
          { kind: 'emit', config: { raw_event: {} } },
          { kind: 'http', config: { method: 'GET', url: 'nope' } },
        ],
        everything,
      ),
    );
    expect(error.message).toMatch(/^sends\[1\] \(\$\.send\.http\): "nope" is not a valid URL$/);
  });
});

describe('redactConfig', () => {
  it('hides basic auth passwords and credential headers, and keeps the rest', () => {
    expect(
      redactConfig('http', {
        method: 'POST',
        url: 'https://example.com',
        auth: { username: 'u', password: 'p' },
        headers: { Authorization: 'Bearer x', 'X-Api-Key': 'k', 'X-Session-Token': 't', Accept: 'text/plain' },
      }),
    ).toEqual({
      method: 'POST',
      url: 'https://example.com',
      auth: { username: 'u', password: '[REDACTED]' },
      headers: {
        Authorization: '[REDACTED]',
        'X-Api-Key': '[REDACTED]',
        'X-Session-Token': '[REDACTED]',
        Accept: 'text/plain',
      },
    });
  });

  it('shows a webhook delivery without its secret or body', () => {
    expect(redactConfig('webhook', { url: 'https://h', secret: 's', body: '{}', event_id: 'e1' })).toEqual({
      url: 'https://h',
      event_id: 'e1',
    });
  });
});

describe('the retry policy', () => {
  it('waits 2 s, 4 s, 8 s, 16 s by default, and never more than the cap', () => {
    expect([1, 2, 3, 4].map((failures) => deliveryBackoffMs(DEFAULT_DELIVERY_RETRY, failures))).toEqual([
      2000, 4000, 8000, 16000,
    ]);
    expect(deliveryBackoffMs(DEFAULT_DELIVERY_RETRY, 30)).toBe(300_000);
    expect(DEFAULT_DELIVERY_RETRY.maxAttempts).toBe(5);
  });
});

describe('s3ObjectKey', () => {
  it("follows upstream's layout, in UTC", () => {
    expect(s3ObjectKey('logs/', Date.UTC(2026, 0, 2, 3, 4, 5), 'dlv_x')).toBe(
      'logs/2026/01/02/03/2026-01-02-03-04-05-dlv_x.gz',
    );
  });
});

describe('signWebhook', () => {
  it('is t=<seconds>,v1=<HMAC-SHA256 of "<t>.<body>">', () => {
    const mac = createHmac('sha256', 'sec').update('1700000000.{"a":1}').digest('hex');
    expect(signWebhook('sec', 1_700_000_000, '{"a":1}')).toBe(`t=1700000000,v1=${mac}`);
  });
});

describe('egressRequest', () => {
  it('refuses a loopback receiver unless private URLs are allowed, and reaches it when they are', async () => {
    const hits: string[] = [];
    const server = createServer((request, response) => {
      hits.push(request.method ?? '');
      response.writeHead(204).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = new URL(`http://localhost:${(server.address() as AddressInfo).port}/`);
    try {
      const request = { method: 'PUT', url, headers: {}, body: Buffer.from('x'), timeoutMs: 2000 };
      const refused = await egressRequest({ ...request, allowPrivate: false }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(EgressError);
      expect((refused as EgressError).retryable).toBe(false);
      expect(hits).toEqual([]);
      expect(await egressRequest({ ...request, allowPrivate: true })).toEqual({ status: 204, bodyStart: '' });
      expect(hits).toEqual(['PUT']);
    } finally {
      server.close();
    }
  });

  it('gives up after its timeout, as a retryable failure', async () => {
    const server = createServer(() => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const error = await egressRequest({
        method: 'GET',
        url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`),
        headers: {},
        body: null,
        timeoutMs: 200,
        allowPrivate: true,
      }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(EgressError);
      expect((error as EgressError).message).toBe('no answer within 200 ms');
      expect((error as EgressError).retryable).toBe(true);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
