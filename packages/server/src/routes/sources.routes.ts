import {
  DeleteEventsQuery,
  DeleteSourceQuery,
  DeploySourceBody,
  DeployedSource,
  EventSummary,
  EventsQuery,
  Invocation,
  list,
  LogEntry,
  PageQuery,
  RunSourceBody,
  single,
  UpdateSourceBody,
  User,
} from '@tributary/contracts';
import { OWNER_ID, type Engine, type EventRecord } from '@tributary/engine';
import { z } from 'zod';
import { decodeCursor, encodeCursor, pageInfo } from './pagination.js';
import { route, type RouteSpec } from './route-table.js';

const SUMMARY_EVENT_BYTES = 1024;

/** An event summary; events over 1 KB are cut unless `expand=event` (contract §9.2). */
function summary(record: EventRecord, expand: boolean): z.infer<typeof EventSummary> & { truncated?: boolean } {
  if (expand) return record;
  const text = JSON.stringify(record.event) ?? 'null';
  if (text.length <= SUMMARY_EVENT_BYTES) return record;
  return { ...record, event: `${text.slice(0, SUMMARY_EVENT_BYTES)}…`, truncated: true };
}

/** Deployed sources, RUN NOW, the event bin and logs (contract §9.2). */
export function sourceRoutes(engine: Engine): RouteSpec[] {
  const sources = engine.sources;
  const component = (body: {
    component_id?: string | undefined;
    component_code?: string | undefined;
    component_key?: string | undefined;
    component_url?: string | undefined;
  }) => ({
    ...(body.component_id !== undefined ? { componentId: body.component_id } : {}),
    ...(body.component_code !== undefined ? { componentCode: body.component_code } : {}),
    ...(body.component_key !== undefined ? { componentKey: body.component_key } : {}),
    ...(body.component_url !== undefined ? { componentUrl: body.component_url } : {}),
  });
  return [
    route({
      method: 'GET',
      url: '/v1/users/me',
      tag: 'users',
      summary: 'The account of the API key',
      response: single(User),
      handler: () => Promise.resolve({ data: { id: OWNER_ID, username: 'admin', email: null } }),
    }),
    route({
      method: 'GET',
      url: '/v1/users/me/sources',
      tag: 'sources',
      summary: 'List deployed sources',
      query: PageQuery,
      response: list(DeployedSource),
      handler: async ({ query }) => {
        const { rows, total } = await sources.list({
          limit: query.limit,
          ...(query.after ? { after: decodeCursor(query.after) } : {}),
          ...(query.before ? { before: decodeCursor(query.before) } : {}),
        });
        return {
          page_info: pageInfo(rows, total, encodeCursor),
          data: await Promise.all(rows.map((row) => sources.toApi(row))),
        };
      },
    }),
    route({
      method: 'POST',
      url: '/v1/sources',
      tag: 'sources',
      summary: 'Deploy a source: create it, run its deploy and activate hooks',
      body: DeploySourceBody,
      response: single(DeployedSource),
      handler: async ({ body }) => {
        const row = await sources.deploy({
          ...component(body),
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.configured_props !== undefined ? { configuredProps: body.configured_props } : {}),
        });
        return { data: await sources.toApi(row) };
      },
    }),
    route({
      method: 'GET',
      url: '/v1/sources/:id',
      tag: 'sources',
      summary: 'Get a source by dc_ id, name slug or name',
      response: single(DeployedSource),
      handler: async ({ params }) => ({ data: await sources.toApi(await sources.resolve(params['id'] ?? '')) }),
    }),
    route({
      method: 'PUT',
      url: '/v1/sources/:id',
      tag: 'sources',
      summary: 'Update code, props, name or active (deactivate, apply, activate; same id)',
      body: UpdateSourceBody,
      response: single(DeployedSource),
      handler: async ({ params, body }) => {
        const row = await sources.update(params['id'] ?? '', {
          ...component(body),
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.active !== undefined ? { active: body.active } : {}),
          ...(body.configured_props !== undefined ? { configuredProps: body.configured_props } : {}),
        });
        return { data: await sources.toApi(row) };
      },
    }),
    route({
      method: 'DELETE',
      url: '/v1/sources/:id',
      tag: 'sources',
      summary: 'Delete a source (deactivate, then remove it with its events, logs and state)',
      query: DeleteSourceQuery,
      response: z.object({}),
      handler: async ({ params, query }) => {
        await sources.remove(params['id'] ?? '', { force: query.force === 'true' });
        return {};
      },
    }),
    route({
      method: 'POST',
      url: '/v1/sources/:id/run',
      tag: 'sources',
      summary: 'RUN NOW: queue an invocation with an optional event',
      body: RunSourceBody,
      response: single(Invocation),
      status: 202,
      handler: async ({ params, body }) => {
        const source = await sources.resolve(params['id'] ?? '');
        const event = body.event !== undefined ? body.event : sources.defaultEvent(source);
        return {
          data: { invocation_id: await engine.runner.enqueue({ sourceId: source.id, trigger: 'manual', event }) },
        };
      },
    }),
    route({
      method: 'GET',
      url: '/v1/sources/:id/event_summaries',
      tag: 'events',
      summary: 'The event bin: the last 100 events, newest first',
      query: EventsQuery,
      response: list(EventSummary),
      handler: async ({ params, query }) => {
        const source = await sources.resolve(params['id'] ?? '');
        const page = await engine.events.list(source.id, {
          limit: query.limit,
          ...(query.before ? { before: query.before } : {}),
          ...(query.after ? { after: query.after } : {}),
        });
        return {
          page_info: pageInfo(page.data, page.total),
          data: page.data.map((record) => summary(record, query.expand === 'event')),
        };
      },
    }),
    route({
      method: 'DELETE',
      url: '/v1/sources/:id/events',
      tag: 'events',
      summary: 'Delete events of the bin (all, or start_id..end_id inclusive)',
      query: DeleteEventsQuery,
      response: z.object({}),
      status: 202,
      handler: async ({ params, query }) => {
        const source = await sources.resolve(params['id'] ?? '');
        await engine.events.delete(source.id, {
          ...(query.start_id ? { startId: query.start_id } : {}),
          ...(query.end_id ? { endId: query.end_id } : {}),
        });
        return {};
      },
    }),
    route({
      method: 'GET',
      url: '/v1/sources/:id/logs',
      tag: 'logs',
      summary: 'The last 100 log entries, newest first (errors with stack traces)',
      query: PageQuery,
      response: list(LogEntry),
      handler: async ({ params, query }) => {
        const source = await sources.resolve(params['id'] ?? '');
        const page = await engine.events.logs(source.id, {
          limit: query.limit,
          ...(query.before ? { before: query.before } : {}),
          ...(query.after ? { after: query.after } : {}),
        });
        return { page_info: pageInfo(page.data, page.total), data: page.data };
      },
    }),
  ];
}
