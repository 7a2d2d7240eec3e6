// Shared helpers of the server benchmarks: a real `tributary start` process on a temporary data
// and cache directory, the bare node:http baseline server, the load generator and SSE client child
// processes, a tiny REST client, CPU accounting from /proc, and the git state that was measured.
// Everything talks to 127.0.0.1 only.
import { execFileSync, fork, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import console from 'node:console';
import { existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { clearInterval, clearTimeout, setInterval, setTimeout } from 'node:timers';
import { setTimeout as delay } from 'node:timers/promises';
import { Buffer } from 'node:buffer';
import { URL } from 'node:url';
import { BENCH_DIR, round } from './lib.mjs';

export const REPO_DIR = path.resolve(BENCH_DIR, '..');
export const CLI_BIN = path.join(REPO_DIR, 'packages', 'cli', 'bin', 'tributary.js');
export const ADMIN_KEY = 'trb_bench_admin_key_0123456789';
const CLOCK_TICKS = 100; // USER_HZ on Linux

/** A free TCP port on 127.0.0.1 (asks the kernel, then releases it). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** One HTTP request to 127.0.0.1 with a JSON body (or none); resolves { status, body (parsed JSON or text) }. */
export function request(baseUrl, method, urlPath, { body, headers = {}, timeoutMs = 120_000 } = {}) {
  const url = new URL(urlPath, baseUrl);
  if (url.hostname !== '127.0.0.1') throw new Error(`refusing a non-loopback target: ${url.href}`);
  const payload = body === undefined ? null : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method,
        agent: false,
        timeout: timeoutMs,
        headers: {
          ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}),
          ...headers,
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
            // plain text answer
          }
          resolve({ status: res.statusCode, body: parsed });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${urlPath} timed out after ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(payload ?? undefined);
  });
}

/** CPU seconds (user + system) a process has used so far, or null when it is gone. */
export function processCpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state); utime and stime are fields 14 and 15.
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return null;
  }
}

/** CPU seconds of a process's exited and reaped descendants (cutime + cstime), or null when it is gone. */
export function reapedChildrenCpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // cutime and cstime are fields 16 and 17.
    return (Number(fields[13]) + Number(fields[14])) / CLOCK_TICKS;
  } catch {
    return null;
  }
}

/** pid → parent pid of every process on the machine. */
function parentsByPid() {
  const parents = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parents.set(Number(entry), Number(fields[1]));
    } catch {
      // exited meanwhile
    }
  }
  return parents;
}

/** Every live descendant of `pid` (sandbox workers, bubblewrap). */
export function descendants(pid) {
  const parents = parentsByPid();
  const found = new Set([pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [child, parent] of parents) {
      if (found.has(parent) && !found.has(child)) {
        found.add(child);
        grew = true;
      }
    }
  }
  found.delete(pid);
  return [...found];
}

/** Resident memory of one process in bytes (0 once it has exited). */
export function rssBytes(pid) {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * Resident memory of the server process and, summed, of its sandbox workers (with their bubblewrap
 * parents) and of its other children. A sum of RSS counts pages shared between workers once per
 * worker, so the workers' figure is an upper bound.
 */
export function memorySnapshot(pid) {
  const children = descendants(pid);
  const argvOf = (child) => {
    try {
      return readFileSync(`/proc/${child}/cmdline`, 'utf8').split('\0');
    } catch {
      return [];
    }
  };
  const isWorkerNode = (argv) =>
    path.basename(argv[0] ?? '') === 'node' && argv.some((arg) => arg.endsWith('worker.mjs'));
  // A worker is bubblewrap and the node inside it (or node alone): both carry the harness path.
  const isWorkerTree = (argv) => argv.some((arg) => arg.endsWith('worker.mjs'));
  let workersRssBytes = 0;
  let otherRssBytes = 0;
  let workers = 0;
  for (const child of children) {
    const argv = argvOf(child);
    if (isWorkerNode(argv)) workers += 1;
    if (isWorkerTree(argv)) workersRssBytes += rssBytes(child);
    else otherRssBytes += rssBytes(child);
  }
  // Other children: esbuild's service process (bundling at deploy time), npm.
  return { serverRssBytes: rssBytes(pid), workersRssBytes, otherRssBytes, workers };
}

/**
 * CPU accounting over a window: `take()` snapshots a process and its descendants (live and exited),
 * plus the whole machine (/proc/stat); `since(before)` gives CPU seconds used in between and the
 * machine's busy share. A process that is not yet reaped when the window closes is missed.
 */
export function cpuSnapshot(pids) {
  const machineTicks = () => {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
    const values = line.trim().split(/\s+/).slice(1).map(Number);
    const idle = values[3] + (values[4] ?? 0);
    const total = values.reduce((sum, value) => sum + value, 0);
    return { idle, total };
  };
  const take = () => {
    const perRole = {};
    for (const [role, pid] of Object.entries(pids)) {
      if (!pid) continue;
      perRole[role] = processCpuSeconds(pid) ?? 0;
      // Descendants: the live ones plus what exited ones used (a reaped child's CPU, with its own
      // reaped children's, moves to its parent's cutime/cstime), so workers that come and go
      // inside the window are counted too.
      const children = descendants(pid);
      perRole[`${role}Children`] =
        children.reduce(
          (sum, child) => sum + (processCpuSeconds(child) ?? 0) + (reapedChildrenCpuSeconds(child) ?? 0),
          0,
        ) + (reapedChildrenCpuSeconds(pid) ?? 0);
      perRole[`${role}ChildrenCount`] = children.length;
    }
    return { at: Date.now(), perRole, machine: machineTicks() };
  };
  return {
    take,
    since(before) {
      const after = take();
      const seconds = (after.at - before.at) / 1000;
      const used = {};
      for (const [role, value] of Object.entries(after.perRole)) {
        if (role.endsWith('ChildrenCount')) {
          used[role] = value;
          continue;
        }
        used[`${role}CpuSeconds`] = round(value - (before.perRole[role] ?? 0), 2);
        used[`${role}CpuPercent`] = round(((value - (before.perRole[role] ?? 0)) / seconds) * 100, 1);
      }
      const totalTicks = after.machine.total - before.machine.total;
      const busy = totalTicks - (after.machine.idle - before.machine.idle);
      used.machineBusyPercent = round((busy / Math.max(1, totalTicks)) * 100, 1);
      used.windowSeconds = round(seconds, 2);
      return used;
    },
  };
}

/**
 * Follows the descendants of `pid` (sandbox workers and their bubblewrap parents) by polling every
 * `everyMs`: counts the worker processes started, and adds up the CPU each descendant used while
 * it was seen (from its first sighting, or from 0 for one born after the tracker started). A worker
 * killed between two polls loses its last interval, so both figures are lower bounds. (Exited
 * workers are not reaped by the server when bubblewrap's outer process dies first, so
 * cutime/cstime of the server does not hold their CPU.)
 */
export function workerTracker(pid, everyMs = 250) {
  const started = new Set();
  const cpu = new Map(); // pid → { initial, last }
  const isWorker = (child) => {
    try {
      const argv = readFileSync(`/proc/${child}/cmdline`, 'utf8').split('\0');
      return path.basename(argv[0]) === 'node' && argv.some((arg) => arg.endsWith('worker.mjs'));
    } catch {
      return false;
    }
  };
  let first = true;
  const poll = () => {
    for (const child of descendants(pid)) {
      const used = processCpuSeconds(child);
      if (used === null) continue;
      const known = cpu.get(child);
      if (known) known.last = used;
      else {
        cpu.set(child, { initial: first ? used : 0, last: used });
        if (!first && isWorker(child)) started.add(child);
      }
    }
    first = false;
  };
  poll();
  const timer = setInterval(poll, everyMs);
  timer.unref();
  return {
    /** Worker processes started since the tracker started. */
    get started() {
      return started.size;
    },
    /** CPU seconds the descendants used since the tracker started (lower bound). */
    cpuSeconds() {
      poll();
      let sum = 0;
      for (const { initial, last } of cpu.values()) sum += last - initial;
      return sum;
    },
    stop: () => clearInterval(timer),
  };
}

/** Every built .js file of the packages the server runs, hashed together: which code ran. */
function distFingerprint() {
  const hash = createHash('sha256');
  for (const name of ['contracts', 'runtime', 'sandbox', 'engine', 'server', 'cli']) {
    const dist = path.join(REPO_DIR, 'packages', name, 'dist');
    if (!existsSync(dist)) continue;
    const files = readdirSync(dist, { recursive: true })
      .map(String)
      .filter((file) => file.endsWith('.js') || file.endsWith('.mjs'))
      .sort();
    for (const file of files) {
      hash.update(`${name}/${file}\0`);
      hash.update(readFileSync(path.join(dist, file)));
    }
  }
  return hash.digest('hex').slice(0, 12);
}

/**
 * The commit measured, whether packages/ had uncommitted changes (other work in flight), and a
 * fingerprint of the built code: two runs with the same fingerprint ran the same server code.
 */
export function gitState() {
  let head = 'unknown';
  let packagesDirty = [];
  try {
    head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_DIR, encoding: 'utf8' }).trim();
    packagesDirty = execFileSync('git', ['status', '--porcelain', '--', 'packages'], {
      cwd: REPO_DIR,
      encoding: 'utf8',
    })
      .split('\n')
      .filter(Boolean)
      .map((line) => line.slice(3));
  } catch {
    // not a git checkout
  }
  return { head, packagesDirty, distFingerprint: distFingerprint() };
}

/**
 * Spawns `tributary start` on a free port with a fresh data dir and cache dir (TRIBUTARY_CACHE_DIR)
 * and TRIBUTARY_ADMIN_KEY set; resolves once /healthz answers. `stop()` sends SIGTERM, waits for
 * the exit (SIGKILL after 20 s) and removes both directories. `extraEnv` adds TRIBUTARY_* settings;
 * `nodeArgs` goes before the CLI script (for example --cpu-prof).
 */
/**
 * The endpoint rate limit (contract §10: 10 requests/s per endpoint, bursts of 50) would answer
 * almost every benchmark request with 429, so the load benchmarks start the server with it off and
 * say so in their output and results.
 */
export const BENCH_RATE_LIMIT = {
  env: { TRIBUTARY_ENDPOINT_RATE_PER_S: '0' },
  note: 'endpoint rate limit off (TRIBUTARY_ENDPOINT_RATE_PER_S=0; the default 10/s, bursts of 50, would answer 429)',
};

export async function startTributary({ name, extraEnv = {}, nodeArgs = [], repoDir = REPO_DIR } = {}) {
  // `repoDir`: another checkout's build (an A/B of two builds in the same run).
  const cliBin = path.join(repoDir, 'packages', 'cli', 'bin', 'tributary.js');
  if (!existsSync(cliBin) || !existsSync(path.join(repoDir, 'packages', 'cli', 'dist', 'main.js'))) {
    throw new Error('the CLI is not built: run `npm run build` first');
  }
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `tributary-bench-${name}-data-`));
  const cacheDir = mkdtempSync(path.join(os.tmpdir(), `tributary-bench-${name}-cache-`));
  const port = await freePort();
  const logFile = path.join(dataDir, 'server.log');
  const logFd = openSync(logFile, 'a');
  const child = spawn(
    process.execPath,
    [...nodeArgs, cliBin, 'start', '--port', String(port), '--host', '127.0.0.1', '--data-dir', dataDir],
    {
      cwd: repoDir,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: process.env.HOME ?? os.homedir(),
        TRIBUTARY_ADMIN_KEY: ADMIN_KEY,
        TRIBUTARY_CACHE_DIR: cacheDir,
        ...extraEnv,
      },
      stdio: ['ignore', logFd, logFd],
    },
  );
  let exited = null;
  const exit = new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      exited = { code, signal };
      resolve(exited);
    });
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const log = () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');
  const stop = async () => {
    if (!exited) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exit;
      clearTimeout(killer);
    }
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(cacheDir, { recursive: true, force: true });
  };
  const started = Date.now();
  for (;;) {
    if (exited) throw new Error(`tributary start exited (${exited.code ?? exited.signal}): ${log().trim()}`);
    try {
      const health = await request(baseUrl, 'GET', '/healthz', { timeoutMs: 2000 });
      if (health.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() - started > 60_000) {
      await stop();
      throw new Error(`tributary start did not answer /healthz within 60 s: ${log().trim()}`);
    }
    await delay(100);
  }
  const auth = { authorization: `Bearer ${ADMIN_KEY}` };
  return {
    pid: child.pid,
    port,
    baseUrl,
    dataDir,
    cacheDir,
    dbFile: path.join(dataDir, 'tributary.db'),
    startMs: Date.now() - started,
    auth,
    log,
    stop,
    api: (method, urlPath, body, timeoutMs) => request(baseUrl, method, urlPath, { body, headers: auth, timeoutMs }),
    /** Deploys a source from code; resolves with the API record (`id`, `endpoint_url`, …). */
    async deploy(code, extra = {}) {
      const response = await request(baseUrl, 'POST', '/v1/sources', {
        body: { component_code: code, ...extra },
        headers: auth,
      });
      if (response.status !== 200 && response.status !== 201) {
        throw new Error(`deploy answered ${response.status}: ${JSON.stringify(response.body).slice(0, 500)}`);
      }
      return response.body.data;
    },
  };
}

/** Spawns the bare node:http baseline server (bench/baseline-server.mjs) on a free port. */
export async function startBaselineServer() {
  const port = await freePort();
  const child = fork(path.join(BENCH_DIR, 'baseline-server.mjs'), [String(port)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
  });
  await new Promise((resolve, reject) => {
    child.once('message', (message) =>
      message?.type === 'listening' ? resolve() : reject(new Error(String(message))),
    );
    child.once('exit', (code) => reject(new Error(`baseline server exited (${code})`)));
  });
  const exit = new Promise((resolve) => child.once('exit', resolve));
  return {
    pid: child.pid,
    baseUrl: `http://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exit;
      }
    },
  };
}

/**
 * Forks a helper script (loadgen.mjs, sse-client.mjs) with an IPC channel: `send(config)` starts it,
 * `next(type)` resolves with its next message of that type; `kill()` ends it.
 */
export function forkHelper(script) {
  const child = fork(path.join(BENCH_DIR, script), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    serialization: 'advanced',
  });
  const waiting = [];
  const inbox = [];
  let failure = null;
  const settle = () => {
    for (let i = 0; i < waiting.length;) {
      const waiter = waiting[i];
      const index = inbox.findIndex((message) => message.type === waiter.type);
      if (index >= 0) {
        waiting.splice(i, 1);
        waiter.resolve(inbox.splice(index, 1)[0]);
      } else if (failure) {
        waiting.splice(i, 1);
        waiter.reject(failure);
      } else i += 1;
    }
  };
  child.on('message', (message) => {
    if (message?.type === 'error') failure = new Error(`${script}: ${message.message}`);
    else inbox.push(message);
    settle();
  });
  child.on('exit', (code, signal) => {
    failure ??= new Error(`${script} exited (${code ?? signal})`);
    settle();
  });
  return {
    pid: child.pid,
    send: (message) => child.send(message),
    next: (type) =>
      new Promise((resolve, reject) => {
        waiting.push({ type, resolve, reject });
        settle();
      }),
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    },
  };
}

/**
 * Runs the load generator once with `config`; resolves with its report. `onPhase('measure' | 'end')`
 * is called when its measured window opens and closes (for CPU snapshots).
 */
export async function runLoad(config, onPhase = () => {}) {
  // `generator: 'autocannon'`: the closed-loop load through autocannon (autocannon-load.mjs).
  const loadgen = forkHelper(config.generator === 'autocannon' ? 'autocannon-load.mjs' : 'loadgen.mjs');
  try {
    await loadgen.next('ready');
    loadgen.send({ type: 'start', ...config });
    const report = loadgen.next('report');
    const phases = (async () => {
      const opened = await loadgen.next('phase');
      onPhase(opened.phase, loadgen.pid);
      if (opened.phase === 'end') return;
      const closed = await loadgen.next('phase');
      onPhase(closed.phase, loadgen.pid);
    })().catch(() => undefined);
    const result = await report;
    await phases;
    return result;
  } finally {
    loadgen.kill();
  }
}

/** Opens a SQLite file read-only from the bench process (the server keeps writing it; WAL allows it). */
export async function openReadOnly(file) {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  return db;
}

export function logLine(message) {
  console.log(`[${new Date().toISOString().slice(11, 23)}] ${message}`);
}

/** A formatted row value for rates (req/s, events/s) in the shared table printer. */
export const perSecond = (value) =>
  typeof value === 'number' ? `${Math.round(value).toLocaleString('en-US')}/s` : '—';
