import http from 'node:http';
import https from 'node:https';
import { createRequire } from 'node:module';
import { EGRESS_SOCKET_FLAG } from '../protocol/egress-flag.js';
import type * as EgressAgentsModule from './egress-agents.js';

type EgressAgents = typeof EgressAgentsModule;

/** Where undici (Node's own `fetch` and any npm copy) looks up its global dispatcher. */
const GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1');

/**
 * Points the worker's HTTP clients at the host's egress proxy: `fetch` (undici's global
 * dispatcher) and the `http`/`https` modules' default agents, which axios, got and most SDKs
 * use. This is convenience, not the enforcement: the worker's network namespace has no route
 * out, so a client that ignores these settings (a raw `net.connect`) reaches nothing at all.
 *
 * The proxy clients are loaded on the first request, not at start: they cost more to load than
 * the rest of the harness (docs/decisions/0011-egress-policy.md), and most workers never use them.
 */
export function useEgressProxy(socketPath: string): void {
  const slot = globalThis as unknown as Record<symbol, unknown>;
  let agents: EgressAgents | undefined;
  let loading = false;
  let replaced = false;
  const load = (): EgressAgents => {
    if (agents) return agents;
    loading = true;
    try {
      // Beside worker.mjs in dist/worker-bundle (scripts/bundle-worker.mjs builds both).
      agents = createRequire(import.meta.url)('./egress-agents.cjs') as EgressAgents;
    } finally {
      loading = false;
    }
    // undici installs a default dispatcher of its own while it loads; ours replaces it, unless the
    // component's code set one (which then reaches nothing outside the namespace, as documented).
    if (!replaced) slot[GLOBAL_DISPATCHER] = agents.fetchDispatcher(socketPath);
    return agents;
  };
  // undici reads this on its first request (Node's fetch loads undici lazily too): the getter
  // loads the proxy clients then. While they load, undici's own module asks too, and is told none
  // is set yet, so it defines its default, which `load` then replaces.
  Object.defineProperty(globalThis, GLOBAL_DISPATCHER, {
    configurable: true,
    enumerable: false,
    get(): unknown {
      if (loading) return undefined;
      load();
      return slot[GLOBAL_DISPATCHER];
    },
    set(value: unknown) {
      replaced = true;
      Object.defineProperty(globalThis, GLOBAL_DISPATCHER, { value, writable: true, configurable: true });
    },
  });
  let proxy: http.Agent | undefined;
  const real = (): http.Agent => (proxy ??= load().proxyAgent(socketPath));
  http.globalAgent = lazyAgent(http.Agent, false, real);
  https.globalAgent = lazyAgent(https.Agent, true, real) as https.Agent;
}

/**
 * An agent of Node's own class (so `http.request` accepts its protocol and port) that hands each
 * request to the proxy agent, loading it on the first one. `secureEndpoint` tells the proxy agent
 * whether to speak TLS through the tunnel, which it would otherwise guess from the call stack.
 */
function lazyAgent(
  base: typeof http.Agent | typeof https.Agent,
  secureEndpoint: boolean,
  real: () => http.Agent,
): http.Agent {
  const agent = new base({ keepAlive: true });
  const hand = agent as unknown as { addRequest: (request: http.ClientRequest, options: object) => void };
  hand.addRequest = (request, options) => {
    (real() as unknown as typeof hand).addRequest(request, { ...options, secureEndpoint });
  };
  return agent;
}

/** The socket path the host passed on the command line, or null when egress is not proxied. */
export function egressSocketFromArgv(argv: readonly string[]): string | null {
  const flag = argv.find((arg) => arg.startsWith(EGRESS_SOCKET_FLAG));
  return flag ? flag.slice(EGRESS_SOCKET_FLAG.length) : null;
}
