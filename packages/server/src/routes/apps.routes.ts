import { App, list, PutAppBody, single } from '@tributary/contracts';
import type { Engine } from '@tributary/engine';
import { pageInfo } from './pagination.js';
import { route, type RouteSpec } from './route-table.js';

/** The app catalog (docs/accounts.md): built-in entries and the operator's. */
export function appRoutes(engine: Engine): RouteSpec[] {
  return [
    route({
      method: 'GET',
      url: '/v1/apps',
      tag: 'apps',
      summary: 'List the app catalog: each app with its auth type and the fields an account of it holds',
      response: list(App),
      handler: async () => {
        const apps = await engine.apps.list();
        return {
          page_info: pageInfo(
            apps.map((app) => ({ id: app.slug })),
            apps.length,
          ),
          data: apps,
        };
      },
    }),
    route({
      method: 'GET',
      url: '/v1/apps/:slug',
      tag: 'apps',
      summary: 'Get one app of the catalog',
      response: single(App),
      handler: async ({ params }) => ({ data: await engine.apps.get(params['slug'] ?? '') }),
    }),
    route({
      method: 'PUT',
      url: '/v1/apps/:slug',
      tag: 'apps',
      summary: 'Add an app to the catalog, or replace its entry (201 when new)',
      body: PutAppBody,
      response: single(App),
      alsoStatus: [201],
      handler: async ({ params, body, reply }) => {
        const { app, created } = await engine.apps.put(params['slug'] ?? '', body);
        if (created) void reply.status(201);
        return { data: app };
      },
    }),
  ];
}
