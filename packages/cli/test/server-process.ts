import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { BIN, tributary, type CliResult } from './cli-process.js';

export const ADMIN_KEY = 'trb_remote_cli_tests_0123456789';

/** A real `tributary start` on a temporary data directory and free port. */
export interface ServerProcess {
  readonly base: string;
  readonly scratch: string;
  readonly lines: string[];
  stop(): Promise<void>;
}

export async function startServer(env: Record<string, string> = {}): Promise<ServerProcess> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'tributary-remote-'));
  // Workers run as an unprivileged user when the server runs as root; they must reach the cache inside.
  chmodSync(scratch, 0o755);
  // A chosen free port rather than 0: with port 0 the server publishes endpoint URLs under port 0.
  const port = await closedPort();
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [BIN, 'start', '--port', String(port)], {
    env: {
      ...process.env,
      TRIBUTARY_DATA_DIR: path.join(scratch, 'data'),
      TRIBUTARY_CACHE_DIR: path.join(scratch, 'cache'),
      TRIBUTARY_ADMIN_KEY: ADMIN_KEY,
      ...env,
    },
  });
  const lines: string[] = [];
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server not ready:\n${lines.join('\n')}`)), 30_000);
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      const match = /ready: API (http:\/\/\S+)\/v1/.exec(line);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    createInterface({ input: child.stderr }).on('line', (line) => lines.push(line));
    child.on('exit', () => reject(new Error(`server exited before ready:\n${lines.join('\n')}`)));
  });
  return {
    base,
    scratch,
    lines,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

/** Runs the CLI with its own config directory and no TRIBUTARY_API_* from the outer environment. */
export function remoteCli(configHome: string) {
  const env = { XDG_CONFIG_HOME: configHome, TRIBUTARY_API_URL: '', TRIBUTARY_API_KEY: '', TRIBUTARY_PROFILE: '', NO_COLOR: '1' };
  return (args: readonly string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<CliResult> =>
    tributary(args, { ...(options.cwd ? { cwd: options.cwd } : {}), env: { ...env, ...(options.env ?? {}) } });
}

/** A loopback port nothing listens on. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** A long-running CLI process (deploy that follows, events -f, dev --dc) whose output lines are read as they come. */
export class CliProcess {
  readonly lines: string[] = [];
  readonly stderr: string[] = [];
  private waiters: { test: (line: string) => boolean; resolve: (line: string) => void }[] = [];
  readonly exited: Promise<number>;

  constructor(
    args: readonly string[],
    env: Record<string, string>,
    private readonly child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } }),
  ) {
    createInterface({ input: child.stdout }).on('line', (line) => {
      this.lines.push(line);
      for (const waiter of [...this.waiters]) {
        if (waiter.test(line)) {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          waiter.resolve(line);
        }
      }
    });
    child.stderr.on('data', (chunk: Buffer) => this.stderr.push(chunk.toString()));
    this.exited = new Promise((resolve) => child.on('exit', (code) => resolve(code ?? -1)));
  }

  waitFor(test: (line: string) => boolean, timeoutMs = 30_000): Promise<string> {
    const seen = this.lines.find(test);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`timed out; stdout:\n${this.lines.join('\n')}\nstderr:\n${this.stderr.join('')}`)),
        timeoutMs,
      );
      this.waiters.push({
        test,
        resolve: (line) => {
          clearTimeout(timer);
          resolve(line);
        },
      });
    });
  }

  async waitForStderr(pattern: RegExp, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!pattern.test(this.stderr.join(''))) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${String(pattern)} on stderr:\n${this.stderr.join('')}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async interrupt(): Promise<number> {
    this.child.kill('SIGINT');
    return this.exited;
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }
}

/**
 * The CLI on a pseudo-terminal (util-linux `script`), so the interactive prompts run as a user
 * sees them; keys are written to its input.
 */
export class TerminalProcess {
  private text = '';
  readonly exited: Promise<number>;
  private readonly child;

  constructor(args: readonly string[], env: Record<string, string>) {
    const quote = (arg: string): string => `'${arg.replace(/'/g, "'\\''")}'`;
    const command = [process.execPath, BIN, ...args].map(quote).join(' ');
    this.child = spawn('script', ['-qfec', command, '/dev/null'], { env: { ...process.env, ...env } });
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.text += chunk.toString();
    });
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code ?? -1)));
  }

  /** What the terminal showed, without colour and cursor sequences. */
  get screen(): string {
    // eslint-disable-next-line no-control-regex
    return this.text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');
  }

  async waitFor(pattern: RegExp, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!pattern.test(this.screen)) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${String(pattern)}; screen:\n${this.screen}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Types keys, then gives the prompt a moment to redraw. */
  async type(keys: string): Promise<void> {
    this.child.stdin.write(keys);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }
}

export const KEY = { down: '\u001b[B', enter: '\r' } as const;
