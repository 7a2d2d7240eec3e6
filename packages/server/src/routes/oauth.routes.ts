import { ConnectAttempt, OAuthClient, PutOAuthClientBody, single, StartConnectBody } from '@tributary/contracts';
import type { Engine } from '@tributary/engine';
import { z } from 'zod';
import { route, type RouteSpec } from './route-table.js';

/** OAuth clients of apps and connect attempts (docs/accounts.md#connect-through-oauth); the browser pages are in oauth-pages.ts. */
export function oauthRoutes(engine: Engine): RouteSpec[] {
  return [
    route({
      method: 'PUT',
      url: '/v1/apps/:slug/oauth-client',
      tag: 'apps',
      summary: "Set an app's OAuth client id and secret (the secret is sealed and never returned)",
      body: PutOAuthClientBody,
      response: single(OAuthClient),
      handler: async ({ params, body }) => {
        const app = await engine.apps.get(params['slug'] ?? '');
        return { data: await engine.oauthClients.put(app.slug, body) };
      },
    }),
    route({
      method: 'GET',
      url: '/v1/apps/:slug/oauth-client',
      tag: 'apps',
      summary: "An app's OAuth client: id, scopes, where it was set, and the redirect URI to register",
      response: single(OAuthClient),
      handler: async ({ params }) => ({ data: await engine.oauthClients.get(params['slug'] ?? '') }),
    }),
    route({
      method: 'DELETE',
      url: '/v1/apps/:slug/oauth-client',
      tag: 'apps',
      summary: "Remove an app's OAuth client set through the API",
      response: single(z.object({ app: z.string() })),
      handler: async ({ params }) => {
        await engine.oauthClients.remove(params['slug'] ?? '');
        return { data: { app: params['slug'] ?? '' } };
      },
    }),
    route({
      method: 'POST',
      url: '/v1/oauth/connect',
      tag: 'accounts',
      summary:
        'Start connecting an account through OAuth: open start_url in a browser, then poll the attempt (client-credentials apps connect at once)',
      body: StartConnectBody,
      response: single(ConnectAttempt),
      status: 201,
      handler: async ({ body }) => {
        const { attempt } = await engine.oauth.start({
          app: body.app,
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.account !== undefined ? { account: body.account } : {}),
        });
        return { data: attempt };
      },
    }),
    route({
      method: 'GET',
      url: '/v1/oauth/connect/:state',
      tag: 'accounts',
      summary: 'A connect attempt: pending, connected (with its account) or failed (with the error)',
      response: single(ConnectAttempt),
      handler: async ({ params }) => ({ data: await engine.oauth.status(params['state'] ?? '') }),
    }),
  ];
}
