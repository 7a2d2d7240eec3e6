/**
 * The OAuth sign-in as the tests drive it without a browser window, and the one OAuth app they
 * declare. Both OAuth providers on loopback (oauth2-mock-server and loopback-oauth-provider.ts)
 * sign the user in at once, so following the redirects is the whole sign-in.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * What a browser does with a server's OAuth start URL: keep the server's cookie, go to the
 * provider, come back to the server's callback with the cookie. Resolves with the callback's status.
 */
export async function followOAuthSignIn(startUrl: string): Promise<number> {
  const start = await fetch(startUrl, { redirect: 'manual' });
  const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const atProvider = await fetch(start.headers.get('location') ?? '', { redirect: 'manual' });
  const back = await fetch(atProvider.headers.get('location') ?? '', { headers: { cookie } });
  return back.status;
}

export interface MockIdpEndpoints {
  readonly authorize_url: string;
  readonly token_url: string;
  readonly userinfo_url?: string;
}

/**
 * Writes an apps file (TRIBUTARY_APPS_FILE) declaring the OAuth app `mockidp` ("Mock IdP") at the
 * given provider endpoints, and returns the environment that points a server at it, signing in as
 * the OAuth client `client`.
 */
export function mockIdpServerEnv(
  dir: string,
  endpoints: MockIdpEndpoints,
  client: { readonly id: string; readonly secret: string },
): Record<string, string> {
  const appsFile = path.join(dir, 'apps.json');
  writeFileSync(
    appsFile,
    JSON.stringify({
      apps: [{ slug: 'mockidp', name: 'Mock IdP', auth_type: 'oauth2', fields: [], oauth: endpoints }],
    }),
  );
  return {
    TRIBUTARY_APPS_FILE: appsFile,
    TRIBUTARY_OAUTH_MOCKIDP_CLIENT_ID: client.id,
    TRIBUTARY_OAUTH_MOCKIDP_CLIENT_SECRET: client.secret,
  };
}
