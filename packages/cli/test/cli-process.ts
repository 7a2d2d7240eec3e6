import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const BIN = path.join(REPO, 'packages/cli/bin/tributary.js');
export const FIXTURES = path.join(REPO, 'fixtures/components');

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the real `tributary` binary (built dist) to completion. */
export function tributary(
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<CliResult> {
  return new Promise((resolve) => {
    const env = { ...process.env, ...(options.env ?? {}) };
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: options.cwd ?? REPO, timeout: 120_000, env },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

export async function tributaryJson<T = Record<string, unknown>>(
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<{ code: number; json: T; stderr: string }> {
  const result = await tributary(args, options);
  const lines = result.stdout.trim().split('\n');
  if (lines.length !== 1)
    throw new Error(`expected one JSON line on stdout, got:\n${result.stdout}\nstderr:\n${result.stderr}`);
  return { code: result.code, json: JSON.parse(lines[0] ?? '') as T, stderr: result.stderr };
}

/** A long-running `tributary dev --json` whose stdout lines are read as they arrive. */
export class DevProcess {
  readonly lines: Record<string, unknown>[] = [];
  readonly stderr: string[] = [];
  private waiters: {
    predicate: (line: Record<string, unknown>) => boolean;
    resolve: (line: Record<string, unknown>) => void;
  }[] = [];
  private readonly exited: Promise<number>;

  private constructor(readonly child: ChildProcessWithoutNullStreams) {
    createInterface({ input: child.stdout }).on('line', (text) => {
      let line: Record<string, unknown>;
      try {
        line = JSON.parse(text) as Record<string, unknown>;
      } catch {
        line = { type: 'text', text };
      }
      this.lines.push(line);
      for (const waiter of [...this.waiters]) {
        if (waiter.predicate(line)) {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          waiter.resolve(line);
        }
      }
    });
    child.stderr.on('data', (chunk: Buffer) => this.stderr.push(chunk.toString()));
    // 'close', not 'exit': the last lines written before exiting may still be in the pipe at 'exit'.
    this.exited = new Promise((resolve) => child.on('close', (code) => resolve(code ?? -1)));
  }

  static start(args: readonly string[], cwd: string): DevProcess {
    // Its own process group, like a terminal's foreground job, so interrupt() is a real Ctrl+C.
    return new DevProcess(spawn(process.execPath, [BIN, 'dev', '--json', ...args], { cwd, detached: true }));
  }

  /** Resolves with the first line (already seen or still to come) that matches. */
  waitFor(predicate: (line: Record<string, unknown>) => boolean, timeoutMs = 20_000): Promise<Record<string, unknown>> {
    const seen = this.lines.find(predicate);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `timed out waiting for a dev line; saw:\n${this.lines.map((l) => JSON.stringify(l)).join('\n')}\nstderr: ${this.stderr.join('')}`,
            ),
          ),
        timeoutMs,
      );
      this.waiters.push({
        predicate,
        resolve: (line) => {
          clearTimeout(timer);
          resolve(line);
        },
      });
    });
  }

  /** Sends SIGINT (Ctrl+C) and waits for the exit code. */
  /** Ctrl+C on a terminal: SIGINT to the whole foreground process group, not only to the CLI. */
  async interrupt(): Promise<number> {
    if (this.child.pid !== undefined) process.kill(-this.child.pid, 'SIGINT');
    return this.exited;
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }
}
