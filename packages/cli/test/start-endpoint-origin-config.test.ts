/** TRIBUTARY_ENDPOINT_BASE_URL as `tributary start` reads it (docs/config.md, docs/server.md#endpoint-origin). */
import { describe, expect, it } from 'vitest';
import { loadServerConfig } from '../src/start/server-config.js';

describe('tributary start: endpoint origin', () => {
  it('is off unless set, and keeps the origin without a trailing slash', () => {
    expect(loadServerConfig({}, {}).endpointBaseUrl).toBeNull();
    expect(loadServerConfig({}, { TRIBUTARY_ENDPOINT_BASE_URL: '' }).endpointBaseUrl).toBeNull();
    const config = loadServerConfig(
      {},
      { TRIBUTARY_PUBLIC_URL: 'https://app.example.com', TRIBUTARY_ENDPOINT_BASE_URL: 'https://hooks.example.com/' },
    );
    expect(config.endpointBaseUrl).toBe('https://hooks.example.com');
  });

  it('refuses the public URL host, a path, and a URL that is not http(s)', () => {
    expect(() =>
      loadServerConfig(
        {},
        { TRIBUTARY_PUBLIC_URL: 'https://app.example.com', TRIBUTARY_ENDPOINT_BASE_URL: 'https://app.example.com' },
      ),
    ).toThrowError(/endpointBaseUrl: TRIBUTARY_ENDPOINT_BASE_URL must name another host than TRIBUTARY_PUBLIC_URL/);
    expect(() => loadServerConfig({}, { TRIBUTARY_ENDPOINT_BASE_URL: 'https://hooks.example.com/e' })).toThrowError(
      /endpointBaseUrl: TRIBUTARY_ENDPOINT_BASE_URL must be an origin only/,
    );
    expect(() => loadServerConfig({}, { TRIBUTARY_ENDPOINT_BASE_URL: 'ftp://hooks.example.com' })).toThrowError(
      /endpointBaseUrl/,
    );
  });
});
