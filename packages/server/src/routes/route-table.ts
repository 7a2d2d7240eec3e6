import type { Engine } from '@tributary/engine';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { authenticate } from '../http/auth.js';
import { installScopeOf } from '../http/install-scope.js';
import { assertJsonDepth, parseWith } from '../http/parse.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** One REST route: its schemas validate the request and describe it in the OpenAPI document. */
export interface RouteSpec<B extends z.ZodType = z.ZodType, Q extends z.ZodType = z.ZodType> {
  readonly method: HttpMethod;
  readonly url: string;
  readonly summary: string;
  readonly tag: string;
  readonly body?: B;
  readonly query?: Q;
  readonly response: z.ZodType;
  readonly status?: number;
  /** Other statuses answering with the same body: 201 when a PUT created what it names. */
  readonly alsoStatus?: readonly number[];
  /** Open without an API key (signing a browser in and out); such a route checks what it needs itself. */
  readonly public?: boolean;
  readonly handler: (input: {
    readonly params: Record<string, string>;
    readonly body: B extends z.ZodType ? z.infer<B> : undefined;
    readonly query: Q extends z.ZodType ? z.infer<Q> : undefined;
    readonly request: FastifyRequest;
    readonly reply: FastifyReply;
  }) => Promise<unknown>;
}

/** Declares a route with its types inferred from its schemas. */
export function route<B extends z.ZodType, Q extends z.ZodType>(spec: RouteSpec<B, Q>): RouteSpec {
  return spec as unknown as RouteSpec;
}

/** Registers API routes: every one but the public ones needs an API key or a session, then its body and query are validated. */
export function registerRoutes(app: FastifyInstance, engine: Engine, routes: readonly RouteSpec[]): void {
  for (const spec of routes) {
    app.route({
      method: spec.method,
      url: spec.url,
      handler: async (request, reply) => {
        const credential = spec.public ? null : await authenticate(engine, request, { allowQueryToken: false });
        const scope = installScopeOf(request, credential);
        if (spec.body) assertJsonDepth(request.body, 'body');
        const body = spec.body ? parseWith(spec.body, request.body, 'body') : undefined;
        const query = spec.query ? parseWith(spec.query, request.query, 'query') : undefined;
        // Any route may install npm packages (save, deploy, run, workflow save): the scope
        // travels with its work, so the installs stream shows them to this caller only.
        const result = await engine.installs.within(scope, () =>
          spec.handler({
            params: request.params as Record<string, string>,
            body,
            query,
            request,
            reply,
          } as never),
        );
        if (spec.status !== undefined && reply.statusCode === 200) void reply.status(spec.status);
        return result;
      },
    });
  }
}
