/**
 * component_url fetching against real HTTP servers on loopback: every spelling of a private
 * address is refused, the check follows DNS and redirects, the body is capped while streaming,
 * and no error message carries fetched content.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppError } from '@tributary/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchComponentUrl, isPrivateAddress } from '../src/components/fetch-component-url.js';

const SECRET = 'INTERNAL-SECRET-7f3a';

async function listen(
  host: string,
  handler: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<{ server: Server; base: string; hits: string[] }> {
  const hits: string[] = [];
  const server = createServer((request, response) => {
    hits.push(request.url ?? '');
    handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { server, base: `http://${host}:${(server.address() as AddressInfo).port}`, hits };
}

/** Public only in these tests: 127.0.0.1 plays an Internet host, everything else keeps its class. */
const pretendPublic = (address: string): boolean => address === '127.0.0.1' || !isPrivateAddress(address);

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AppError);
  const appError = error as AppError;
  expect(appError.code).toBe('URL_REFUSED');
  expect(appError.details).toMatchObject({ field: 'component_url' });
  expect(appError.message).not.toContain(SECRET);
  return appError;
}

let internal: Awaited<ReturnType<typeof listen>>;
let outside: Awaited<ReturnType<typeof listen>>;

beforeAll(async () => {
  // An "internal" service on 127.0.0.2 that must never be reached when private URLs are refused.
  internal = await listen('127.0.0.2', (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' }).end(`secret=${SECRET}`);
  });
  const internalPort = (internal.server.address() as AddressInfo).port;
  outside = await listen('127.0.0.1', (request, response) => {
    switch (request.url) {
      case '/code.mjs':
        response.writeHead(200, { 'content-type': 'text/javascript' }).end('export default {}');
        return;
      case '/to-internal':
        response.writeHead(302, { location: `http://127.0.0.2:${internalPort}/` }).end();
        return;
      case '/to-mapped':
        response.writeHead(301, { location: `http://[::ffff:127.0.0.2]:${internalPort}/` }).end();
        return;
      case '/to-code':
        response.writeHead(302, { location: '/code.mjs' }).end();
        return;
      case '/loop':
        response.writeHead(302, { location: '/loop' }).end();
        return;
      case '/error':
        response.writeHead(500, { 'content-type': 'text/plain' }).end(SECRET);
        return;
      case '/huge-chunked': {
        // No content-length: the cap must hold while streaming.
        response.writeHead(200, { 'content-type': 'text/javascript' });
        const chunk = `// ${SECRET} ${'x'.repeat(64 * 1024)}\n`;
        let sent = 0;
        const pump = (): void => {
          while (sent < 100 && response.write(chunk)) sent++;
          if (sent >= 100) response.end();
          else response.once('drain', pump);
        };
        response.on('error', () => undefined);
        pump();
        return;
      }
      default:
        response.writeHead(404).end(SECRET);
    }
  });
});

afterAll(async () => {
  await new Promise((resolve) => internal?.server.close(resolve));
  await new Promise((resolve) => outside?.server.close(resolve));
});

describe('isPrivateAddress', () => {
  it('classes every private, loopback, link-local, unspecified and embedded-private form as private', () => {
    for (const address of [
      '127.0.0.1',
      '127.1.2.3',
      '0.0.0.0',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.0.1',
      '169.254.169.254',
      '100.64.0.1',
      '224.0.0.1',
      '255.255.255.255',
      '::',
      '::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:a9fe:a9fe',
      '64:ff9b::7f00:1',
      '64:ff9b::a00:1',
      '64:ff9b:1::1',
      '2002:7f00:1::1',
      'fc00::1',
      'fd12:3456::1',
      'fe80::1',
      'fe80::1%eth0',
      'ff02::1',
      '2001:db8::1',
      'not an address',
    ]) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
  });

  it('lets public unicast through, also when embedded in IPv6', () => {
    for (const address of [
      '8.8.8.8',
      '1.1.1.1',
      '140.82.112.3',
      '2606:4700::1111',
      '::ffff:8.8.8.8',
      '64:ff9b::808:808',
    ]) {
      expect(isPrivateAddress(address), address).toBe(false);
    }
  });
});

describe('fetchComponentUrl refuses private addresses', () => {
  it('refuses every spelling of a loopback, private or metadata address in the URL', async () => {
    const port = (internal.server.address() as AddressInfo).port;
    for (const url of [
      `http://[::ffff:127.0.0.2]:${port}/`,
      `http://[::ffff:7f00:2]:${port}/`,
      `http://2130706434:${port}/`, // 127.0.0.2 as one number
      `http://0x7f.2:${port}/`,
      `http://0177.0.0.2:${port}/`,
      `http://[::]:${port}/`,
      `http://0.0.0.0:${port}/`,
      `http://[fd00::1]:${port}/`,
      `http://[fe80::1]:${port}/`,
      `http://[64:ff9b::7f00:2]:${port}/`,
      'http://169.254.169.254/latest/meta-data/',
      `http://localhost:${port}/`,
    ]) {
      const error = await refusal(fetchComponentUrl(url, { allowPrivate: false, timeoutMs: 3000 }));
      expect(error.message, url).toMatch(/private or loopback address/);
      // The refusal names the setting that allows it, for a user who meant their own server.
      expect(error.message, url).toContain('TRIBUTARY_ALLOW_PRIVATE_URLS=true');
    }
    expect(internal.hits).toEqual([]);
  });

  it('checks every redirect hop: a public URL redirecting to an internal host is refused', async () => {
    for (const path of ['/to-internal', '/to-mapped']) {
      const error = await refusal(
        fetchComponentUrl(`${outside.base}${path}`, { allowPrivate: false, isAllowedAddress: pretendPublic }),
      );
      expect(error.message, path).toMatch(/private or loopback address/);
    }
    expect(internal.hits).toEqual([]);
  });

  it('follows redirects between allowed hosts, and all of them when the operator allows private URLs', async () => {
    expect(
      await fetchComponentUrl(`${outside.base}/to-code`, { allowPrivate: false, isAllowedAddress: pretendPublic }),
    ).toBe('export default {}');
    expect(await fetchComponentUrl(`${outside.base}/to-internal`, { allowPrivate: true })).toBe(`secret=${SECRET}`);
    const loop = await refusal(fetchComponentUrl(`${outside.base}/loop`, { allowPrivate: true }));
    expect(loop.message).toMatch(/redirected more than 5 times/);
  });
});

describe('fetchComponentUrl limits', () => {
  it('gives up on a streamed body past the size limit without echoing it', async () => {
    const error = await refusal(
      fetchComponentUrl(`${outside.base}/huge-chunked`, { allowPrivate: true, maxBytes: 1024 * 1024 }),
    );
    expect(error.message).toMatch(/limit is 1048576/);
  });

  it('reports an error status by its number only', async () => {
    const error = await refusal(fetchComponentUrl(`${outside.base}/error`, { allowPrivate: true }));
    expect(error.message).toBe('fetching component_url answered HTTP 500');
  });
});
