import { AppError } from '@tributary/contracts';
import type { Engine } from '@tributary/engine';
import { buildHttpEvent, CUSTOM_RESPONSE_DEADLINE_MS, ENDPOINT_REPLIES, MAX_ENDPOINT_BODY_BYTES, type HttpResponse } from '@tributary/runtime';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { assertJsonDepth } from '../http/parse.js';
import { parseMultipart } from './multipart.js';

export interface IngressOptions {
  /** How long a customResponse request waits for http.respond() (default 30 s), then 504. */
  readonly responseDeadlineMs?: number;
}

/**
 * HTTP interfaces of sources: `ANY /e/{endpointId}/...` (contract §3.5, §3.6). The request becomes
 * an event in the durable queue before anything answers; without customResponse the caller gets
 * 200 as soon as it is queued, with it the caller waits for the first http.respond().
 */
export async function registerIngress(app: FastifyInstance, engine: Engine, options: IngressOptions = {}): Promise<void> {
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_ENDPOINT_BODY_BYTES }, (_request, body, done) => done(null, body));
    const handler = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
      const params = request.params as Record<string, string>;
      const endpoint = await engine.findEndpoint(params['endpointId'] ?? '');
      if (!endpoint) throw new AppError('NOT_FOUND', 'no active source listens at this endpoint');
      if (request.method === 'OPTIONS') {
        send(reply, ENDPOINT_REPLIES.preflight);
        return;
      }
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const contentType = String(request.headers['content-type'] ?? '');
      const multipart = contentType.toLowerCase().startsWith('multipart/form-data') ? await parseMultipart(body, contentType) : null;
      if (multipart?.kind === 'file') {
        throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'file uploads are not supported on HTTP endpoints; send the file as a URL or base64 in JSON');
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
      const invocationId = await engine.runner.enqueue({ sourceId: endpoint.id, trigger: 'http', event });
      if (!endpoint.customResponse) {
        send(reply, ENDPOINT_REPLIES.accepted);
        return;
      }
      const response = await withDeadline(engine.runner.waitForResponse(invocationId), options.responseDeadlineMs ?? CUSTOM_RESPONSE_DEADLINE_MS);
      if (response === 'timeout') {
        engine.runner.cancelWait(invocationId);
        send(reply, ENDPOINT_REPLIES.timeout);
        return;
      }
      if (!response) {
        send(reply, ENDPOINT_REPLIES.noResponse);
        return;
      }
      send(reply, response);
    };
    for (const url of ['/e/:endpointId', '/e/:endpointId/*']) {
      scope.route({ method: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'], url, handler });
    }
  });
}

function send(reply: FastifyReply, response: HttpResponse): void {
  void reply.status(response.status).headers(response.headers).send(response.body ?? '');
}

function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), ms);
    }),
  ]);
}
