/**
 * A real `tributary start` for end-to-end tests (CLI, docs pages, web app): the built binary as a
 * child process on a free loopback port and a temporary data directory, ready once it prints its
 * ready line. One harness so every suite starts the product the way a user does.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const TRIBUTARY_BIN = path.join(REPO, 'packages/cli/bin/tributary.js');

export interface StartOptions {
  /** Admin API key the server takes from TRIBUTARY_ADMIN_KEY. */
  readonly key: string;
  /** A data directory to use (kept on stop); by default a temporary one, removed on stop. */
  readonly dataDir?: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  readonly readyTimeoutMs?: number;
}

export interface TributaryServer {
  /** `http://127.0.0.1:PORT`, as the ready line prints it. */
  readonly base: string;
  readonly key: string;
  readonly port: number;
  /** Temporary folder holding data and cache (undefined when a dataDir was given). */
  readonly scratch: string | undefined;
  /** stdout and stderr of the current server process, line by line. */
  readonly lines: string[];
  api<T = unknown>(method: string, route: string, body?: unknown): Promise<{ status: number; body: T }>;
  /** SIGTERM, then the same data directory and port again: what a lost connection looks like. */
  restart(options?: { readonly pauseMs?: number }): Promise<void>;
  /** SIGTERM (SIGKILL after 10 s); the temporary folder is removed. */
  stop(): Promise<void>;
}

/** A loopback port free right now; chosen here, not with --port 0, so a restart can reuse it. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

interface Running {
  readonly base: string;
  readonly lines: string[];
  stop(): Promise<void>;
}

async function spawnOnce(port: number, env: NodeJS.ProcessEnv, options: StartOptions): Promise<Running> {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [TRIBUTARY_BIN, 'start'], {
    cwd: options.cwd ?? REPO,
    env: {
      ...process.env,
      NO_COLOR: '1',
      TRIBUTARY_PORT: String(port),
      TRIBUTARY_HOST: '127.0.0.1',
      TRIBUTARY_ADMIN_KEY: options.key,
      ...env,
      ...options.env,
    },
  });
  const lines: string[] = [];
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`tributary start printed no ready line:\n${lines.join('\n')}`)),
      options.readyTimeoutMs ?? 90_000,
    );
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      const ready = /ready: API (http:\/\/\S+)\/v1/.exec(line);
      if (ready?.[1]) {
        clearTimeout(timer);
        resolve(ready[1]);
      }
    });
    createInterface({ input: child.stderr }).on('line', (line) => lines.push(line));
    child.on('exit', () => {
      clearTimeout(timer);
      reject(new Error(`tributary start exited before it was ready:\n${lines.join('\n')}`));
    });
  });
  return {
    base,
    lines,
    async stop() {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

export async function startTributary(options: StartOptions): Promise<TributaryServer> {
  const scratch = options.dataDir === undefined ? mkdtempSync(path.join(os.tmpdir(), 'tributary-test-')) : undefined;
  // With bubblewrap and a root server, workers run as uid 65534 and must be able to enter the cache.
  if (scratch !== undefined) chmodSync(scratch, 0o755);
  const dirs =
    scratch !== undefined
      ? { TRIBUTARY_DATA_DIR: path.join(scratch, 'data'), TRIBUTARY_CACHE_DIR: path.join(scratch, 'cache') }
      : { TRIBUTARY_DATA_DIR: options.dataDir };
  const port = await freePort();
  let current = await spawnOnce(port, dirs, options);
  const base = current.base;
  return {
    base,
    key: options.key,
    port,
    scratch,
    get lines() {
      return current.lines;
    },
    async api<T>(method: string, route: string, body?: unknown) {
      const response = await fetch(`${base}${route}`, {
        method,
        headers: {
          authorization: `Bearer ${options.key}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, body: (text === '' ? null : JSON.parse(text)) as T };
    },
    async restart(restartOptions = {}) {
      await current.stop();
      await new Promise((resolve) => setTimeout(resolve, restartOptions.pauseMs ?? 0));
      current = await spawnOnce(port, dirs, options);
    },
    async stop() {
      await current.stop();
      if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
    },
  };
}
