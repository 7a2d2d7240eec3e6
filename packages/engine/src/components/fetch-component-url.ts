import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { AppError, errorMessage } from '@tributary/contracts';
import { isPrivateAddress } from '@tributary/sandbox';

export interface FetchUrlOptions {
  /** Let URLs reach loopback and private addresses (an operator's own Git server, tests). */
  readonly allowPrivate: boolean;
  /** The most bytes read from the body; more refuses the URL (the component code limit). */
  readonly maxBytes?: number;
  /** For the whole fetch, redirects included. */
  readonly timeoutMs?: number;
  /**
   * Decides whether an address may be connected to when `allowPrivate` is false; default
   * `!isPrivateAddress(address)`. Tests use it to treat one loopback address as public.
   */
  readonly isAllowedAddress?: (address: string) => boolean;
}

const MAX_BYTES = 5 * 1024 * 1024;
const TIMEOUT_MS = 10_000;
const MAX_REDIRECTS = 5;

/**
 * What every refusal of a private address says next, so a user who meant their own server (a Git
 * server on the LAN, a webhook receiver on loopback) learns the operator's setting for it.
 */
export const PRIVATE_ADDRESS_HINT = 'a server started with TRIBUTARY_ALLOW_PRIVATE_URLS=true reaches those';

/** Raised by the guarded lookup (and the connected-address check) for a refused address. */
class RefusedAddressError extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    super(`${host} resolves to ${address}, a private or loopback address`);
  }
}

/**
 * Fetches component code from a URL: http(s) only, one size and time limit, at most 5 redirects,
 * and no private, loopback or link-local addresses unless the operator allows them (so a deploy
 * request cannot make the server probe its own network). The address check runs where the
 * connection is made: on the addresses DNS returned (a guarded `lookup`, every redirect hop
 * included) and again on the socket's remote address, so a name that resolves somewhere else the
 * second time, a redirect to an internal host or a numeric spelling of one cannot slip past a
 * check made on the URL text. The body is read as a stream and given up at `maxBytes`. Error
 * messages name the URL's host, the status or the rule, never the fetched content. GitHub `blob`
 * pages are read from their raw form.
 */
export async function fetchComponentUrl(url: string, options: FetchUrlOptions): Promise<string> {
  let current = parseUrl(rawGithub(url), url);
  const timeoutMs = options.timeoutMs ?? TIMEOUT_MS;
  const limit = options.maxBytes ?? MAX_BYTES;
  const allowed = options.allowPrivate
    ? () => true
    : (options.isAllowedAddress ?? ((address: string) => !isPrivateAddress(address)));
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    for (let hop = 0; ; hop++) {
      const response = await get(current, allowed, controller.signal);
      const status = response.statusCode ?? 0;
      if (status >= 300 && status < 400 && response.headers.location !== undefined) {
        response.resume();
        if (hop >= MAX_REDIRECTS) throw refused(`component_url redirected more than ${MAX_REDIRECTS} times`);
        current = parseUrl(new URL(response.headers.location, current).href, url);
        continue;
      }
      if (status < 200 || status >= 300) {
        response.resume();
        throw refused(`fetching component_url answered HTTP ${status}`);
      }
      return await readCapped(response, limit);
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    if (error instanceof RefusedAddressError) {
      throw refused(
        `component_url host "${error.host}" resolves to ${error.address}, a private or loopback address (${PRIVATE_ADDRESS_HINT})`,
      );
    }
    const reason = controller.signal.aborted
      ? `no answer within ${timeoutMs} ms`
      : ((error as NodeJS.ErrnoException).code ?? errorMessage(error));
    throw new AppError(
      'URL_REFUSED',
      `fetching component_url failed: ${reason}`,
      { field: 'component_url' },
      { cause: error },
    );
  } finally {
    clearTimeout(timer);
  }
}

function refused(message: string): AppError {
  return new AppError('URL_REFUSED', message, { field: 'component_url' });
}

function parseUrl(candidate: string, original: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(candidate);
  } catch {
    throw refused(`component_url "${original}" is not a valid URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw refused(`component_url must be http or https, got ${parsed.protocol}`);
  }
  return parsed;
}

/** One GET on a fresh connection whose addresses pass `allowed`; resolves with the response head. */
function get(url: URL, allowed: (address: string) => boolean, signal: AbortSignal): Promise<IncomingMessage> {
  // The URL parser has already turned numeric spellings (2130706433, 0x7f.1) into dotted form.
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // Node connects to an IP literal without calling `lookup`: check it here.
  if (isIP(host) && !allowed(host)) return Promise.reject(new RefusedAddressError(url.hostname, host));
  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    dnsLookup(hostname, { ...lookupOptions, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const blocked = addresses.find((entry) => !allowed(entry.address));
      if (blocked) return callback(new RefusedAddressError(hostname, blocked.address), '', 0);
      if (lookupOptions.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error('no address'), { code: 'ENOTFOUND' }), '', 0);
      callback(null, first.address, first.family);
    });
  };
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.get(
      url,
      {
        agent: false,
        lookup,
        signal,
        headers: { accept: 'text/javascript, application/javascript, text/plain, */*', 'accept-encoding': 'identity' },
      },
      (response) => {
        // The address actually connected to, whatever resolved it.
        const remote = response.socket.remoteAddress;
        if (remote !== undefined && !allowed(remote)) {
          response.destroy();
          reject(new RefusedAddressError(url.hostname, remote));
          return;
        }
        resolve(response);
      },
    );
    request.on('error', reject);
  });
}

/** The body as UTF-8, refused (and the connection dropped) once it passes `limit` bytes. */
async function readCapped(response: IncomingMessage, limit: number): Promise<string> {
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    response.destroy();
    throw refused(`component_url returned ${declared} bytes; the limit is ${limit}`);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > limit) {
      response.destroy();
      throw refused(`component_url returned more than ${limit} bytes; the limit is ${limit}`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function rawGithub(url: string): string {
  const match = /^https:\/\/github\.com\/([^/]+)\/([^/]+)\/blob\/(.+)$/.exec(url);
  return match ? `https://raw.githubusercontent.com/${match[1]}/${match[2]}/${match[3]}` : url;
}

/** The one classification of addresses, shared with the sandbox's egress policy. */
export { isPrivateAddress };
