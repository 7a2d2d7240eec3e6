import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * Paths that belong to the API, ingress and streams: never answered with the web app, so a typo in
 * an API path stays a JSON 404 instead of an HTML page. (`/sources/{id}/events` is a UI route while
 * `/sources/{id}/sse` is a stream; the stream routes are registered, so they win before this.)
 */
const SERVER_PATHS = [/^\/v1(\/|$)/, /^\/e(\/|$)/, /^\/sse(\/|$)/, /^\/healthz$/, /^\/sources\/[^/]+\/(logs\/)?sse$/];

export const NOT_BUILT_MESSAGE = 'the web app is not built: run npm run build\n';

/**
 * Serves the built web app (apps/web/dist) at `/`: its files as they are, and `index.html` for any
 * other GET that accepts HTML (client-side routes such as `/sources/dc_x/events`). When the folder
 * has no index.html yet, those requests get a 503 saying how to build it; the API works either way.
 */
export async function registerWebApp(app: FastifyInstance, webDir: string): Promise<void> {
  const root = path.resolve(webDir);
  // `serve: false`: only reply.sendFile (safe path resolution, ranges, ETags); routing is ours.
  await app.register(fastifyStatic, { root, serve: false, cacheControl: false });
  const index = path.join(root, 'index.html');

  app.get('/*', async (request: FastifyRequest, reply: FastifyReply) => {
    const pathname = request.url.split('?')[0] ?? '/';
    if (SERVER_PATHS.some((pattern) => pattern.test(pathname))) return reply.callNotFound();
    if (!existsSync(index)) {
      return reply
        .status(503)
        .type('text/plain; charset=utf-8')
        .header('cache-control', 'no-store')
        .send(NOT_BUILT_MESSAGE);
    }
    const file = fileUnder(root, pathname);
    if (file !== null) {
      // Vite names built assets by content hash, so they never change; everything else may.
      void reply.header(
        'cache-control',
        pathname.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
      );
      return reply.sendFile(file);
    }
    if (!acceptsHtml(request)) return reply.callNotFound();
    void reply.header('cache-control', 'no-cache');
    return reply.sendFile('index.html');
  });
}

/** The file a URL path names inside root, relative to it, or null (missing, a folder, or outside root). */
function fileUnder(root: string, pathname: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  const full = path.resolve(root, `.${decoded}`);
  if (full !== root && !full.startsWith(`${root}${path.sep}`)) return null;
  try {
    return statSync(full).isFile() ? path.relative(root, full) : null;
  } catch {
    return null;
  }
}

function acceptsHtml(request: FastifyRequest): boolean {
  const accept = request.headers.accept;
  return typeof accept === 'string' && accept.includes('text/html');
}
