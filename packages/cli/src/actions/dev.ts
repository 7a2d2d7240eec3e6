import path from 'node:path';
import { AppError } from '@tributary/contracts/errors';
import { DevPrinter } from '../dev/dev-printer.js';
import { DevSession } from '../dev/dev-session.js';
import { EXIT_OK } from '../exit-codes.js';
import { createSandbox } from '../local/create-sandbox.js';
import { LocalInstance } from '../local/local-instance.js';
import type { Output } from '../ui/output.js';
import { reportFailure } from '../ui/report-error.js';
import { DEFAULT_DEV_PORT, type DevCommandOptions } from '../commands/dev.js';
import { parseCount, parseSeconds } from './flag-values.js';
import { devAttach } from '../remote/dev-attach.js';
import { runRemote } from './remote-command.js';

export async function runDevAttached(
  file: string,
  options: DevCommandOptions,
  output: Output,
  signal?: AbortSignal,
): Promise<number> {
  return runRemote(options, output, (client) =>
    devAttach({
      client,
      output,
      sourceRef: options.dc ?? '',
      file,
      flags: options,
      json: options.json === true,
      ...(signal ? { signal } : {}),
    }),
  );
}

export async function runDev(
  file: string,
  options: DevCommandOptions,
  output: Output,
  signal?: AbortSignal,
): Promise<number> {
  const json = options.json === true;
  const sandbox = createSandbox(output);
  try {
    const stem = path.basename(file).replace(/\.[^.]+$/, '');
    const stateDir = path.resolve(options.state ?? path.join('.tributary-dev', stem));
    const port = parseCount(options.port ?? String(DEFAULT_DEV_PORT), '--port');
    const host = options.host ?? '127.0.0.1';
    const instance = await LocalInstance.create({
      file,
      flags: options,
      stateDir,
      endpointBase: `http://${host}:${port}`,
      sandbox,
      ...(options.timeout ? { timeoutMs: parseSeconds(options.timeout, '--timeout') } : {}),
    });
    if (instance.component.type !== 'source') {
      throw new AppError(
        'USAGE_ERROR',
        `${file} is an action; dev runs sources. Run an action with: tributary run ${file}`,
      );
    }
    const session = new DevSession({
      instance,
      sandbox,
      file,
      stateDir,
      host,
      port,
      printer: new DevPrinter(output, json),
    });
    // Listen for Ctrl+C before anything is printed, so a stop right after "ready" is never lost.
    const stopRequested = new Promise<void>((resolve) => {
      const finish = (): void => resolve();
      process.once('SIGINT', finish);
      process.once('SIGTERM', finish);
      signal?.addEventListener('abort', finish, { once: true });
    });
    try {
      await session.start();
    } catch (error) {
      await session.stop();
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
        throw new AppError('USAGE_ERROR', `port ${port} is in use; pick another with --port (0 picks a free one)`, {
          field: '--port',
        });
      }
      throw error;
    }
    await stopRequested;
    await session.stop();
    return EXIT_OK;
  } catch (error) {
    return reportFailure(output, error, { json });
  } finally {
    await sandbox.close();
  }
}
