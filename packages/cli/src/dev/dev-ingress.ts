import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import {
  buildHttpEvent,
  CUSTOM_RESPONSE_DEADLINE_MS,
  ENDPOINT_REPLIES,
  MAX_ENDPOINT_BODY_BYTES,
  type HttpResponse,
} from '@tributary/runtime';

/** What the ingress hands to the dev session for each accepted request. */
export interface IngressDelivery {
  readonly event: Record<string, unknown>;
  /** Settles with the component's response, or null when the run ended without one. */
  readonly respond: (response: HttpResponse | null) => void;
}

export interface DevIngressOptions {
  readonly host: string;
  readonly port: number;
  readonly endpointId: () => string;
  /** False while the source is not deployed or its activate failed: the endpoint answers 404, as on the server. */
  readonly active: () => boolean;
  readonly customResponse: () => boolean;
  readonly deliver: (delivery: IngressDelivery) => void;
}

/**
 * The local HTTP endpoint of `tributary dev`: `ANY /e/{endpointId}/...` becomes the source's HTTP
 * event (contract §3.5, §3.6). Without customResponse the caller gets 200 OK at once; with it,
 * the first http.respond() answers, or 400 when the run ends without one, or 504 at the deadline.
 */
export class DevIngress {
  private server: Server | null = null;

  constructor(private readonly options: DevIngressOptions) {}

  async listen(): Promise<string> {
    const server = createServer((request, response) => void this.handle(request, response));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port, this.options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : this.options.port;
    return `http://${this.options.host}:${port}`;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const prefix = `/e/${this.options.endpointId()}`;
    if (url.pathname !== prefix && !url.pathname.startsWith(`${prefix}/`)) {
      send(response, {
        status: 404,
        headers: { 'content-type': 'text/plain' },
        body: `No endpoint at ${url.pathname}; this source listens at ${prefix}\n`,
      });
      return;
    }
    if (!this.options.active()) {
      send(response, {
        status: 404,
        headers: { 'content-type': 'text/plain' },
        body: 'This source is not active: its deploy or activate hook failed; save the file to try again\n',
      });
      return;
    }
    if (request.method === 'OPTIONS') {
      send(response, ENDPOINT_REPLIES.preflight);
      return;
    }
    const body = await readBody(request);
    if (body === null) {
      send(response, {
        status: 413,
        headers: { 'content-type': 'text/plain' },
        body: `Payload Too Large: the limit is ${MAX_ENDPOINT_BODY_BYTES / 1024} KB\n`,
      });
      return;
    }
    const host = request.headers.host ?? 'localhost';
    const event = buildHttpEvent({
      method: request.method ?? 'GET',
      path: url.pathname.slice(prefix.length) || '/',
      url: `http://${host}${request.url ?? '/'}`,
      query: url.searchParams,
      headers: request.headers,
      body,
    });
    if (!this.options.customResponse()) {
      this.options.deliver({ event, respond: () => undefined });
      send(response, ENDPOINT_REPLIES.accepted);
      return;
    }
    let settled = false;
    const deadline = setTimeout(() => finish(ENDPOINT_REPLIES.timeout), CUSTOM_RESPONSE_DEADLINE_MS);
    const finish = (reply: HttpResponse): void => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      send(response, reply);
    };
    this.options.deliver({
      event,
      respond: (reply) => finish(reply ?? ENDPOINT_REPLIES.noResponse),
    });
  }
}

function readBody(request: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_ENDPOINT_BODY_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    request.on('end', () => resolve(tooLarge ? null : Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function send(response: ServerResponse, reply: HttpResponse): void {
  if (response.headersSent) return;
  response.writeHead(reply.status, reply.headers);
  response.end(reply.body ?? undefined);
}
