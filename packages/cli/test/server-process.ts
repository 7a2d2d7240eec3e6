import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { freePort, startTributary, type TributaryServer } from '../../../tools/test-support/tributary-server.js';
import { BIN, tributary, type CliResult } from './cli-process.js';

export const ADMIN_KEY = 'trb_remote_cli_tests_0123456789';

export type ServerProcess = TributaryServer;

/** A real `tributary start` on a temporary data directory and free port. */
export function startServer(env: Record<string, string> = {}): Promise<ServerProcess> {
  return startTributary({ key: ADMIN_KEY, env });
}

/** Runs the CLI with its own config directory and no TRIBUTARY_API_* from the outer environment. */
export function remoteCli(configHome: string) {
  const env = {
    XDG_CONFIG_HOME: configHome,
    TRIBUTARY_API_URL: '',
    TRIBUTARY_API_KEY: '',
    TRIBUTARY_PROFILE: '',
    NO_COLOR: '1',
  };
  return (args: readonly string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<CliResult> =>
    tributary(args, { ...(options.cwd ? { cwd: options.cwd } : {}), env: { ...env, ...(options.env ?? {}) } });
}

/** A loopback port nothing listens on. */
export const closedPort = freePort;

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
    // 'close', not 'exit': the last lines written before exiting may still be in the pipe at 'exit'.
    this.exited = new Promise((resolve) => child.on('close', (code) => resolve(code ?? -1)));
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
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${String(pattern)} on stderr:\n${this.stderr.join('')}`);
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
    // 'close', not 'exit': the last lines written before exiting may still be in the pipe at 'exit'.
    this.exited = new Promise((resolve) => this.child.on('close', (code) => resolve(code ?? -1)));
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
