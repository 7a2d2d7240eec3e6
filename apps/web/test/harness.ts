/**
 * What the browser tests run against: the real `tributary start` binary on a temporary data
 * directory and a free port (serving the built apps/web/dist), and Debian's Chromium driven by
 * playwright-core with the flags that work on this machine.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const WEB_DIST = path.join(REPO, 'apps/web/dist');
/**
 * Every run saves its screenshots under test-results/ (ignored by git); `UPDATE_SCREENSHOTS=1`
 * writes them to docs/screenshots/ instead, the copies the README shows, so a plain `npm test`
 * leaves the working tree clean.
 */
export const SCREENSHOTS = path.join(REPO, process.env['UPDATE_SCREENSHOTS'] === '1' ? 'docs/screenshots' : 'test-results/screenshots');
const BIN = path.join(REPO, 'packages/cli/bin/tributary.js');
const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** The tests need the production build; build it once if `npm run build` has not. */
export function ensureWebBuilt(): void {
  if (existsSync(path.join(WEB_DIST, 'index.html'))) return;
  const result = spawnSync('npm', ['run', 'build', '-w', '@tributary/web'], { cwd: REPO, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`web build failed:\n${result.stdout}\n${result.stderr}`);
}

export interface RunningServer {
  readonly base: string;
  readonly key: string;
  /** What the current server process printed. */
  readonly lines: string[];
  api<T = unknown>(method: string, url: string, body?: unknown): Promise<{ status: number; body: T }>;
  /** SIGTERM, and the temporary directory removed. */
  stop(): Promise<void>;
  /** SIGTERM, then the same data directory and port again: what a lost connection looks like. */
  restart(options?: { readonly pauseMs?: number }): Promise<void>;
}

interface Process {
  readonly lines: string[];
  readonly base: string;
  stop(): Promise<void>;
}

async function spawnServer(scratch: string, port: number, key: string, extraEnv: Record<string, string>): Promise<Process> {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [BIN, 'start'], {
    env: {
      ...process.env,
      TRIBUTARY_DATA_DIR: path.join(scratch, 'data'),
      TRIBUTARY_CACHE_DIR: path.join(scratch, 'cache'),
      TRIBUTARY_PORT: String(port),
      TRIBUTARY_HOST: '127.0.0.1',
      TRIBUTARY_ADMIN_KEY: key,
      TRIBUTARY_WEB_DIR: WEB_DIST,
      ...extraEnv,
    },
  });
  const lines: string[] = [];
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ready line:\n${lines.join('\n')}`)), 25_000);
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      const match = /ready: API (http:\/\/[^\s]+)\/v1/.exec(line);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    createInterface({ input: child.stderr }).on('line', (line) => lines.push(line));
    child.on('exit', () => reject(new Error(`server exited before ready:\n${lines.join('\n')}`)));
  });
  return {
    lines,
    base,
    async stop() {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

export async function startServer(options: { readonly env?: Record<string, string> } = {}): Promise<RunningServer> {
  const extraEnv = options.env ?? {};
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'tributary-web-test-'));
  // Sandbox workers run as another user (65534) under bubblewrap: they must be able to enter it.
  chmodSync(scratch, 0o755);
  const port = await freePort();
  const key = `trb_${'w'.repeat(48)}`;
  let current = await spawnServer(scratch, port, key, extraEnv);
  const base = current.base;
  return {
    base,
    key,
    get lines() {
      return current.lines;
    },
    async api<T>(method: string, url: string, body?: unknown) {
      const response = await fetch(`${base}${url}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
    },
    async restart(options = {}) {
      await current.stop();
      await new Promise((resolve) => setTimeout(resolve, options.pauseMs ?? 0));
      current = await spawnServer(scratch, port, key, extraEnv);
    },
    async stop() {
      await current.stop();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`no browser at ${CHROMIUM}: install Debian's chromium (apt-get install chromium; .ci/run does) or set CHROMIUM_PATH`);
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}

export function screenshotPath(name: string): string {
  mkdirSync(SCREENSHOTS, { recursive: true });
  return path.join(SCREENSHOTS, `${name}.png`);
}
