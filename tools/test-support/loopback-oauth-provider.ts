/**
 * A scriptable OAuth provider and API on loopback for the tests of outages, token-endpoint client
 * authentication and "test connection": `/authorize` signs in at once, each token request takes the
 * next scripted answer (a token, an OAuth error, a 503, a dropped connection), and `/whoami` accepts
 * one bearer token or key.
 * oauth2-mock-server (api-oauth.test.ts) covers the sign-in itself; it cannot fail on purpose N times.
 * Server, CLI and browser tests share it.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';

export type TokenAnswer =
  | {
      readonly kind: 'token';
      readonly accessToken: string;
      readonly refreshToken?: string;
      readonly expiresIn?: number;
    }
  | { readonly kind: 'oauth-error'; readonly status: number; readonly error: string }
  | { readonly kind: 'unavailable' }
  | { readonly kind: 'drop' };

export interface TokenRequest {
  readonly form: Record<string, string>;
  readonly authorization: string | undefined;
}

export interface LoopbackProvider {
  readonly url: string;
  /** Answers for the next token requests, in order; when empty, a fresh token. */
  readonly script: TokenAnswer[];
  readonly tokenRequests: TokenRequest[];
  /** The sign-in URLs the browser was sent to. */
  readonly authorizeRequests: URL[];
  /** The bearer token (or `x-api-key`) `/whoami` accepts. */
  accepted: string;
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startLoopbackProvider(): Promise<LoopbackProvider> {
  let issued = 0;
  const provider = {
    url: '',
    script: [] as TokenAnswer[],
    tokenRequests: [] as TokenRequest[],
    authorizeRequests: [] as URL[],
    accepted: '',
    close: async (): Promise<void> => undefined,
  };
  const server: Server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      if (url.pathname === '/whoami') {
        const given = request.headers['x-api-key'] ?? (request.headers.authorization ?? '').replace(/^Bearer /, '');
        const ok = provider.accepted !== '' && given === provider.accepted;
        response.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
        return response.end(JSON.stringify(ok ? { id: 'user-1' } : { message: 'bad credentials' }));
      }
      if (url.pathname === '/authorize') {
        // Signs the user in at once: back to the redirect URI with a code and the state.
        provider.authorizeRequests.push(url);
        const back = new URL(url.searchParams.get('redirect_uri') ?? '');
        back.searchParams.set('code', `code-${provider.authorizeRequests.length}`);
        back.searchParams.set('state', url.searchParams.get('state') ?? '');
        return response.writeHead(302, { location: back.href }).end();
      }
      if (url.pathname !== '/token') return response.writeHead(404).end();
      const form = Object.fromEntries(new URLSearchParams(await readBody(request)));
      provider.tokenRequests.push({ form, authorization: request.headers.authorization });
      const answer = provider.script.shift() ?? { kind: 'token', accessToken: `access-${++issued}` };
      switch (answer.kind) {
        case 'token':
          response.writeHead(200, { 'content-type': 'application/json' });
          return response.end(
            JSON.stringify({
              access_token: answer.accessToken,
              token_type: 'Bearer',
              expires_in: answer.expiresIn ?? 3600,
              ...(answer.refreshToken ? { refresh_token: answer.refreshToken } : {}),
            }),
          );
        case 'oauth-error':
          response.writeHead(answer.status, { 'content-type': 'application/json' });
          return response.end(JSON.stringify({ error: answer.error }));
        case 'unavailable':
          response.writeHead(503, { 'content-type': 'text/html' });
          return response.end('<html>Service Unavailable</html>');
        case 'drop':
          return request.socket.destroy();
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  provider.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  provider.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return provider;
}
