import { ErrorBody } from '@tributary/contracts';
import { z } from 'zod';
import type { RouteSpec } from './route-table.js';

const jsonSchema = (schema: z.ZodType): Record<string, unknown> => {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  void _ignored;
  return rest;
};

/**
 * The OpenAPI 3.1 document of the API, built from the route table: the schemas here are the ones
 * that validate requests, so the document and the server cannot disagree.
 */
export function buildOpenApi(routes: readonly RouteSpec[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const error = { description: 'Error', content: { 'application/json': { schema: jsonSchema(ErrorBody) } } };
  for (const spec of routes) {
    const path = spec.url.replace(/:(\w+)/g, '{$1}');
    const pathParams = [...spec.url.matchAll(/:(\w+)/g)].map((match) => ({
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
        [String(spec.status ?? 200)]: {
          description: 'OK',
          content: { 'application/json': { schema: jsonSchema(spec.response) } },
        },
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
