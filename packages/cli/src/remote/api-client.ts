import { AppError, isErrorCode, errorMessage } from '@tributary/contracts/errors';
import { createApiClient, type ApiClient as GeneratedClient } from '@tributary/api-client';
import type { Connection } from './connection.js';

/** What a call of the generated client resolves to (openapi-fetch). */
interface GeneratedResult<D> {
  readonly data?: D;
  readonly error?: unknown;
  readonly response: Response;
}

/**
 * The CLI's connection to the REST API (contract §9). Every JSON call goes through `api`, the
 * client generated from the server's OpenAPI document (@tributary/api-client), and `call`, which
 * unwraps its answer: error bodies become AppErrors with the server's code, failures to connect
 * SERVER_UNREACHABLE naming the URL. Only the SSE streams (sse-follow.ts) use `fetch`, `url` and
 * `headers` directly: openapi-fetch makes one request per call, while a followed stream is
 * reopened with Last-Event-ID after the delay the server set, and is parsed by eventsource-parser.
 */
export class ApiClient {
  #api: GeneratedClient | undefined;
  /** The method of each answer of `api`, for error messages ("GET http://…: not found"). */
  readonly #methods = new WeakMap<Response, string>();

  /** `extraHeaders` go on every request (the install progress id of a deploy, say). */
  constructor(
    readonly connection: Connection,
    private readonly extraHeaders: Readonly<Record<string, string>> = {},
  ) {}

  /** The same client, sending `headers` too on every request. */
  withHeaders(headers: Readonly<Record<string, string>>): ApiClient {
    return new ApiClient(this.connection, { ...this.extraHeaders, ...headers });
  }

  /** The typed client: paths are the document's templates, bodies and answers are checked by the compiler. */
  get api(): GeneratedClient {
    this.#api ??= createApiClient({
      baseUrl: this.connection.apiUrl,
      headers: this.headers(),
      fetch: async (request) => {
        const response = await this.fetch(request.url, request);
        this.#methods.set(response, request.method);
        return response;
      },
    });
    return this.#api;
  }

  /** The answer of a call of `api`, or the server's error as an AppError. */
  async call<D>(pending: Promise<GeneratedResult<D>>): Promise<D> {
    const { data, error, response } = await pending.catch((thrown: unknown) => {
      // openapi-fetch parses a 2xx body as JSON; one that is not is a server this CLI does not know.
      if (thrown instanceof SyntaxError)
        throw new AppError(
          'INTERNAL',
          `the server answered a body the CLI does not understand (is it another version?): ${thrown.message}`,
        );
      throw thrown;
    });
    const what = `${this.#methods.get(response) ?? 'GET'} ${response.url}`;
    if (!response.ok) throw await errorFromResponse(response.status, error ?? {}, what);
    return data as D;
  }

  get baseUrl(): string {
    return this.connection.apiUrl;
  }

  /** The absolute URL of a path of the server (an SSE stream, or a page of the web app to print). */
  url(pathname: string): string {
    return new URL(`${this.connection.apiUrl}${pathname}`).toString();
  }

  headers(): Record<string, string> {
    const key = this.connection.apiKey;
    if (key === null) {
      throw new AppError(
        'UNAUTHORIZED',
        `no API key for profile "${this.connection.profile}": run tributary login${this.connection.profile === 'default' ? '' : ` -p ${this.connection.profile}`}, or set TRIBUTARY_API_KEY or --api-key`,
      );
    }
    return { ...this.extraHeaders, authorization: `Bearer ${key}`, accept: 'application/json' };
  }

  /** fetch that names the URL when the server cannot be reached. */
  async fetch(url: string, init: RequestInit | Request): Promise<Response> {
    try {
      return await (init instanceof Request ? fetch(init) : fetch(url, init));
    } catch (error) {
      if ((error as Error).name === 'AbortError') throw error;
      throw unreachable(url, error);
    }
  }
}

function unreachable(url: string, error: unknown): AppError {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const reason = cause?.code ?? cause?.message ?? errorMessage(error);
  return new AppError(
    'SERVER_UNREACHABLE',
    `cannot reach the Tributary server at ${new URL(url).origin} (${reason}); is it running? (tributary start, or set --api-url)`,
    {
      url,
    },
    { cause: error },
  );
}

async function errorFromResponse(status: number, body: unknown, what: string): Promise<AppError> {
  // The API schemas (and zod) load only for a refusal: a command that succeeds never needs them.
  const { ErrorBody } = await import('@tributary/contracts');
  const parsed = ErrorBody.safeParse(body);
  if (parsed.success) {
    const { code, message, details } = parsed.data.error;
    if (isErrorCode(code)) return new AppError(code, message, { ...(details ?? {}), status });
    return new AppError(status >= 500 ? 'INTERNAL' : 'VALIDATION_FAILED', `${code}: ${message}`, {
      ...(details ?? {}),
      status,
    });
  }
  const snippet = typeof body === 'string' ? body.slice(0, 200) : JSON.stringify(body).slice(0, 200);
  if (status === 401) return new AppError('UNAUTHORIZED', `${what}: the API key was refused`, { status });
  if (status === 404)
    return new AppError(
      'NOT_FOUND',
      `${what}: not found (is ${new URL(what.split(' ')[1] ?? '').origin} a Tributary server?)`,
      { status },
    );
  return new AppError(status >= 500 ? 'INTERNAL' : 'VALIDATION_FAILED', `${what} answered ${status}: ${snippet}`, {
    status,
  });
}
