import { AppError, ErrorBody, isErrorCode } from '@tributary/contracts';
import type { z } from 'zod';
import type { Connection } from './connection.js';

export type Query = Record<string, string | number | boolean | undefined>;

export interface RequestOptions<T extends z.ZodType> {
  readonly query?: Query;
  readonly body?: unknown;
  /** The response shape; the body is parsed with it, so a server of another version fails loudly. */
  readonly schema: T;
}

/**
 * The CLI's client of the REST API (contract §9). Error bodies become AppErrors with the server's
 * code; failures to connect become SERVER_UNREACHABLE naming the URL.
 */
export class ApiClient {
  constructor(readonly connection: Connection) {}

  get baseUrl(): string {
    return this.connection.apiUrl;
  }

  url(pathname: string, query: Query = {}): string {
    const url = new URL(`${this.connection.apiUrl}${pathname}`);
    for (const [name, value] of Object.entries(query))
      if (value !== undefined) url.searchParams.set(name, String(value));
    return url.toString();
  }

  headers(): Record<string, string> {
    const key = this.connection.apiKey;
    if (key === null) {
      throw new AppError(
        'UNAUTHORIZED',
        `no API key for profile "${this.connection.profile}": run tributary login${this.connection.profile === 'default' ? '' : ` -p ${this.connection.profile}`}, or set TRIBUTARY_API_KEY or --api-key`,
      );
    }
    return { authorization: `Bearer ${key}`, accept: 'application/json' };
  }

  get<T extends z.ZodType>(pathname: string, schema: T, query?: Query): Promise<z.infer<T>> {
    return this.request('GET', pathname, { schema, ...(query ? { query } : {}) });
  }

  post<T extends z.ZodType>(pathname: string, body: unknown, schema: T): Promise<z.infer<T>> {
    return this.request('POST', pathname, { schema, body });
  }

  put<T extends z.ZodType>(pathname: string, body: unknown, schema: T): Promise<z.infer<T>> {
    return this.request('PUT', pathname, { schema, body });
  }

  delete<T extends z.ZodType>(pathname: string, schema: T, query?: Query): Promise<z.infer<T>> {
    return this.request('DELETE', pathname, { schema, ...(query ? { query } : {}) });
  }

  async request<T extends z.ZodType>(
    method: string,
    pathname: string,
    options: RequestOptions<T>,
  ): Promise<z.infer<T>> {
    const url = this.url(pathname, options.query);
    const headers = this.headers();
    const response = await this.fetch(url, {
      method,
      headers: options.body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    });
    const text = await response.text();
    const parsed = parseBody(text);
    if (!response.ok) throw errorFromResponse(response.status, parsed, `${method} ${url}`);
    const checked = options.schema.safeParse(parsed);
    if (!checked.success) {
      throw new AppError(
        'INTERNAL',
        `${method} ${url} answered a body the CLI does not understand (is the server another version?): ${checked.error.message}`,
      );
    }
    return checked.data as z.infer<T>;
  }

  /** fetch that names the URL when the server cannot be reached. */
  async fetch(url: string, init: RequestInit): Promise<Response> {
    try {
      return await fetch(url, init);
    } catch (error) {
      if ((error as Error).name === 'AbortError') throw error;
      throw unreachable(url, error);
    }
  }
}

export function unreachable(url: string, error: unknown): AppError {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const reason = cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
  return new AppError(
    'SERVER_UNREACHABLE',
    `cannot reach the Tributary server at ${new URL(url).origin} (${reason}); is it running? (tributary start, or set --api-url)`,
    {
      url,
    },
    { cause: error },
  );
}

function parseBody(text: string): unknown {
  if (text === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function errorFromResponse(status: number, body: unknown, what: string): AppError {
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
