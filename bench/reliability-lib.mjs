// Reliability under kill -9: real `tributary start` processes (three on PostgreSQL and Redis, or
// one on SQLite), HTTP events sent while random processes are killed with SIGKILL and restarted.
// Checks that every acknowledged event ran (it is in its source's event bin), that each source's
// events are in the order they were acknowledged, that none ran twice, and that no timer tick
// fired twice. Used by bench/reliability.mjs (full size) and packages/cli/test/reliability.test.ts
// (a small seed in `npm test`).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { createInterface } from 'node:readline';
import { clearTimeout, setTimeout } from 'node:timers';
import { setTimeout as delay } from 'node:timers/promises';
import { Buffer } from 'node:buffer';
import { URL } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';
import { CLI_BIN, freePort, REPO_DIR } from './server-lib.mjs';

const KEY = 'trb_reliability_admin_key_0123456789';
const PG_SERVER = process.env.TRIBUTARY_TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.TRIBUTARY_TEST_REDIS_URL || 'redis://127.0.0.1:6379';

/** One HTTP request; resolves { status, body } or rejects on a connection failure. */
function call(base, method, route, body) {
  const payload = body === undefined ? null : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = http.request(
      new URL(route, base),
      {
        method,
        agent: false,
        timeout: 30_000,
        headers: {
          authorization: `Bearer ${KEY}`,
          ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}),
        },
      },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // not JSON: kept as text
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(payload ?? undefined);
  });
}

/** A `tributary start` on a fixed port and data directory that can be killed and started again. */
class Node {
  constructor(name, port, dataDir, env) {
    this.name = name;
    this.port = port;
    this.base = `http://127.0.0.1:${port}`;
    this.dataDir = dataDir;
    this.env = env;
    this.child = undefined;
    this.up = false;
    this.lines = [];
  }

  async start() {
    const child = spawn(process.execPath, [CLI_BIN, 'start'], {
      cwd: REPO_DIR,
      env: {
        ...process.env,
        NO_COLOR: '1',
        TRIBUTARY_PORT: String(this.port),
        TRIBUTARY_HOST: '127.0.0.1',
        TRIBUTARY_ADMIN_KEY: KEY,
        TRIBUTARY_DATA_DIR: this.dataDir,
        TRIBUTARY_LOG_LEVEL: 'warn',
        TRIBUTARY_ENDPOINT_RATE_PER_S: '0',
        ...this.env,
      },
    });
    this.child = child;
    const lines = [];
    this.lines = lines;
    createInterface({ input: child.stderr }).on('line', (line) => lines.push(line));
    await new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${this.name} printed no ready line:\n${lines.join('\n')}`)),
        120_000,
      );
      createInterface({ input: child.stdout }).on('line', (line) => {
        lines.push(line);
        if (line.includes(' ready: API ')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.on('exit', () => {
        clearTimeout(timer);
        reject(new Error(`${this.name} exited before it was ready:\n${lines.join('\n')}`));
      });
    });
    this.up = true;
  }

  async kill() {
    this.up = false;
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  async stop() {
    this.up = false;
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(killer);
  }
}

/**
 * Runs one reliability scenario. Options: backend 'postgres' | 'sqlite', processes (3 / 1),
 * events (acknowledged events to reach), kills, sources (HTTP sources the events spread over; a
 * source gets at most ~100 events, the bin's size), timers (timer sources, every 15 s), log.
 * Resolves with the figures; throws only when the setup fails.
 */
export async function runReliability(options) {
  const backend = options.backend;
  const processes = options.processes ?? (backend === 'postgres' ? 3 : 1);
  const total = options.events;
  const kills = options.kills;
  const sourceCount = options.sources ?? Math.max(1, Math.ceil(total / 70));
  const timerCount = options.timers ?? 5;
  const log = options.log ?? (() => undefined);
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'tributary-reliability-'));
  chmodSync(scratch, 0o755);
  const cleanups = [() => rmSync(scratch, { recursive: true, force: true })];
  const nodes = [];
  const startedAt = Date.now();
  try {
    const env = { TRIBUTARY_CACHE_DIR: path.join(scratch, 'cache') };
    if (backend === 'postgres') {
      const name = `tributary_reliability_${randomBytes(5).toString('hex')}`;
      const admin = new pg.Client({ connectionString: PG_SERVER });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      await admin.end();
      cleanups.push(async () => {
        const client = new pg.Client({ connectionString: PG_SERVER });
        await client.connect();
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await client.end();
      });
      const url = new URL(PG_SERVER);
      url.pathname = `/${name}`;
      const prefix = `tributary-reliability-${randomBytes(5).toString('hex')}:`;
      cleanups.push(async () => {
        const redis = new Redis(REDIS_URL);
        let cursor = '0';
        do {
          const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
          cursor = next;
          if (keys.length > 0) await redis.del(...keys);
        } while (cursor !== '0');
        await redis.quit();
      });
      Object.assign(env, {
        TRIBUTARY_DATABASE_URL: url.toString(),
        TRIBUTARY_REDIS_URL: REDIS_URL,
        TRIBUTARY_REDIS_PREFIX: prefix,
      });
    }
    for (let index = 0; index < processes; index += 1)
      nodes.push(new Node(`p${index}`, await freePort(), path.join(scratch, `p${index}`), env));
    cleanups.push(() => Promise.all(nodes.map((node) => node.stop())));
    await nodes[0].start();
    for (const node of nodes.slice(1)) {
      mkdirSync(node.dataDir, { recursive: true });
      copyFileSync(path.join(nodes[0].dataDir, 'master.key'), path.join(node.dataDir, 'master.key'));
    }
    await Promise.all(nodes.slice(1).map((node) => node.start()));
    log(`${processes} process(es) on ${backend} ready after ${Date.now() - startedAt} ms`);

    const code = readFileSync(path.join(REPO_DIR, 'fixtures/components/server/sequence-recorder.mjs'), 'utf8');
    const tickCode = readFileSync(path.join(REPO_DIR, 'fixtures/components/f03-tick.mjs'), 'utf8');
    const deploy = async (body) => {
      const response = await call(nodes[0].base, 'POST', '/v1/sources', body);
      if (response.status !== 200)
        throw new Error(`deploy failed: ${response.status} ${JSON.stringify(response.body)}`);
      return response.body.data;
    };
    const sources = [];
    for (let index = 0; index < sourceCount; index += 1) sources.push(await deploy({ component_code: code }));
    const timers = [];
    for (let index = 0; index < timerCount; index += 1)
      timers.push(await deploy({ component_code: tickCode, configured_props: { timer: { intervalSeconds: 15 } } }));
    log(`${sourceCount} HTTP sources and ${timerCount} timer sources deployed`);

    // One sequential client per source: its next request goes only after the previous one was
    // answered, so the order of its acknowledged events is the order they must run in.
    const acked = sources.map(() => []);
    let ackedCount = 0;
    let sent = 0;
    let failed = 0;
    let done = false;
    const live = () => nodes.filter((node) => node.up);
    const client = async (index) => {
      const endpoint = new URL(sources[index].endpoint_url).pathname;
      let n = 0;
      while (!done) {
        const targets = live();
        if (targets.length === 0) {
          await delay(50);
          continue;
        }
        n += 1;
        sent += 1;
        const target = targets[Math.floor(Math.random() * targets.length)];
        try {
          const response = await call(target.base, 'POST', endpoint, { n });
          if (response.status === 200) {
            acked[index].push(n);
            ackedCount += 1;
            if (ackedCount >= total) done = true;
            continue;
          }
          failed += 1;
        } catch {
          failed += 1;
        }
        // Unacknowledged (refused, reset, 5xx): it may or may not have been queued; the next
        // request takes the next number either way.
        await delay(50);
      }
    };
    const killer = async () => {
      for (let kill = 1; kill <= kills; kill += 1) {
        const at = Math.floor((total * kill) / (kills + 1));
        while (ackedCount < at && !done) await delay(20);
        const targets = live();
        const victim = targets[Math.floor(Math.random() * targets.length)] ?? nodes[0];
        log(`kill -9 #${kill} of ${victim.name} at ${ackedCount} acknowledged`);
        await victim.kill();
        await delay(200 + Math.floor(Math.random() * 800));
        await victim.start();
      }
    };
    const flowStart = Date.now();
    await Promise.all([...sources.map((_, index) => client(index)), killer()]);
    const flowMs = Date.now() - flowStart;
    log(`${ackedCount} acknowledged of ${sent} sent (${failed} failed) in ${flowMs} ms`);

    // Every acknowledged event must show up; a process that died holding a claim gives it up
    // after its lease (60 s), so the wait is long.
    const reader = () => live()[0] ?? nodes[0];
    const binOf = async (sourceId) => {
      const response = await call(reader().base, 'GET', `/v1/sources/${sourceId}/event_summaries?limit=100`);
      if (response.status !== 200) throw new Error(`event_summaries: ${response.status}`);
      return response.body.data.map((summary) => summary.event).reverse();
    };
    const deadline = Date.now() + (options.settleMs ?? 150_000);
    let bins = [];
    for (;;) {
      bins = await Promise.all(sources.map((source) => binOf(source.id)));
      const missing = bins.reduce((sum, bin, index) => {
        const seen = new Set(bin.map((event) => event.n));
        return sum + acked[index].filter((n) => !seen.has(n)).length;
      }, 0);
      if (missing === 0 || Date.now() > deadline) break;
      await delay(500);
    }
    let lost = 0;
    let outOfOrder = 0;
    let ranTwice = 0;
    for (const [index, bin] of bins.entries()) {
      const numbers = bin.map((event) => event.n);
      const seen = new Set(numbers);
      lost += acked[index].filter((n) => !seen.has(n)).length;
      ranTwice += numbers.length - seen.size;
      for (let at = 1; at < numbers.length; at += 1) if (numbers[at] <= numbers[at - 1]) outOfOrder += 1;
    }
    let ticks = 0;
    let ticksTwice = 0;
    for (const timer of timers) {
      const fired = (await binOf(timer.id)).map((event) => event.at);
      ticks += fired.length;
      ticksTwice += fired.length - new Set(fired).size;
    }
    const result = {
      backend,
      processes,
      kills,
      sources: sourceCount,
      timers: timerCount,
      acknowledged: ackedCount,
      sent,
      failedRequests: failed,
      lost,
      outOfOrder,
      ranTwice,
      ticks,
      ticksTwice,
      flowMs,
      totalMs: Date.now() - startedAt,
      loadAverage: os.loadavg().map((value) => Math.round(value * 100) / 100),
    };
    log(JSON.stringify(result));
    return result;
  } finally {
    for (const cleanup of cleanups.reverse()) await Promise.resolve(cleanup()).catch(() => undefined);
  }
}
