import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError, isAppError } from '@tributary/contracts';
import {
  buildHttpEvent,
  CUSTOM_RESPONSE_DEADLINE_MS,
  ENDPOINT_REPLIES,
  MAX_ENDPOINT_BODY_BYTES,
  type Engine,
  type HttpResponse,
  type RateLimit,
} from '@tributary/engine';
import type { FastifyBaseLogger } from 'fastify';
import type { OriginRule } from '../http/endpoint-origin.js';
import { assertJsonDepth } from '../http/parse.js';
import { logRequest, logsSuccesses } from '../http/request-log.js';
import { awaitReply } from './await-reply.js';
import { writeEndpointError, writeEndpointResponse } from './endpoint-reply.js';
import { parseMultipart } from './multipart.js';
import { readBody } from './read-body.js';

export interface EndpointIngressOptions {
  readonly engine: Engine;
  /** How long a customResponse request waits for http.respond() (default 30 s), then 504. */
  readonly responseDeadlineMs?: number;
  /** Endpoints on an origin of their own (TRIBUTARY_ENDPOINT_BASE_URL): `/e/` answers on its host only. */
  readonly originRule?: OriginRule;
  /** Where an unexpected failure's stack goes (the server log). */
  readonly log: (message: string) => void;
}

/** A source's endpoint, or a workflow's (`workflow`: the id is the workflow's, each request starts a run). */
type Endpoint = { readonly id: string; readonly customResponse: boolean; readonly workflow: boolean };

/** The route patterns requests are logged and counted under: never the path, which holds the endpoint's secret id. */
const ROUTE = '/e/:endpointId';
const ROUTE_BELOW = '/e/:endpointId/*';
/** Longest endpoint id taken (percent-encoded), as the API's router takes its path parameters. */
const MAX_ID_LENGTH = 4096;

/** What Fastify answers while it closes (`return503OnClosing`), so `/e/` answers the same. */
const CLOSING_BODY = '{"error":"Service Unavailable","message":"Service Unavailable","statusCode":503}';

/**
 * HTTP interfaces of sources and workflows: `ANY /e/{endpointId}/...` (contract §3.5, §3.6). The
 * request becomes an event in the durable queue (a source's) or a stored run (a workflow's) before
 * anything answers; without customResponse the caller gets 200 as soon as it is stored, with it
 * the caller waits for the first http.respond() or $.respond().
 *
 * Answered on Node's own request and response, ahead of the API's framework: every event of every
 * endpoint comes through here, and the framework's routing, hooks, body parser and reply took about
 * a tenth of the server's main thread under issue 10's workflow load (decision 0023). What the
 * framework did for these requests is done here the same way: the error body and codes, the body
 * limit, the 503 while closing, the request's log line and metric, and the endpoint origin.
 */
export class EndpointIngress {
  private logger: FastifyBaseLogger | null = null;
  private logSuccesses = false;
  private closing = false;

  constructor(private readonly options: EndpointIngressOptions) {}

  /** Whether a request-target is the ingress's (`/e/...`); anything else goes to the API's framework. */
  static owns(url: string | undefined): boolean {
    return url !== undefined && url.startsWith('/e/');
  }

  /** The server's logger, for the request lines (set once the framework has made it). */
  useLogger(logger: FastifyBaseLogger): void {
    this.logger = logger;
    this.logSuccesses = logsSuccesses(logger);
  }

  /** New requests are answered 503 from now on, as the framework answers its own while it closes. */
  close(): void {
    this.closing = true;
  }

  handle(req: IncomingMessage, res: ServerResponse): void {
    const started = performance.now();
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    const slash = path.indexOf('/', 3);
    const route = slash < 0 ? ROUTE : ROUTE_BELOW;
    const done = (status: number): void => this.answered(req, route, status, started);
    if (this.closing) {
      res.writeHead(503, {
        connection: 'close',
        'content-type': 'application/json',
        'content-length': String(CLOSING_BODY.length),
      });
      res.end(CLOSING_BODY);
      done(503);
      return;
    }
    this.serve(req, res, { url, path, query, slash }, done).catch((error: unknown) => {
      const appError = isAppError(error)
        ? error
        : new AppError('INTERNAL', 'an internal error occurred; the server log has the details');
      if (!isAppError(error))
        this.options.log(
          `${req.method ?? ''} ${route} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
        );
      if (res.headersSent || res.destroyed) {
        res.destroy();
        return;
      }
      const retryAfter = appError.details['retry_after_seconds'];
      writeEndpointError(res, appError, retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) });
      done(appError.status);
    });
  }

  private async serve(
    req: IncomingMessage,
    res: ServerResponse,
    target: { readonly url: string; readonly path: string; readonly query: number; readonly slash: number },
    done: (status: number) => void,
  ): Promise<void> {
    const { engine } = this.options;
    const refusal = this.options.originRule?.(req.headers.host, target.path);
    if (refusal) throw refusal;
    const endpointId = decodeId(target.path, target.slash);
    // Before the body is read: an unknown endpoint or one over its rate limit costs no upload and
    // queues nothing. Workflows first: on SQLite their lookups, misses included, come from memory.
    const workflow = endpointId === '' ? null : await engine.workflows.findEndpoint(endpointId);
    const endpoint: Endpoint | null = workflow
      ? { id: workflow.id, customResponse: workflow.customResponse, workflow: true }
      : await this.sourceEndpoint(endpointId);
    if (!endpoint) throw new AppError('NOT_FOUND', 'no active source or workflow listens at this endpoint');
    // CORS preflights run nothing, so they take no token from the request that follows them.
    if (req.method === 'OPTIONS') {
      req.resume();
      this.reply(req, res, ENDPOINT_REPLIES.preflight, done);
      return;
    }
    const limiter = engine.endpointLimiter;
    const admission = await limiter.take(endpoint.id);
    if (!admission.ok) {
      req.resume();
      throw new AppError(
        'RATE_LIMITED',
        `this endpoint takes ${limitText(limiter.limit)}; retry in ${admission.retryAfterSeconds} s`,
        {
          retry_after_seconds: admission.retryAfterSeconds,
        },
      );
    }
    const body = await readBody(req, MAX_ENDPOINT_BODY_BYTES);
    // The client went away while sending: nobody is left to answer, and nothing is queued.
    if (body === null) return;
    const contentType = String(req.headers['content-type'] ?? '');
    const multipart = contentType.toLowerCase().startsWith('multipart/form-data')
      ? await parseMultipart(body, contentType)
      : null;
    if (multipart?.kind === 'file') {
      throw new AppError(
        'UNSUPPORTED_MEDIA_TYPE',
        'file uploads are not supported on HTTP endpoints; send the file as a URL or base64 in JSON',
      );
    }
    const event = buildHttpEvent({
      method: req.method ?? 'GET',
      path: target.slash < 0 ? '/' : belowEndpoint(target.url, endpointId),
      url: `http://${req.headers.host ?? 'localhost'}${target.url}`,
      query: new URLSearchParams(target.query < 0 ? '' : target.url.slice(target.query + 1)),
      headers: req.headers,
      body,
    });
    if (multipart?.kind === 'fields') event['body'] = multipart.fields;
    assertJsonDepth(event['body'], 'body'); // deeper bodies overflow the stack when the event is stored
    // A workflow's run id is what its $.respond() replies under, as an invocation id is for a source.
    const invocationId = endpoint.workflow
      ? await engine.workflows.trigger(endpoint.id, 'http', event)
      : await engine.runner.enqueue({ sourceId: endpoint.id, trigger: 'http', event });
    if (!endpoint.customResponse) {
      this.reply(req, res, ENDPOINT_REPLIES.accepted, done);
      return;
    }
    const outcome = await awaitReply(engine.pubsub, invocationId, {
      deadlineMs: this.options.responseDeadlineMs ?? CUSTOM_RESPONSE_DEADLINE_MS,
      connection: res,
    });
    switch (outcome.kind) {
      case 'reply':
        this.reply(
          req,
          res,
          outcome.response ?? (endpoint.workflow ? ENDPOINT_REPLIES.workflowNoResponse : ENDPOINT_REPLIES.noResponse),
          done,
        );
        return;
      case 'timeout':
        this.reply(req, res, endpoint.workflow ? ENDPOINT_REPLIES.workflowTimeout : ENDPOINT_REPLIES.timeout, done);
        return;
      case 'gone':
        // Nobody is left to answer (the invocation still runs).
        res.destroy();
        return;
      default:
        return assertNever(outcome);
    }
  }

  private async sourceEndpoint(endpointId: string): Promise<Endpoint | null> {
    if (endpointId === '') return null;
    const source = await this.options.engine.findEndpoint(endpointId);
    return source ? { id: source.id, customResponse: source.customResponse, workflow: false } : null;
  }

  /** Writes a response the component or the platform gave; a header Node refuses is the platform's failure. */
  private reply(
    req: IncomingMessage,
    res: ServerResponse,
    response: HttpResponse,
    done: (status: number) => void,
  ): void {
    writeEndpointResponse(res, req.method, response);
    done(response.status);
  }

  /** The request's metric and log line, once it is answered. */
  private answered(req: IncomingMessage, route: string, status: number, started: number): void {
    const elapsedMs = performance.now() - started;
    const metrics = this.options.engine.metrics;
    const method = req.method ?? 'GET';
    metrics.httpRequest({ method, route, status, seconds: elapsedMs / 1000 });
    metrics.ingressAcknowledged(status);
    if (this.logger && (status >= 400 || this.logSuccesses))
      logRequest(this.logger, { method, route, status, ms: Math.round(elapsedMs * 10) / 10 });
  }
}

/**
 * The endpoint id of the path, percent-decoded as the API's router decodes its parameters (a path
 * that is not valid percent-encoding anywhere is refused, as the router refuses it).
 */
function decodeId(path: string, slash: number): string {
  const raw = slash < 0 ? path.slice(3) : path.slice(3, slash);
  if (raw.length > MAX_ID_LENGTH)
    throw new AppError('VALIDATION_FAILED', 'a path segment of the URL is longer than any id, key or name can be');
  if (!path.includes('%')) return raw;
  try {
    decodeURIComponent(path);
    return decodeURIComponent(raw);
  } catch {
    throw new AppError('VALIDATION_FAILED', 'a path segment of the URL is not valid percent-encoding');
  }
}

/** The path below `/e/{endpointId}`, as the URL's normalized path gives it (`/` at least). */
function belowEndpoint(url: string, endpointId: string): string {
  return new URL(url, 'http://localhost').pathname.slice(`/e/${endpointId}`.length) || '/';
}

function limitText(limit: RateLimit): string {
  return `${limit.ratePerSecond} requests per second, bursts of ${limit.burst}`;
}

function assertNever(value: never): never {
  throw new Error(`unexpected reply outcome ${JSON.stringify(value)}`);
}
