import { AppError } from '@tributary/contracts';
import type { InstallScope } from '@tributary/engine';
import type { FastifyRequest } from 'fastify';
import type { Credential } from './auth.js';

/**
 * The header a save or deploy request may carry so the npm installs it starts are shown on
 * `GET /v1/installs/sse?progress=<id>` (docs/sse.md#install-progress). The client chooses it at
 * random, per request: knowing it is what lets a stream see those installs.
 */
export const PROGRESS_HEADER = 'x-tributary-progress';

/** 16 to 100 letters, digits, `-` or `_`: a UUID or random token, never a guessable word. */
const PROGRESS_ID = /^[A-Za-z0-9_-]{16,100}$/;

/** Checks a progress id from the header (`field` X-Tributary-Progress) or the stream's query (`progress`). */
export function parseProgressId(value: unknown, field: string): string | null {
  if (value === undefined || value === '') return null;
  if (typeof value !== 'string' || !PROGRESS_ID.test(value))
    throw new AppError(
      'VALIDATION_FAILED',
      `${field}: a progress id is 16 to 100 letters, digits, "-" or "_" (a random UUID, say)`,
      { field },
    );
  return value;
}

/** Who signed a request in, as installs are attributed: one API key, or one browser session. */
export function callerOf(credential: Credential | null): string | null {
  if (credential === null) return null;
  switch (credential.kind) {
    case 'api_key':
      return `key:${credential.keyId}`;
    case 'session':
      return `session:${credential.sessionId}`;
  }
}

/** The scope the installs of this request are published with. */
export function installScopeOf(request: FastifyRequest, credential: Credential | null): InstallScope {
  return {
    progressId: parseProgressId(request.headers[PROGRESS_HEADER], 'X-Tributary-Progress'),
    caller: callerOf(credential),
  };
}

/**
 * Whether a stream shows an install: with a progress id, the installs of requests that sent it;
 * without one, those of requests signed in as the stream is (never another key's or browser's).
 */
export function streamShows(stream: InstallScope, install: InstallScope | null): boolean {
  if (install === null) return false;
  if (stream.progressId !== null) return install.progressId === stream.progressId;
  return stream.caller !== null && install.caller === stream.caller;
}
