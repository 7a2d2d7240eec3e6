import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isPrivateAddress } from '../components/fetch-component-url.js';

export interface EgressRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer | null;
  readonly timeoutMs: number;
  /** Let the request reach loopback and private addresses (the operator's `allowPrivateUrls`). */
  readonly allowPrivate: boolean;
}

export interface EgressResponse {
  readonly status: number;
  /** The first 1 KB of the body: enough for the delivery log, never the whole answer. */
  readonly bodyStart: string;
}

/** A refused address or a timeout: retrying may help for the second, never for the first. */
export class EgressError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

const BODY_KEPT = 1024;

/**
 * One request to a user-chosen URL under the same egress rule as `component_url` fetches: unless
 * the operator allows private URLs, no loopback, private or link-local address is connected to,
 * checked on the addresses DNS returned and on the socket actually connected, so a delivery
 * cannot make the server probe its own network. No redirects are followed (a redirect is an answer).
 */
export function egressRequest(request: EgressRequest): Promise<EgressResponse> {
  const allowed = (address: string): boolean => request.allowPrivate || !isPrivateAddress(address);
  const host = request.url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && !allowed(host))
    return Promise.reject(new EgressError(`${host} is a private or loopback address`, false));
  const lookup: LookupFunction = (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const blocked = addresses.find((entry) => !allowed(entry.address));
      if (blocked)
        return callback(new EgressError(`${hostname} resolves to ${blocked.address}, a private address`, false), '', 0);
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error('no address'), { code: 'ENOTFOUND' }), '', 0);
      callback(null, first.address, first.family);
    });
  };
  const client = request.url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const outgoing = client.request(
      request.url,
      {
        method: request.method,
        agent: false,
        lookup,
        headers: {
          ...request.headers,
          ...(request.body ? { 'content-length': String(request.body.length) } : {}),
        },
        signal: AbortSignal.timeout(request.timeoutMs),
      },
      (response) => {
        const remote = response.socket.remoteAddress;
        if (remote !== undefined && !allowed(remote)) {
          response.destroy();
          reject(new EgressError(`${request.url.hostname} connected to ${remote}, a private address`, false));
          return;
        }
        const chunks: Buffer[] = [];
        let kept = 0;
        response.on('data', (chunk: Buffer) => {
          if (kept < BODY_KEPT) chunks.push(chunk);
          kept += chunk.length;
        });
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            bodyStart: Buffer.concat(chunks).toString('utf8').slice(0, BODY_KEPT),
          }),
        );
        response.on('error', reject);
      },
    );
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      if (error instanceof EgressError) return reject(error);
      if (error.name === 'AbortError' || error.name === 'TimeoutError')
        return reject(new EgressError(`no answer within ${request.timeoutMs} ms`, true));
      const cause = (error.cause as NodeJS.ErrnoException | undefined) ?? error;
      reject(cause instanceof EgressError ? cause : new EgressError(error.code ?? error.message, true));
    });
    outgoing.end(request.body ?? undefined);
  });
}

/** HTTP statuses worth another attempt: the server's trouble or a request to slow down. */
export function retryableStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}
