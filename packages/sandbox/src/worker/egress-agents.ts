import type { Agent } from 'node:http';
import { HttpsProxyAgent, type HttpsProxyAgentOptions } from 'https-proxy-agent';
import { ProxyAgent, type Dispatcher } from 'undici';

// Bundled apart from the harness (dist/worker-bundle/egress-agents.cjs) and loaded on a worker's
// first request: undici alone takes longer to load than the rest of the harness, and most workers
// never reach the network.

// The proxy URL only names the protocol spoken on the socket; the host part is never resolved.
const PROXY_URL = 'http://egress-proxy.invalid';

/** undici's dispatcher for `fetch`, tunnelling every request through the proxy's socket. */
export function fetchDispatcher(socketPath: string): Dispatcher {
  return new ProxyAgent({ uri: PROXY_URL, proxyTls: { socketPath } });
}

/**
 * The agent for the `http`/`https` modules: CONNECT for http targets too, so the proxy checks the
 * address of every tunnel the same way. `path` reaches net.connect, which then dials the unix
 * socket instead of the URL's host.
 */
export function proxyAgent(socketPath: string): Agent {
  const connectOptions = { path: socketPath, keepAlive: true } as HttpsProxyAgentOptions<string>;
  return new HttpsProxyAgent(PROXY_URL, connectOptions) as unknown as Agent;
}
