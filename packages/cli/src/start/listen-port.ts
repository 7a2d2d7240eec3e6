import { createServer, type AddressInfo } from 'node:net';

/**
 * The port `start` listens on. Port 0 means "any free port", but endpoint URLs are built before
 * the server listens (the engine needs them to deploy), so the free port is chosen here first and
 * the URLs carry the real one. Another process could take it in between; listen then fails with
 * EADDRINUSE, as for any fixed port.
 */
export function resolveListenPort(port: number, host: string): Promise<number> {
  if (port !== 0) return Promise.resolve(port);
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const { port: free } = probe.address() as AddressInfo;
      probe.close(() => resolve(free));
    });
  });
}
