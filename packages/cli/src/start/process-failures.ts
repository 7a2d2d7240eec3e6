import type { Logger } from '@tributary/engine';

/**
 * The server process's policy for errors no code caught (docs/decisions/0013-runs-that-hang.md):
 *
 * - A promise rejection nobody handled is logged at `error` and the server keeps running. Every
 *   background loop (scheduler, runner, deliveries) catches its own failures and retries; a
 *   rejection that still escapes comes from a missed catch on a path that holds no state the
 *   durable queue does not also hold, so exiting would turn one bug into an outage of every source.
 * - An exception nobody caught is logged, then Node's default stands: the process exits with code
 *   1. A synchronous throw may have left any object half-changed; the queue keeps every
 *   acknowledged event and the next start runs it (at least once).
 *
 * Returns the function that removes the handlers (a stopped server in a test process).
 */
export function installProcessFailurePolicy(logger: Logger, target: NodeJS.EventEmitter = process): () => void {
  const onRejection = (reason: unknown): void => {
    logger.error(
      { unhandled: 'rejection' },
      `a promise was rejected and nothing handled it (the server keeps running): ${describe(reason)}`,
    );
  };
  const onException = (error: unknown, origin: string): void => {
    logger.error(
      { unhandled: origin },
      `an exception was not caught; the process exits, queued work runs again at the next start: ${describe(error)}`,
    );
  };
  target.on('unhandledRejection', onRejection);
  target.on('uncaughtExceptionMonitor', onException);
  return () => {
    target.off('unhandledRejection', onRejection);
    target.off('uncaughtExceptionMonitor', onException);
  };
}

function describe(reason: unknown): string {
  if (reason instanceof Error) return reason.stack ?? `${reason.name}: ${reason.message}`;
  return String(reason);
}
