// The scenarios of tools/hardening-probe.mjs (issue 14), each against a running server over HTTP,
// or against a `tributary start` the probe owns (shutdown, kill -9). packages/cli/test runs them at a
// small seed; docs/hardening.md has the figures of a full run and their targets.
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { URL } from 'node:url';
import { KEY, Node } from '../bench/cluster-lib.mjs';
import { runReliability } from '../bench/reliability-lib.mjs';
import { freePort, REPO_DIR } from '../bench/server-lib.mjs';

// Node 20's fetch (undici).
const { fetch } = globalThis;

const FIXTURES = path.join(REPO_DIR, 'fixtures/components/server');
const fixture = (name) => readFileSync(path.join(FIXTURES, name), 'utf8');

/**
 * A `tributary start` of the probe's own (the built CLI) on a temporary SQLite data directory, with
 * `env` added: `{ node, server, stop }`. `stop` ends it (if still running) and removes the folder.
 */
export async function startOwnServer(env = {}) {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'tributary-hardening-probe-'));
  // Workers run as another user when the host is root: they must be able to enter the cache.
  chmodSync(scratch, 0o755);
  const node = new Node('probe', await freePort(), path.join(scratch, 'data'), {
    TRIBUTARY_CACHE_DIR: path.join(scratch, 'cache'),
    ...env,
  });
  try {
    await node.start();
  } catch (error) {
    rmSync(scratch, { recursive: true, force: true });
    throw error;
  }
  return {
    node,
    server: client(node.base, KEY),
    async stop() {
      await node.stop();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

/** A client of one server: `{ base, key }`. */
export function client(base, key) {
  const api = async (method, route, body) => {
    const response = await fetch(new URL(route, base), {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    let parsed = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON (the metrics text): kept as text
    }
    return { status: response.status, body: parsed };
  };
  const deploy = async (file, name, props) => {
    const deployed = await api('POST', '/v1/sources', {
      component_code: fixture(file),
      name,
      ...(props ? { configured_props: props } : {}),
    });
    if (deployed.status !== 200) throw new Error(`deploying ${file} failed: ${JSON.stringify(deployed.body)}`);
    return deployed.body.data;
  };
  /** Posts a JSON body to a source's endpoint (its URL's path on this server); resolves the status. */
  const send = async (source, body) => {
    const route = new URL(source.endpoint_url).pathname;
    const response = await fetch(new URL(route, base), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    await response.arrayBuffer();
    return response.status;
  };
  const events = async (sourceId) => (await api('GET', `/v1/sources/${sourceId}/event_summaries?limit=100`)).body.data;
  const logs = async (sourceId) =>
    (await api('GET', `/v1/sources/${sourceId}/logs?limit=100`)).body.data.map((entry) => entry.message).reverse();
  const remove = (sourceId) => api('DELETE', `/v1/sources/${sourceId}`);
  return { base, api, deploy, send, events, logs, remove };
}

function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const END_MARKER = /^--- run (finished|failed)/;

/** Waits for the `runs`th run end marker in a source's logs; resolves the logs, newest last. */
async function runEnd(server, sourceId, timeoutMs, runs = 1) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const messages = await server.logs(sourceId);
    if (messages.filter((message) => END_MARKER.test(message)).length >= runs) return messages;
    if (Date.now() > deadline) throw new Error(`no run of ${sourceId} ended within ${timeoutMs} ms`);
    await delay(100);
  }
}

/**
 * Starvation: `hangs` sources whose runs hang for `hangMs` take their slots, while a canary source
 * gets an event every `everyMs`, `canaries` in all. Canary latency: from sending the request to
 * the event being in the canary's bin. Target: p99 <= 1 s.
 */
export async function probeStarvation(server, options = {}) {
  const hangs = options.hangs ?? 4;
  const hangMs = options.hangMs ?? 60_000;
  const canaries = options.canaries ?? 40;
  const everyMs = options.everyMs ?? 250;
  const hanging = [];
  for (let index = 0; index < hangs; index += 1)
    hanging.push(await server.deploy('hang-for.mjs', `probe hangs ${index} ${Date.now()}`));
  const canary = await server.deploy('hang-for.mjs', `probe canary ${Date.now()}`);
  try {
    for (const source of hanging) await server.send(source, { ms: hangMs });
    // The hanging runs start and take their slots: the canaries come during the hangs.
    await delay(1000);
    const sentAt = new Map();
    const seenAt = new Map();
    const started = Date.now();
    for (let index = 0; index < canaries; index += 1) {
      const at = Date.now();
      sentAt.set(at, performance.now());
      const status = await server.send(canary, { sentAt: at });
      if (status !== 200) throw new Error(`the canary's endpoint answered ${status}`);
      const next = started + (index + 1) * everyMs;
      while (Date.now() < next) {
        await collect();
        await delay(10);
      }
    }
    const deadline = Date.now() + hangMs;
    while (seenAt.size < sentAt.size && Date.now() < deadline) {
      await collect();
      await delay(10);
    }
    const latencies = [...seenAt.entries()].map(([at, seen]) => seen - (sentAt.get(at) ?? seen)).sort((a, b) => a - b);
    return {
      hangs,
      hangMs,
      canaries,
      delivered: seenAt.size,
      p50Ms: Math.round(percentile(latencies, 50) ?? Number.NaN),
      p99Ms: Math.round(percentile(latencies, 99) ?? Number.NaN),
      maxMs: Math.round(latencies.at(-1) ?? Number.NaN),
      // In the order they were sent: the first canary may pay for starting a worker.
      inOrderMs: [...sentAt.entries()].map(([at, sent]) => Math.round((seenAt.get(at) ?? Number.NaN) - sent)),
    };

    async function collect() {
      for (const event of await server.events(canary.id)) {
        const at = event.event?.sentAt;
        if (typeof at === 'number' && !seenAt.has(at)) seenAt.set(at, performance.now());
      }
    }
  } finally {
    // A hanging source's delete waits for its run (the source's lane) to end.
    await Promise.all([...hanging, canary].map((source) => server.remove(source.id)));
  }
}

/**
 * Timer backlog: a 15 s timer whose run takes `runMs` (25 s), watched for `seconds`. Ticks due
 * while one is queued or running merge, so the source's queue never holds more than one entry.
 */
export async function probeTimerBacklog(server, options = {}) {
  const seconds = options.seconds ?? 65;
  const runMs = options.runMs ?? 25_000;
  const source = await server.deploy('slow-timer.mjs', `probe slow timer ${Date.now()}`, { runMs });
  try {
    let maxQueued = 0;
    const until = Date.now() + seconds * 1000;
    while (Date.now() < until) {
      const status = await server.api('GET', '/v1/status');
      const depth = status.body.data.queue.find((entry) => entry.kind === 'source')?.depth ?? 0;
      maxQueued = Math.max(maxQueued, depth);
      await delay(500);
    }
    const runs = (await server.events(source.id)).length;
    return { seconds, intervalSeconds: 15, runMs, ticksDue: Math.floor(seconds / 15), runs, maxQueued };
  } finally {
    await server.remove(source.id);
  }
}

/** Log flood: about 5 MB of short lines, then past the 6 MB limit; how each run ended. */
export async function probeLogFlood(server, options = {}) {
  const timeoutMs = options.timeoutMs ?? 120_000;
  const outcome = async (lines) => {
    const source = await server.deploy('log-flood.mjs', `probe log flood ${lines} ${Date.now()}`);
    try {
      const started = performance.now();
      await server.send(source, { lines });
      const messages = await runEnd(server, source.id, timeoutMs);
      const end = messages.find((message) => /^--- run (finished|failed)/.test(message)) ?? '';
      const code = /: ([A-Z_]+)$/.exec(end)?.[1] ?? 'OK';
      const lastLine = messages.filter((message) => message.startsWith('line ')).at(-1) ?? null;
      return { lines, code, lastLine, ms: Math.round(performance.now() - started) };
    } finally {
      await server.remove(source.id);
    }
  };
  return { underLimit: await outcome(262_144), overLimit: await outcome(400_000) };
}

/**
 * 100,000 emits in one run (past about 46,000 of them the run reaches the 6 MB payload limit and
 * ends as PAYLOAD_TOO_LARGE, keeping what it emitted before): the server's event-loop delay while it
 * takes them (prom-client's
 * `tributary_nodejs_eventloop_lag_max_seconds`, read before and after: each scrape starts a fresh
 * measurement), and the worst `/healthz` latency seen meanwhile, every 20 ms.
 */
export async function probeEmitFlood(server, options = {}) {
  const emits = options.emits ?? 100_000;
  const source = await server.deploy('emit-flood.mjs', `probe emit flood ${Date.now()}`);
  const lagMax = async () => {
    const metrics = await server.api('GET', '/metrics');
    const match = /^tributary_nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(String(metrics.body));
    return match ? Number(match[1]) * 1000 : null;
  };
  try {
    await server.send(source, { count: 10 });
    await runEnd(server, source.id, 60_000);
    await lagMax();
    let worstHealthzMs = 0;
    let done = false;
    const watcher = (async () => {
      while (!done) {
        const started = performance.now();
        await server.api('GET', '/healthz');
        worstHealthzMs = Math.max(worstHealthzMs, performance.now() - started);
        await delay(20);
      }
    })();
    const started = performance.now();
    await server.send(source, { count: emits });
    const messages = await runEnd(server, source.id, 300_000, 2);
    const runMs = performance.now() - started;
    const end = messages.filter((message) => END_MARKER.test(message)).at(-1) ?? '';
    const newest = (await server.events(source.id))[0]?.metadata?.summary ?? null;
    done = true;
    await watcher;
    const lag = await lagMax();
    return {
      emits,
      code: /: ([A-Z_]+)$/.exec(end)?.[1] ?? 'OK',
      lastEvent: newest,
      eventLoopLagMaxMs: lag === null ? null : Math.round(lag),
      worstHealthzMs: Math.round(worstHealthzMs),
      runMs: Math.round(runMs),
    };
  } finally {
    await server.remove(source.id);
  }
}

/**
 * Shutdown time of a server the probe owns (a `Node` of bench/cluster-lib.mjs): a run that hangs
 * far past the grace is in flight when SIGTERM comes. Target: exit <= 35 s with the default grace.
 */
export async function probeShutdown(node, server) {
  const source = await server.deploy('hang-for.mjs', `probe shutdown ${Date.now()}`);
  await server.send(source, { ms: 600_000 });
  const deadline = Date.now() + 30_000;
  while ((await server.api('GET', '/v1/status')).body.data.pool.busy === 0) {
    if (Date.now() > deadline) throw new Error('the hanging run did not start');
    await delay(100);
  }
  const child = node.child;
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  const started = performance.now();
  child.kill('SIGTERM');
  const exitCode = await exited;
  node.up = false;
  return { exitCode, ms: Math.round(performance.now() - started) };
}

/** kill -9 loop on SQLite (bench/reliability-lib.mjs): acknowledged events lost. Target: 0. */
export async function probeKillLoop(options = {}) {
  const result = await runReliability({
    backend: 'sqlite',
    events: options.events ?? 1000,
    kills: options.kills ?? 5,
    timers: options.timers ?? 2,
    ...(options.log ? { log: options.log } : {}),
  });
  return {
    acknowledged: result.acknowledged,
    kills: result.kills,
    lost: result.lost,
    outOfOrder: result.outOfOrder,
    ranTwice: result.ranTwice,
    ticksTwice: result.ticksTwice,
  };
}
