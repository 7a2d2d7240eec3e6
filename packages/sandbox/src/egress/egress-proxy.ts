import { lookup as dnsLookup } from 'node:dns/promises';
import { chmodSync, chownSync } from 'node:fs';
import http, { type IncomingMessage } from 'node:http';
import net, { isIP } from 'node:net';
import type { Duplex } from 'node:stream';

export interface EgressProxyOptions {
  /** The unix socket to listen on (bind-mounted into workers). */
  readonly socketPath: string;
  /** Decides each address a tunnel would connect to (after DNS). */
  readonly isAllowed: (address: string) => boolean;
  /** The uid/gid workers run as, who must be able to connect; null keeps the host's. */
  readonly ownerUid: number | null;
  readonly ownerGid: number | null;
  /** Told about each refused connection (the operator's log). */
  readonly onRefused?: (target: string, reason: string) => void;
}

/** What a refused tunnel answers; workers' HTTP clients turn it into a failed request. */
const REFUSED_HEAD = 'HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n';
const CONNECT_TIMEOUT_MS = 15_000;
/** Open tunnels, all workers together: a component opening connections in a loop hits this, not the host's file limit. */
const MAX_TUNNELS = 1024;

/**
 * The only way out of a worker's network namespace: an HTTP `CONNECT` proxy on a unix socket,
 * on the host. It resolves the target's name itself, checks every address DNS returned and the
 * address it actually connected to, and refuses the tunnel when one is not allowed, so a name
 * that resolves to 127.0.0.1 or a redirect to 169.254.169.254 is refused wherever the client
 * found it. Plain (non-CONNECT) proxy requests are refused: clients tunnel http targets too.
 * Written here rather than taken from a proxy package because the check must sit between DNS
 * and connect, which the packages we looked at (proxy, http-proxy) do not expose.
 */
export class EgressProxy {
  private readonly server: http.Server;
  private readonly tunnels = new Set<Duplex>();

  readonly socketPath: string;

  private constructor(private readonly options: EgressProxyOptions) {
    this.socketPath = options.socketPath;
    this.server = http.createServer((request, response) => {
      response.writeHead(405, { 'content-type': 'text/plain', connection: 'close' });
      response.end('tributary egress proxy: use CONNECT\n');
    });
    this.server.on('connect', (request: IncomingMessage, client: Duplex, head: Buffer) => {
      this.tunnels.add(client);
      client.on('close', () => this.tunnels.delete(client));
      client.on('error', () => client.destroy());
      if (this.tunnels.size > MAX_TUNNELS) {
        this.refuse(client, request.url ?? '', `more than ${MAX_TUNNELS} connections are open`);
        return;
      }
      void this.tunnel(request.url ?? '', client, head);
    });
  }

  static async start(options: EgressProxyOptions): Promise<EgressProxy> {
    const proxy = new EgressProxy(options);
    await new Promise<void>((resolve, reject) => {
      proxy.server.once('error', reject);
      proxy.server.listen(options.socketPath, () => resolve());
    });
    if (options.ownerUid !== null)
      chownSync(options.socketPath, options.ownerUid, options.ownerGid ?? options.ownerUid);
    chmodSync(options.socketPath, 0o600);
    return proxy;
  }

  async close(): Promise<void> {
    for (const tunnel of this.tunnels) tunnel.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async tunnel(target: string, client: Duplex, head: Buffer): Promise<void> {
    const parsed = parseTarget(target);
    if (!parsed) return this.refuse(client, target, 'the CONNECT target is not host:port');
    let addresses: readonly string[];
    try {
      addresses = isIP(parsed.host) ? [parsed.host] : await this.resolve(parsed.host);
    } catch {
      return this.refuse(client, target, `${parsed.host} does not resolve`);
    }
    const blocked = addresses.find((address) => !this.options.isAllowed(address));
    if (blocked !== undefined || addresses.length === 0) {
      const where = blocked === parsed.host ? parsed.host : `${parsed.host} (${blocked ?? 'no address'})`;
      return this.refuse(
        client,
        target,
        `${where} is not a public address; loopback, private, link-local and metadata addresses need TRIBUTARY_EGRESS_ALLOW`,
      );
    }
    const upstream = net.connect({ host: addresses[0], port: parsed.port, timeout: CONNECT_TIMEOUT_MS });
    upstream.once('timeout', () => upstream.destroy(new Error('connect timeout')));
    let established = false;
    client.once('close', () => upstream.destroy());
    upstream.once('error', (error: NodeJS.ErrnoException) => {
      if (established || client.destroyed) client.destroy();
      else this.refuse(client, target, `the connection failed (${error.code ?? error.message})`);
    });
    upstream.once('connect', () => {
      upstream.setTimeout(0);
      // The address actually connected to, whatever resolved it.
      const remote = upstream.remoteAddress;
      if (remote === undefined || !this.options.isAllowed(remote)) {
        upstream.destroy();
        return this.refuse(client, target, `connected to ${remote ?? 'an unknown address'}, which the policy refuses`);
      }
      established = true;
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
      upstream.once('close', () => client.destroy());
    });
  }

  private refuse(client: Duplex, target: string, reason: string): void {
    this.options.onRefused?.(target, reason);
    const body = `tributary egress policy: ${reason}\n`;
    client.end(`${REFUSED_HEAD}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  }

  private async resolve(host: string): Promise<readonly string[]> {
    const entries = await dnsLookup(host, { all: true });
    return entries.map((entry) => entry.address);
  }
}

function parseTarget(target: string): { host: string; port: number } | null {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(target);
  if (!match) return null;
  const port = Number(match[3]);
  if (port < 1 || port > 65535) return null;
  return { host: match[1] ?? match[2] ?? '', port };
}
