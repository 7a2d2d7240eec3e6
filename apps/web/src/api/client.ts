/**
 * The one HTTP client of the web app: `@tributary/api-client` (openapi-fetch over the types
 * generated from `/v1/openapi.json`), so every path, parameter, body and answer the screens use is
 * checked by the compiler against the served document. Around it: the session cookie (same
 * origin) with the CSRF header the server asks of cookie requests, a 401 that returns the app to
 * sign-in, and `{ error: { code, message, details } }` bodies turned into ApiErrors.
 */
import { createApiClient, type ApiClient } from '@tributary/api-client';

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

/** Sent on every request: the server refuses state-changing cookie requests without it (CSRF). */
export const CLIENT_HEADER = 'x-tributary-client';

export interface HttpOptions {
  /** Origin of the server; '' means the page's own origin. */
  readonly baseUrl: string;
  /** An API key to send as a Bearer header; without one the browser's session cookie signs requests. */
  readonly getToken?: () => string | null;
  /** Called on a 401 so the app can return to sign-in. */
  readonly onUnauthorized?: () => void;
  readonly fetchImpl?: (request: Request) => Promise<Response>;
}

export type Http = ApiClient;

/** The generated client, signed in by the session cookie (or `getToken`'s key). */
export function createHttp(options: HttpOptions): Http {
  const doFetch = options.fetchImpl ?? ((request: Request) => fetch(request));
  return createApiClient({
    baseUrl: options.baseUrl,
    // The session cookie is HttpOnly and SameSite=Strict: same-origin requests carry it.
    credentials: 'same-origin',
    headers: { [CLIENT_HEADER]: 'web' },
    fetch: async (request) => {
      // Read per request: a key given after the client was made still signs the next call.
      const token = options.getToken?.() ?? null;
      if (token) request.headers.set('authorization', `Bearer ${token}`);
      let response: Response;
      try {
        response = await doFetch(request);
      } catch (error) {
        throw new ApiError(
          0,
          'NETWORK_ERROR',
          `Cannot reach the server: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      if (response.status === 401) options.onUnauthorized?.();
      return response;
    },
  });
}

/** What a call of the generated client resolves to (openapi-fetch's FetchResponse, loosened). */
interface Answer<D> {
  readonly data?: D;
  readonly error?: unknown;
  readonly response: Response;
}

/** The answer's body, or the server's error body as an ApiError. */
export async function unwrap<D>(pending: Promise<Answer<D>>): Promise<D> {
  const { data, error, response } = await pending;
  if (!response.ok) throw errorFrom(response.status, error, `${response.status} ${response.statusText}`.trim());
  return data as D;
}

function errorFrom(status: number, body: unknown, fallback: string): ApiError {
  const error = body && typeof body === 'object' && 'error' in body ? body.error : null;
  if (error && typeof error === 'object') {
    const { code, message, details } = error as { code?: unknown; message?: unknown; details?: unknown };
    return new ApiError(
      status,
      typeof code === 'string' ? code : `HTTP_${status}`,
      typeof message === 'string' ? message : fallback,
      details && typeof details === 'object' ? (details as Record<string, unknown>) : {},
    );
  }
  return new ApiError(status, `HTTP_${status}`, fallback);
}
