import { AppError, BrowserSessionInfo, CreateSessionBody, single } from '@tributary/contracts';
import type { BrowserSession, Engine } from '@tributary/engine';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { requireCsrfHeader, SESSION_COOKIE, sessionToken } from '../http/auth.js';
import { route, type RouteSpec } from './route-table.js';
// The request.cookies / reply.setCookie types come from this plugin's augmentation of 'fastify'.
import type {} from '@fastify/cookie';

const toApi = (session: BrowserSession): z.infer<typeof BrowserSessionInfo> => ({
  api_key: session.apiKey,
  expires_at: Math.floor(session.expiresAt / 1000),
});

/**
 * Strict: the web app and the API share one origin, so the cookie is never needed on a request
 * another site starts; a link from elsewhere loads the (public) page, whose own fetches are same-site.
 * Secure whenever the request came over HTTPS (directly or, with trustProxy, via a proxy).
 */
function cookieOptions(request: FastifyRequest) {
  return { path: '/', httpOnly: true, sameSite: 'strict', secure: request.protocol === 'https' } as const;
}

function clearCookie(request: FastifyRequest, reply: FastifyReply): void {
  void reply.clearCookie(SESSION_COOKIE, cookieOptions(request));
}

/** Browser sign-in (docs/rest-api.md#browser-sessions): trade an API key for an HttpOnly session cookie. */
export function sessionRoutes(engine: Engine): RouteSpec[] {
  return [
    route({
      method: 'POST',
      url: '/v1/session',
      tag: 'session',
      summary: 'Sign a browser in: sets the HttpOnly session cookie for a valid API key (send X-Tributary-Client)',
      body: CreateSessionBody,
      response: single(BrowserSessionInfo),
      status: 201,
      public: true,
      handler: async ({ body, request, reply }) => {
        requireCsrfHeader(request);
        const created = await engine.browserSessions.create(body.api_key);
        if (!created) throw new AppError('UNAUTHORIZED', 'the API key is not valid', { field: 'api_key' });
        const maxAge = Math.floor((created.session.expiresAt - created.session.createdAt) / 1000);
        void reply.setCookie(SESSION_COOKIE, created.token, { ...cookieOptions(request), maxAge });
        return { data: toApi(created.session) };
      },
    }),
    route({
      method: 'GET',
      url: '/v1/session',
      tag: 'session',
      summary: "This browser's session: the API key it stands for and when it ends; 401 when signed out",
      response: single(BrowserSessionInfo),
      public: true,
      handler: async ({ request, reply }) => {
        const token = sessionToken(request);
        const session = token ? await engine.browserSessions.verify(token) : null;
        if (!session) {
          // A stale cookie would be sent on every request for nothing.
          if (token) clearCookie(request, reply);
          throw new AppError('UNAUTHORIZED', 'this browser is not signed in');
        }
        return { data: toApi(session) };
      },
    }),
    route({
      method: 'DELETE',
      url: '/v1/session',
      tag: 'session',
      summary: 'Sign a browser out: ends its session for good and clears the cookie (send X-Tributary-Client)',
      response: z.object({}),
      public: true,
      handler: async ({ request, reply }) => {
        requireCsrfHeader(request);
        const token = sessionToken(request);
        if (token) await engine.browserSessions.revoke(token);
        clearCookie(request, reply);
        return {};
      },
    }),
  ];
}
