/**
 * The delivery settings of `tributary start` (docs/config.md): off by default, email only with
 * its three settings together, S3 only with its credentials, every bad value named in one error.
 */
import { describe, expect, it } from 'vitest';
import { deliveryOptions, loadServerConfig } from '../src/start/server-config.js';

const load = (env: Record<string, string>) => loadServerConfig({}, env);

describe('delivery settings', () => {
  it('default to no email, no S3, 5 s attempts and 5 attempts', () => {
    expect(deliveryOptions(load({}))).toEqual({ timeoutMs: 5000, retry: { maxAttempts: 5 }, email: null, s3: null });
  });

  it('turn email and S3 on from TRIBUTARY_* variables', () => {
    const options = deliveryOptions(
      load({
        TRIBUTARY_SMTP_URL: 'smtp://mailer:pw@mail.example.com:587',
        TRIBUTARY_SMTP_FROM: 'tributary@example.com',
        TRIBUTARY_OWNER_EMAIL: 'owner@example.com',
        TRIBUTARY_S3_ENDPOINT: 'http://minio.internal:9000',
        TRIBUTARY_S3_ACCESS_KEY_ID: 'id',
        TRIBUTARY_S3_SECRET_ACCESS_KEY: 'secret',
        TRIBUTARY_S3_FORCE_PATH_STYLE: 'false',
        TRIBUTARY_DELIVERY_TIMEOUT_MS: '2000',
        TRIBUTARY_DELIVERY_MAX_ATTEMPTS: '3',
      }),
    );
    expect(options).toEqual({
      timeoutMs: 2000,
      retry: { maxAttempts: 3 },
      email: {
        smtpUrl: 'smtp://mailer:pw@mail.example.com:587',
        from: 'tributary@example.com',
        ownerEmail: 'owner@example.com',
      },
      s3: {
        endpoint: 'http://minio.internal:9000',
        region: 'us-east-1',
        accessKeyId: 'id',
        secretAccessKey: 'secret',
        forcePathStyle: false,
      },
    });
  });

  it('refuse half an email setup, naming what is missing', () => {
    expect(() => load({ TRIBUTARY_SMTP_URL: 'smtp://mail.example.com' })).toThrow(
      /smtpFrom: email needs TRIBUTARY_SMTP_URL, TRIBUTARY_SMTP_FROM and TRIBUTARY_OWNER_EMAIL together; ownerEmail/,
    );
  });

  it('refuse bad values: not an SMTP URL, not an address, an endpoint without credentials', () => {
    let message = '';
    try {
      load({
        TRIBUTARY_SMTP_URL: 'http://mail.example.com',
        TRIBUTARY_SMTP_FROM: 'not-an-address',
        TRIBUTARY_OWNER_EMAIL: 'owner@example.com',
        TRIBUTARY_S3_ENDPOINT: 'http://minio.internal:9000',
      });
    } catch (error) {
      message = (error as Error).message;
      expect((error as { code?: string }).code).toBe('USAGE_ERROR');
    }
    expect(message).toContain('smtpUrl: an smtp:// or smtps:// URL');
    expect(message).toContain('smtpFrom:');
  });

  it('refuse an S3 endpoint without credentials', () => {
    expect(() => load({ TRIBUTARY_S3_ENDPOINT: 'http://minio.internal:9000' })).toThrow(
      /s3AccessKeyId: TRIBUTARY_S3_ENDPOINT needs TRIBUTARY_S3_ACCESS_KEY_ID/,
    );
  });
});
