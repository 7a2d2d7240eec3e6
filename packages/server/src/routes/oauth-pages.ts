import { AppError, ERROR_CODES, isAppError } from '@tributary/contracts';
import { bindingCookieName, type Engine } from '@tributary/engine';
import type { FastifyInstance, FastifyReply } from 'fastify';

/**
 * The two browser pages of an OAuth sign-in; no API key, since a browser coming back from a provider
 * has none. `/v1/oauth/start` proves it was opened from the connect answer (its `binding`) and
 * leaves a cookie; `/v1/oauth/callback` accepts the provider's redirect only with that cookie.
 */
export function registerOAuthPages(app: FastifyInstance, engine: Engine): void {
  app.get('/v1/oauth/start', async (request, reply) => {
    const query = request.query as Record<string, string | undefined>;
    const state = query['state'] ?? '';
    try {
      const target = await engine.oauth.begin(state, query['binding'] ?? '');
      void reply.header(
        'set-cookie',
        `${bindingCookieName(state)}=${query['binding'] ?? ''}; Path=/v1/oauth/callback; HttpOnly; SameSite=Lax; Max-Age=600`,
      );
      return reply.redirect(target, 302);
    } catch (error) {
      return page(reply, failure(error));
    }
  });
  app.get('/v1/oauth/callback', async (request, reply) => {
    const url = new URL(request.url, 'http://callback.invalid');
    const cookies = parseCookies(request.headers.cookie);
    try {
      const attempt = await engine.oauth.complete(url.searchParams, (name) => cookies.get(name));
      return page(reply, {
        status: 200,
        title: 'Account connected',
        body: `Account ${attempt.account ?? ''} of app ${attempt.app} is connected. You can close this tab and return to Tributary.`,
        code: null,
      });
    } catch (error) {
      return page(reply, failure(error));
    }
  });
}

interface Page {
  readonly status: number;
  readonly title: string;
  readonly body: string;
  readonly code: string | null;
}

function failure(error: unknown): Page {
  const known = isAppError(error) ? error : new AppError('INTERNAL', (error as Error).message);
  return {
    status: ERROR_CODES[known.code].status,
    title: 'Connecting the account failed',
    body: known.message,
    code: known.code,
  };
}

const escape = (text: string): string => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

function page(reply: FastifyReply, content: Page): FastifyReply {
  const code = content.code ? `<p><code data-testid="oauth-error-code">${escape(content.code)}</code></p>` : '';
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(content.title)} · Tributary</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#1a1a1a}h1{font-size:1.4rem}code{background:#f2f2f2;padding:.1rem .3rem}</style></head>
<body><main><h1 data-testid="oauth-result">${escape(content.title)}</h1>${code}<p data-testid="oauth-message">${escape(content.body)}</p></main></body></html>`;
  return reply
    .status(content.status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .send(html);
}

function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0) cookies.set(part.slice(0, at).trim(), part.slice(at + 1).trim());
  }
  return cookies;
}
