/**
 * A tiny npm registry on loopback for registry-import tests: it serves packuments and tarballs
 * (made with packFixturePackage) the way the public registry does, so `outdated` and `upgrade`
 * are tested without the network. Versions can be added while it runs (a new release).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoopbackRegistry {
  /** `http://127.0.0.1:PORT/` */
  readonly url: string;
  /**
   * Publishes a tarball as `name@version`; the newest published is `latest`. `manifest` adds
   * fields to the version's packument entry (`engines`, say), which npm reads before the tarball.
   */
  publish(name: string, version: string, tarball: string, manifest?: Readonly<Record<string, unknown>>): void;
  /**
   * Holds every tarball download until the returned function is called: an install then stays
   * in progress for as long as a test needs to watch it, with no sleep.
   */
  hold(): () => void;
  close(): Promise<void>;
}

export async function startLoopbackRegistry(): Promise<LoopbackRegistry> {
  const packages = new Map<string, Map<string, Buffer>>();
  const manifests = new Map<string, Readonly<Record<string, unknown>>>();
  let url = '';
  let held: (() => void)[] | null = null;
  const serve = (request: IncomingMessage, response: ServerResponse): void => {
    const pathname = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname).slice(1);
    const tarball = /^(.+)\/-\/(.+)\.tgz$/.exec(pathname);
    if (tarball) {
      const [, name = '', file = ''] = tarball;
      const version = file.slice(file.lastIndexOf('-') + 1);
      const body = packages.get(name)?.get(version);
      if (!body) return void response.writeHead(404).end('{}');
      return void response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(body);
    }
    const versions = packages.get(pathname);
    if (!versions)
      return void response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}');
    const sorted = [...versions.keys()];
    const packument = {
      name: pathname,
      'dist-tags': { latest: sorted[sorted.length - 1] },
      versions: Object.fromEntries(
        [...versions.entries()].map(([version, body]) => [
          version,
          {
            ...manifests.get(`${pathname}@${version}`),
            name: pathname,
            version,
            dist: {
              tarball: `${url}${pathname}/-/${pathname.split('/').pop()}-${version}.tgz`,
              integrity: `sha512-${createHash('sha512').update(body).digest('base64')}`,
            },
          },
        ]),
      ),
    };
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(packument));
  };
  const server: Server = createServer((request, response) => {
    if (held !== null && request.url?.endsWith('.tgz')) held.push(() => serve(request, response));
    else serve(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    url,
    publish(name, version, file, manifest) {
      if (manifest) manifests.set(`${name}@${version}`, manifest);
      const versions = packages.get(name) ?? new Map<string, Buffer>();
      versions.set(version, readFileSync(file));
      packages.set(name, versions);
    },
    hold() {
      const waiting: (() => void)[] = [];
      held = waiting;
      return () => {
        if (held === waiting) held = null;
        for (const resume of waiting.splice(0)) resume();
      };
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
