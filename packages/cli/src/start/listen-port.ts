import { createServer, type AddressInfo } from 'node:net';
import { AppError } from '@tributary/contracts/errors';

/**
 * The port `start` listens on, checked before anything is created. Port 0 means "any free port",
 * but endpoint URLs are built before the server listens (the engine needs them to deploy), so the
 * free port is chosen here first and the URLs carry the real one. A fixed port is probed the same
 * way, so a busy one is refused with a usage error before the data directory, the database or an
 * admin key exist. Another process could take the port in between; `listen` then fails the same way
 * (see `portInUse`).
 */
export function resolveListenPort(port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? portInUse(port, host) : error),
    );
    probe.listen(port, host, () => {
      const { port: free } = probe.address() as AddressInfo;
      probe.close(() => resolve(free));
    });
  });
}

/** The usage error for a port another process holds, naming the settings that choose another. */
export function portInUse(port: number, host: string): AppError {
  return new AppError(
    'USAGE_ERROR',
    `port ${port} on ${host} is in use by another process; choose another with --port N or TRIBUTARY_PORT (0 picks a free one)`,
    { field: '--port' },
  );
}
