/**
 * The one HTTP client of the web app. Every request goes through `request`, which sends the
 * session cookie (same origin) with the CSRF header the server asks of cookie requests, encodes the query, parses the `{ error: { code, message, details } }` body into an
 * ApiError, and validates the response with the contract's zod schema.
 */
import type { z } from 'zod';

/** An error the API answered with (or a network failure, code NETWORK_ERROR). */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: Record<string, unknown>;

  constructor(status: number, code: string, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.details = details;
  }

  /**
   * Every prop the server found invalid, each with its message: `details.errors` when it lists
   * them (prop validation reports all at once), else the one prop or field it named.
   */
  get fieldErrors(): { readonly field: string; readonly message: string }[] {
    const listed = this.details['errors'];
    if (Array.isArray(listed)) {
      const entries = listed.flatMap((entry: unknown) => {
        if (typeof entry !== 'object' || entry === null) return [];
        const { prop, message } = entry as { prop?: unknown; message?: unknown };
        return typeof prop === 'string' && typeof message === 'string' ? [{ field: prop, message }] : [];
      });
      if (entries.length > 0) return entries;
    }
    return this.field ? [{ field: this.field, message: this.message }] : [];
  }

  /** The prop or field the server blamed, when it named one. */
  get field(): string | null {
    const { prop, field } = this.details;
    if (typeof prop === 'string') return prop;
    if (typeof field === 'string') return field;
    return null;
  }
}

export type QueryValue = string | number | boolean | undefined | null;

export interface RequestSpec<T extends z.ZodType> {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly path: string;
  readonly query?: Record<string, QueryValue>;
  readonly body?: unknown;
  readonly schema: T;
}

/** Sent on every request: the server refuses state-changing cookie requests without it (CSRF). */
export const CLIENT_HEADER = 'x-tributary-client';

export interface HttpOptions {
  /** Origin of the server; '' means the page's own origin. */
  readonly baseUrl: string;
  /** An API key to send as a Bearer header; without one the browser's session cookie signs requests. */
  readonly getToken?: () => string | null;
  /** Called on a 401 so the app can return to sign-in. */
  readonly onUnauthorized?: () => void;
  readonly fetchImpl?: typeof fetch;
}

export function buildUrl(baseUrl: string, path: string, query: Record<string, QueryValue> = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(name, String(value));
  }
  const search = params.toString();
  return `${baseUrl}${path}${search ? `?${search}` : ''}`;
}

function errorFrom(status: number, body: unknown, fallback: string): ApiError {
  if (body && typeof body === 'object' && 'error' in body) {
    const error = (body as { error: { code?: unknown; message?: unknown; details?: unknown } }).error;
    return new ApiError(
      status,
      typeof error.code === 'string' ? error.code : `HTTP_${status}`,
      typeof error.message === 'string' ? error.message : fallback,
      error.details && typeof error.details === 'object' ? (error.details as Record<string, unknown>) : {},
    );
  }
  return new ApiError(status, `HTTP_${status}`, fallback);
}

export function createHttp(options: HttpOptions) {
  const doFetch = options.fetchImpl ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  return async function request<T extends z.ZodType>(spec: RequestSpec<T>): Promise<z.infer<T>> {
    const headers: Record<string, string> = { accept: 'application/json', [CLIENT_HEADER]: 'web' };
    const token = options.getToken?.() ?? null;
    if (token) headers['authorization'] = `Bearer ${token}`;
    if (spec.body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await doFetch(buildUrl(options.baseUrl, spec.path, spec.query), {
        method: spec.method,
        headers,
        ...(spec.body !== undefined ? { body: JSON.stringify(spec.body) } : {}),
      });
    } catch (error) {
      throw new ApiError(
        0,
        'NETWORK_ERROR',
        `Cannot reach the server: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const text = await response.text();
    let json: unknown = null;
    if (text) {
      try {
        json = JSON.parse(text);
      } catch {
        json = null;
      }
    }
    if (!response.ok) {
      if (response.status === 401) options.onUnauthorized?.();
      throw errorFrom(response.status, json, `${response.status} ${response.statusText}`.trim());
    }
    const parsed = spec.schema.safeParse(json ?? {});
    if (!parsed.success) {
      throw new ApiError(
        response.status,
        'BAD_RESPONSE',
        `Unexpected response from ${spec.method} ${spec.path}: ${parsed.error.issues[0]?.message ?? 'invalid'}`,
      );
    }
    return parsed.data;
  };
}

export type Http = ReturnType<typeof createHttp>;
