import { AsyncLocalStorage } from 'node:async_hooks';
import { format, inspect } from 'node:util';

export type LogLevel = 'info' | 'warn' | 'error';

export interface LogEntry {
  readonly level: LogLevel;
  readonly message: string;
  /** Epoch milliseconds. */
  readonly ts: number;
}

/** Where one invocation's log lines go. */
export interface LogSink {
  write(level: LogLevel, message: string): void;
}

const current = new AsyncLocalStorage<LogSink>();
let installed = false;

const LEVELS: Record<string, LogLevel> = {
  log: 'info',
  info: 'info',
  debug: 'info',
  trace: 'info',
  dir: 'info',
  table: 'info',
  warn: 'warn',
  error: 'error',
};

/**
 * Routes `console.*` calls made while an invocation runs to that invocation's sink, and leaves
 * every other call on the real console. AsyncLocalStorage follows the component's own async work,
 * and npm packages the component imports log through the same console, so their lines land in the
 * right invocation too.
 */
export function installLogCapture(): void {
  if (installed) return;
  installed = true;
  for (const [method, level] of Object.entries(LEVELS)) {
    const original = (console as unknown as Record<string, (...args: unknown[]) => void>)[method];
    if (typeof original !== 'function') continue;
    const bound = original.bind(console);
    (console as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
      const sink = current.getStore();
      if (!sink) {
        bound(...args);
        return;
      }
      const message = method === 'dir' ? inspect(args[0], { depth: 4 }) : format(...args);
      sink.write(level, message);
    };
  }
}

export function runWithLogSink<T>(sink: LogSink, fn: () => T): T {
  installLogCapture();
  return current.run(sink, fn);
}
