import { ErrorBody } from '@tributary/contracts';
import { z } from 'zod';
import type { RouteSpec } from './route-table.js';

/** Requests are described as a client writes them (`input`), responses as the server sends them (`output`). */
const jsonSchema = (schema: z.ZodType, io: 'input' | 'output' = 'input'): Record<string, unknown> => {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  void _ignored;
  return rest;
};

const STATUS_TEXT: Record<number, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted' };

/**
 * The OpenAPI 3.1 document of the API, built from the route table: the schemas here are the ones
 * that validate requests, so the document and the server cannot disagree.
 */
export function buildOpenApi(routes: readonly RouteSpec[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const error = { description: 'Error', content: { 'application/json': { schema: jsonSchema(ErrorBody, 'output') } } };
  for (const spec of routes) {
    // Fastify's trailing wildcard (an npm name with its scope: @scope/name) is the path parameter `name`.
    const path = spec.url.replace(/:(\w+)/g, '{$1}').replace(/\/\*$/, '/{name}');
    const pathParams = [...path.matchAll(/\{(\w+)\}/g)].map((match) => ({
      name: match[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    const querySchema = spec.query ? jsonSchema(spec.query) : null;
    const properties = (querySchema?.['properties'] ?? {}) as Record<string, unknown>;
    const required = new Set((querySchema?.['required'] as string[] | undefined) ?? []);
    const queryParams = Object.entries(properties).map(([name, schema]) => ({
      name,
      in: 'query',
      required: required.has(name),
      schema,
    }));
    const body = { 'application/json': { schema: jsonSchema(spec.response, 'output') } };
    const success = (status: number): Record<string, unknown> =>
      status === 204 ? { description: 'No content' } : { description: STATUS_TEXT[status] ?? 'OK', content: body };
    paths[path] ??= {};
    paths[path][spec.method.toLowerCase()] = {
      summary: spec.summary,
      tags: [spec.tag],
      security: spec.public ? [] : [{ bearer: [] }, { session: [] }],
      parameters: [...pathParams, ...queryParams],
      ...(spec.body
        ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(spec.body) } } } }
        : {}),
      responses: {
        ...Object.fromEntries(
          [spec.status ?? 200, ...(spec.alsoStatus ?? [])].map((status) => [String(status), success(status)]),
        ),
        '400': error,
        '401': error,
        '404': error,
      },
    };
  }
  paths['/sources/{id}/sse'] = {
    get: {
      summary: "Server-sent events of a source's new events (id = event id; Last-Event-ID resumes from the event bin)",
      tags: ['sse'],
      security: [{ bearer: [] }, { token: [] }, { session: [] }],
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      responses: { '200': { description: 'text/event-stream' }, '401': error, '404': error },
    },
  };
  paths['/sources/{id}/logs/sse'] = {
    get: {
      summary: "Server-sent events of a source's log entries",
      tags: ['sse'],
      security: [{ bearer: [] }, { token: [] }, { session: [] }],
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      responses: { '200': { description: 'text/event-stream' }, '401': error, '404': error },
    },
  };
  paths['/v1/sse/{channel}'] = {
    get: {
      summary:
        'Server-sent events of a $.send.sse channel (event: <channel>; the last 100 messages replayed on connect)',
      tags: ['sse'],
      security: [{ bearer: [] }, { token: [] }, { session: [] }],
      parameters: [{ name: 'channel', in: 'path', required: true, schema: { type: 'string' } }],
      responses: { '200': { description: 'text/event-stream' }, '400': error, '401': error },
    },
  };
  paths['/v1/installs/sse'] = {
    get: {
      summary:
        'Server-sent events of the npm installs this server runs for components (event: install; data { phase: installing, installed, cached or failed, packages, duration_ms?, code?, message? }): those of requests that sent X-Tributary-Progress equal to `progress`, else those of requests signed in with the same key or browser session; nothing is replayed',
      tags: ['sse'],
      security: [{ bearer: [] }, { session: [] }],
      parameters: [
        {
          name: 'progress',
          in: 'query',
          required: false,
          description:
            'A random id (16-100 of A-Z a-z 0-9 - _) the save or deploy request sends as X-Tributary-Progress',
          schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{16,100}$' },
        },
      ],
      responses: { '200': { description: 'text/event-stream' }, '400': error, '401': error },
    },
  };
  paths['/e/{endpointId}'] = {
    post: {
      summary: 'HTTP interface of a source (any method and any path below it): 200 once queued, or the custom response',
      tags: ['ingress'],
      security: [],
      parameters: [{ name: 'endpointId', in: 'path', required: true, schema: { type: 'string' } }],
      responses: {
        '200': { description: 'Queued' },
        '404': { description: 'Unknown or inactive endpoint' },
        '413': { description: 'Body over 512 KB' },
      },
    },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Tributary API',
      version,
      description: 'REST API of a Tributary server (Pipedream-compatible shapes).',
    },
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'An API key' },
        token: {
          type: 'apiKey',
          in: 'query',
          name: 'token',
          description: 'The API key, for SSE from clients without headers',
        },
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: 'tributary_session',
          description: 'A browser session (POST /v1/session); state-changing requests also send X-Tributary-Client',
        },
      },
    },
    paths,
  };
}
