import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { AppError } from '@tributary/contracts';

export interface FetchUrlOptions {
  /** Let URLs reach loopback and private addresses (an operator's own Git server, tests). */
  readonly allowPrivate: boolean;
  readonly maxBytes?: number;
  readonly timeoutMs?: number;
}

const MAX_BYTES = 1024 * 1024;
const TIMEOUT_MS = 10_000;

/**
 * Fetches component code from a URL: http(s) only, one size and time limit, and no private,
 * loopback or link-local addresses unless the operator allows them (so a deploy request cannot
 * make the server probe its own network). GitHub `blob` pages are read from their raw form.
 */
export async function fetchComponentUrl(url: string, options: FetchUrlOptions): Promise<string> {
  let parsed: URL;
  try {
    parsed = new URL(rawGithub(url));
  } catch {
    throw new AppError('URL_REFUSED', `component_url "${url}" is not a valid URL`, { field: 'component_url' });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new AppError('URL_REFUSED', `component_url must be http or https, got ${parsed.protocol}`, {
      field: 'component_url',
    });
  }
  if (!options.allowPrivate) await refusePrivate(parsed.hostname);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs ?? TIMEOUT_MS);
  try {
    const response = await fetch(parsed, { signal: controller.signal, redirect: 'error' });
    if (!response.ok) {
      throw new AppError('URL_REFUSED', `fetching component_url answered HTTP ${response.status}`, {
        field: 'component_url',
      });
    }
    const limit = options.maxBytes ?? MAX_BYTES;
    const body = Buffer.from(await response.arrayBuffer());
    if (body.length > limit) {
      throw new AppError('URL_REFUSED', `component_url returned ${body.length} bytes; the limit is ${limit}`, {
        field: 'component_url',
      });
    }
    return body.toString('utf8');
  } catch (error) {
    if (error instanceof AppError) throw error;
    const reason = controller.signal.aborted
      ? `no answer within ${options.timeoutMs ?? TIMEOUT_MS} ms`
      : error instanceof Error
        ? error.message
        : String(error);
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

function rawGithub(url: string): string {
  const match = /^https:\/\/github\.com\/([^/]+)\/([^/]+)\/blob\/(.+)$/.exec(url);
  return match ? `https://raw.githubusercontent.com/${match[1]}/${match[2]}/${match[3]}` : url;
}

async function refusePrivate(hostname: string): Promise<void> {
  const host = hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host)
    ? [host]
    : (await lookup(host, { all: true }).catch(() => [])).map((entry) => entry.address);
  if (addresses.length === 0)
    throw new AppError('URL_REFUSED', `component_url host "${hostname}" does not resolve`, { field: 'component_url' });
  const blocked = addresses.find(isPrivateAddress);
  if (blocked) {
    throw new AppError(
      'URL_REFUSED',
      `component_url host "${hostname}" resolves to ${blocked}, a private or loopback address`,
      {
        field: 'component_url',
      },
    );
  }
}

/** Loopback, private (RFC 1918, ULA), link-local, CGNAT, unspecified and IPv4-mapped forms of them. */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return isPrivateAddress(mapped[1]);
  if (isIP(address) === 4) {
    const [a = 0, b = 0] = address.split('.').map(Number);
    return (
      a === 0 ||
      a === 10 ||
      a === 127 ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 100 && b >= 64 && b <= 127) ||
      a >= 224
    );
  }
  const lower = address.toLowerCase();
  return (
    lower === '::' ||
    lower === '::1' ||
    lower.startsWith('fc') ||
    lower.startsWith('fd') ||
    lower.startsWith('fe80') ||
    lower.startsWith('ff')
  );
}
