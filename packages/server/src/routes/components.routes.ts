import {
  AppError,
  list,
  PageQuery,
  PublishComponentBody,
  SaveComponentBody,
  SavedComponent,
  single,
} from '@tributary/contracts';
import type { ComponentRow, Engine } from '@tributary/engine';
import { z } from 'zod';
import { pageInfo } from './pagination.js';
import { route, type RouteSpec } from './route-table.js';

export function componentToApi(row: ComponentRow): z.infer<typeof SavedComponent> {
  return {
    id: row.id,
    key: row.key,
    name: row.name,
    version: row.version,
    description: row.description,
    component_type: row.component_type,
    code: row.code,
    code_hash: row.code_hash,
    configurable_props: JSON.parse(row.configurable_props) as Record<string, unknown>[],
    created_at: Math.floor(row.created_at / 1000),
    updated_at: Math.floor(row.updated_at / 1000),
  };
}

/** Saved components and the registry (contract §9.2). */
export function componentRoutes(engine: Engine): RouteSpec[] {
  return [
    route({
      method: 'POST',
      url: '/v1/components',
      tag: 'components',
      summary: 'Save a component from code or a URL (validated in the sandbox)',
      body: SaveComponentBody,
      response: single(SavedComponent),
      handler: async ({ body }) => ({
        data: componentToApi(
          await engine.components.save({
            ...(body.component_code ? { code: body.component_code } : {}),
            ...(body.component_url ? { url: body.component_url } : {}),
          }),
        ),
      }),
    }),
    route({
      method: 'GET',
      url: '/v1/users/me/components',
      tag: 'components',
      summary: 'List saved components, newest first',
      query: PageQuery,
      response: list(SavedComponent),
      handler: async ({ query }) => {
        const { rows, total } = await engine.components.listSaved({
          limit: query.limit,
          ...(query.after ? { after: query.after } : {}),
          ...(query.before ? { before: query.before } : {}),
        });
        return { page_info: pageInfo(rows, total), data: rows.map(componentToApi) };
      },
    }),
    route({
      method: 'GET',
      url: '/v1/components/registry',
      tag: 'registry',
      summary: 'List the published components',
      response: list(SavedComponent),
      handler: async () => {
        const rows = await engine.components.listPublished();
        return { page_info: pageInfo(rows, rows.length), data: rows.map(componentToApi) };
      },
    }),
    route({
      method: 'GET',
      url: '/v1/components/registry/:key',
      tag: 'registry',
      summary: 'Get a published component by key',
      response: single(SavedComponent),
      handler: async ({ params }) => {
        const row = await engine.components.findPublished(params['key'] ?? '');
        if (!row) throw notFound(`nothing is published under "${params['key']}"`);
        return { data: componentToApi(row) };
      },
    }),
    route({
      method: 'GET',
      url: '/v1/components/:id',
      tag: 'components',
      summary: 'Get a saved component by sc_ id or key',
      response: single(SavedComponent),
      handler: async ({ params }) => ({ data: componentToApi(await engine.components.get(params['id'] ?? '')) }),
    }),
    route({
      method: 'PUT',
      url: '/v1/components/:key',
      tag: 'registry',
      summary:
        'Publish a component to the registry under its key (semver required; same version with other code is 409)',
      body: PublishComponentBody,
      response: single(SavedComponent),
      alsoStatus: [201],
      handler: async ({ params, body, reply }) => {
        const { row, created } = await engine.components.publish(params['key'] ?? '', {
          ...(body.component_code ? { code: body.component_code } : {}),
          ...(body.component_url ? { url: body.component_url } : {}),
        });
        if (created) void reply.status(201);
        return { data: componentToApi(row) };
      },
    }),
    route({
      method: 'DELETE',
      url: '/v1/components/:key',
      tag: 'registry',
      summary: 'Unpublish a component',
      response: z.object({}),
      handler: async ({ params }) => {
        await engine.components.unpublish(params['key'] ?? '');
        return {};
      },
    }),
  ];
}

function notFound(message: string): AppError {
  return new AppError('NOT_FOUND', message);
}
