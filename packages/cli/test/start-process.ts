/**
 * `tributary start` as a child process on `--port 0` and a data directory the test chooses, for the
 * tests about the process itself (its ready line, its key, its signals and exit code); the other
 * suites use tools/test-support/tributary-server.ts. Call killStartedProcesses() after each test.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { BIN } from './cli-process.js';

export interface StartedProcess {
  readonly child: ChildProcessWithoutNullStreams;
  /** stdout and stderr, line by line. */
  readonly lines: string[];
  /** `http://127.0.0.1:PORT`, from the ready line. */
  readonly base: string;
  /** The exit code, once the process has exited. */
  readonly exit: Promise<number | null>;
}

const children: ChildProcessWithoutNullStreams[] = [];

/** SIGKILL to every process started since the last call (a failed test may have left one running). */
export function killStartedProcesses(): void {
  for (const child of children.splice(0)) child.kill('SIGKILL');
}

/** Starts `tributary start --port 0 --data-dir dataDir` with `env` added, resolving at its ready line. */
export async function startProcess(
  dataDir: string,
  env: Record<string, string>,
  options: { readonly readyTimeoutMs?: number } = {},
): Promise<StartedProcess> {
  const child = spawn(process.execPath, [BIN, 'start', '--port', '0', '--data-dir', dataDir], {
    env: { ...process.env, ...env },
  });
  children.push(child);
  const lines: string[] = [];
  // 'close', not 'exit': the last lines written before exiting may still be in the pipe at 'exit'.
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no ready line; got:\n${lines.join('\n')}`)),
      options.readyTimeoutMs ?? 60_000,
    );
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      const match = /ready: API (http:\/\/[^\s]+)\/v1/.exec(line);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    createInterface({ input: child.stderr }).on('line', (line) => lines.push(line));
    child.on('exit', () => {
      clearTimeout(timer);
      reject(new Error(`exited before ready:\n${lines.join('\n')}`));
    });
  });
  return { child, lines, base, exit };
}
