import { AppError } from '@tributary/contracts';
import type { Engine } from '@tributary/engine';
import type { FastifyRequest } from 'fastify';
// The request.cookies / reply.setCookie types come from this plugin's augmentation of 'fastify'.
import type {} from '@fastify/cookie';

/** The HttpOnly cookie holding a browser's session token (docs/rest-api.md#browser-sessions). */
export const SESSION_COOKIE = 'tributary_session';

/**
 * CSRF defence for cookie-authenticated requests: a state-changing request that relies on the
 * session cookie must carry this header (any value). A page on another site cannot set a custom
 * header without a CORS preflight, which this server never approves; an HTML form cannot set one
 * at all. Requests with an API key in `Authorization` need no such header: no browser adds that
 * header by itself. The cookie is also `SameSite=Strict`, so this is a second line, not the only one.
 */
export const CSRF_HEADER = 'x-tributary-client';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Who a request is from: an API key in a header or query, or a browser session cookie. */
export type Credential =
  | { readonly kind: 'api_key'; readonly keyId: string }
  | { readonly kind: 'session'; readonly token: string; readonly sessionId: string };

/** Refuses a state-changing request that lacks the CSRF header. */
export function requireCsrfHeader(request: FastifyRequest): void {
  const value = request.headers[CSRF_HEADER];
  if (typeof value !== 'string' || value === '')
    throw new AppError(
      'CSRF_HEADER_MISSING',
      `a ${request.method} request signed in with the session cookie must send the ${CSRF_HEADER} header`,
      { field: CSRF_HEADER },
    );
}

export function sessionToken(request: FastifyRequest): string | null {
  const token = request.cookies[SESSION_COOKIE];
  return typeof token === 'string' && token !== '' ? token : null;
}

/**
 * Checks who sent a request: `Authorization: Bearer <key>`, or (for SSE opened by other clients)
 * `?token=<key>`, or the browser session cookie. Throws UNAUTHORIZED otherwise, and
 * CSRF_HEADER_MISSING for a state-changing cookie request without the CSRF header.
 */
export async function authenticate(
  engine: Engine,
  request: FastifyRequest,
  options: { readonly allowQueryToken: boolean },
): Promise<Credential> {
  const header = request.headers.authorization;
  let key: string | null = null;
  if (typeof header === 'string' && /^Bearer\s+\S+$/i.test(header)) key = header.replace(/^Bearer\s+/i, '').trim();
  if (!key && options.allowQueryToken) {
    const token = (request.query as Record<string, unknown> | undefined)?.['token'];
    if (typeof token === 'string' && token !== '') key = token;
  }
  if (key) {
    const record = await engine.apiKeys.verify(key);
    if (!record) throw new AppError('UNAUTHORIZED', 'the API key is not valid');
    return { kind: 'api_key', keyId: record.id };
  }
  const token = sessionToken(request);
  if (!token)
    throw new AppError(
      'UNAUTHORIZED',
      'an API key is required: send Authorization: Bearer <key>, or sign in to the web app',
    );
  const session = await engine.browserSessions.verify(token);
  if (!session)
    throw new AppError(
      'UNAUTHORIZED',
      'the session has ended (signed out, expired or its API key revoked): sign in again',
    );
  if (!SAFE_METHODS.has(request.method)) requireCsrfHeader(request);
  return { kind: 'session', token, sessionId: session.id };
}
