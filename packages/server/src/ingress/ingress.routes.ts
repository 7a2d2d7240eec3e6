import http from 'node:http';
import { AppError } from '@tributary/contracts';
import {
  buildHttpEvent,
  CUSTOM_RESPONSE_DEADLINE_MS,
  ENDPOINT_REPLIES,
  MAX_ENDPOINT_BODY_BYTES,
  type Engine,
  type HttpResponse,
  type RateLimit,
} from '@tributary/engine';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { assertJsonDepth } from '../http/parse.js';
import { awaitReply } from './await-reply.js';
import { parseMultipart } from './multipart.js';

export interface IngressOptions {
  /** How long a customResponse request waits for http.respond() (default 30 s), then 504. */
  readonly responseDeadlineMs?: number;
}

/** A source's endpoint, or a workflow's (`workflow`: the id is the workflow's, each request starts a run). */
type Endpoint = { readonly id: string; readonly customResponse: boolean; readonly workflow?: boolean };

/**
 * HTTP interfaces of sources: `ANY /e/{endpointId}/...` (contract §3.5, §3.6). The request becomes
 * an event in the durable queue before anything answers; without customResponse the caller gets
 * 200 as soon as it is queued, with it the caller waits for the first http.respond().
 */
export async function registerIngress(
  app: FastifyInstance,
  engine: Engine,
  options: IngressOptions = {},
): Promise<void> {
  // The engine's limiter port: per process by default, shared by every process when it is Redis.
  const limiter = engine.endpointLimiter;
  const endpoints = new WeakMap<FastifyRequest, Endpoint>();
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_ENDPOINT_BODY_BYTES }, (_request, body, done) =>
      done(null, body),
    );
    // Before the body is read: an unknown endpoint or one over its rate limit costs no upload and queues nothing.
    scope.addHook('onRequest', async (request, reply) => {
      const params = request.params as Record<string, string>;
      const endpointId = params['endpointId'] ?? '';
      // Workflows first: on SQLite their lookups, misses included, are served from memory.
      const workflow = await engine.workflows.findEndpoint(endpointId);
      const endpoint: Endpoint | null = workflow
        ? { ...workflow, workflow: true }
        : await engine.findEndpoint(endpointId);
      if (!endpoint) throw new AppError('NOT_FOUND', 'no active source or workflow listens at this endpoint');
      endpoints.set(request, endpoint);
      // CORS preflights run nothing, so they take no token from the request that follows them.
      if (request.method === 'OPTIONS') return undefined;
      const admission = await limiter.take(endpoint.id);
      if (admission.ok) return undefined;
      const error = new AppError(
        'RATE_LIMITED',
        `this endpoint takes ${limitText(limiter.limit)}; retry in ${admission.retryAfterSeconds} s`,
        {
          retry_after_seconds: admission.retryAfterSeconds,
        },
      );
      return reply
        .status(error.status)
        .header('retry-after', String(admission.retryAfterSeconds))
        .send({ error: { code: error.code, message: error.message, details: error.details } });
    });
    const handler = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
      const params = request.params as Record<string, string>;
      const endpoint = endpoints.get(request);
      if (!endpoint) throw new AppError('NOT_FOUND', 'no active source or workflow listens at this endpoint');
      if (request.method === 'OPTIONS') {
        send(reply, ENDPOINT_REPLIES.preflight);
        return;
      }
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const contentType = String(request.headers['content-type'] ?? '');
      const multipart = contentType.toLowerCase().startsWith('multipart/form-data')
        ? await parseMultipart(body, contentType)
        : null;
      if (multipart?.kind === 'file') {
        throw new AppError(
          'UNSUPPORTED_MEDIA_TYPE',
          'file uploads are not supported on HTTP endpoints; send the file as a URL or base64 in JSON',
        );
      }
      const url = new URL(request.url, 'http://localhost');
      const prefix = `/e/${params['endpointId'] ?? ''}`;
      const event = buildHttpEvent({
        method: request.method,
        path: url.pathname.slice(prefix.length) || '/',
        url: `${request.protocol}://${request.headers.host ?? 'localhost'}${request.url}`,
        query: url.searchParams,
        headers: request.headers,
        body,
      });
      if (multipart?.kind === 'fields') event['body'] = multipart.fields;
      assertJsonDepth(event['body'], 'body'); // deeper bodies overflow the stack when the event is stored
      // A workflow's run id is what its $.respond() replies under, as an invocation id is for a source.
      const invocationId = endpoint.workflow
        ? await engine.workflows.trigger(endpoint.id, 'http', event)
        : await engine.runner.enqueue({ sourceId: endpoint.id, trigger: 'http', event });
      if (!endpoint.customResponse) {
        send(reply, ENDPOINT_REPLIES.accepted);
        return;
      }
      const outcome = await awaitReply(engine.pubsub, invocationId, {
        deadlineMs: options.responseDeadlineMs ?? CUSTOM_RESPONSE_DEADLINE_MS,
        connection: reply.raw,
      });
      switch (outcome.kind) {
        case 'reply':
          send(
            reply,
            outcome.response ?? (endpoint.workflow ? ENDPOINT_REPLIES.workflowNoResponse : ENDPOINT_REPLIES.noResponse),
          );
          return;
        case 'timeout':
          send(reply, endpoint.workflow ? ENDPOINT_REPLIES.workflowTimeout : ENDPOINT_REPLIES.timeout);
          return;
        case 'gone':
          // Nobody is left to answer (the invocation still runs): Fastify must not answer either.
          reply.hijack();
          reply.raw.destroy();
          return;
        default:
          return assertNever(outcome);
      }
    };
    // Any method Node's parser accepts (WebDAV's PROPFIND, PURGE, ...); Fastify knows only a few
    // until told. CONNECT opens a tunnel (Node's 'connect' event), never a request.
    for (const method of http.METHODS) {
      if (method !== 'CONNECT' && !scope.supportedMethods.includes(method))
        scope.addHttpMethod(method, { hasBody: true });
    }
    const methods = http.METHODS.filter((method) => method !== 'CONNECT');
    // The response is the component's: the server's own security headers (CSP, frame options) stay off it.
    for (const url of ['/e/:endpointId', '/e/:endpointId/*'])
      scope.route({ method: methods, url, handler, helmet: false });
  });
}

function limitText(limit: RateLimit): string {
  return `${limit.ratePerSecond} requests per second, bursts of ${limit.burst}`;
}

function send(reply: FastifyReply, response: HttpResponse): void {
  void reply
    .status(response.status)
    .headers(response.headers)
    .send(response.body ?? '');
}

function assertNever(value: never): never {
  throw new Error(`unexpected reply outcome ${JSON.stringify(value)}`);
}
