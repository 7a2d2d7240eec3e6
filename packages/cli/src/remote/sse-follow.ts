import { setTimeout as sleep } from 'node:timers/promises';
import { AppError, isErrorCode, type ErrorCode } from '@tributary/contracts';
import type { ApiClient } from './api-client.js';

export interface SseMessage {
  readonly id: string | null;
  readonly data: string;
}

export interface FollowOptions {
  readonly client: ApiClient;
  /** Stream path, e.g. `/sources/dc_…/sse`. */
  readonly path: string;
  readonly signal: AbortSignal;
  readonly onMessage: (message: SseMessage) => void;
  /** Called once the first connection is open (the server has subscribed). */
  readonly onOpen?: () => void;
  /** Resume after this id (Last-Event-ID), e.g. the newest event already printed. */
  readonly lastEventId?: string | null;
}

/**
 * Follows an SSE stream (contract §9.3) until the signal aborts. A dropped connection is resumed
 * with Last-Event-ID, so nothing committed meanwhile is missed; refusals (401, 404) end it.
 */
export async function followSse(options: FollowOptions): Promise<void> {
  let lastId = options.lastEventId ?? null;
  let opened = false;
  while (!options.signal.aborted) {
    let response: Response;
    try {
      response = await options.client.fetch(options.client.url(options.path), {
        headers: {
          ...options.client.headers(),
          accept: 'text/event-stream',
          ...(lastId ? { 'last-event-id': lastId } : {}),
        },
        signal: options.signal,
      });
    } catch (error) {
      if (options.signal.aborted) return;
      if (!opened) throw error;
      await sleep(1000, undefined, { signal: options.signal }).catch(() => undefined);
      continue;
    }
    if (!response.ok || !response.body) {
      const text = await response.text().catch(() => '');
      let message = `${options.path} answered ${response.status}`;
      let code: ErrorCode =
        response.status === 401 ? 'UNAUTHORIZED' : response.status === 404 ? 'NOT_FOUND' : 'INTERNAL';
      try {
        const body = JSON.parse(text) as { error?: { code?: string; message?: string } };
        if (body.error?.message) message = body.error.message;
        if (isErrorCode(body.error?.code)) code = body.error.code;
      } catch {
        // not an API error body; keep the status line
      }
      throw new AppError(code, message, { status: response.status });
    }
    if (!opened) {
      opened = true;
      options.onOpen?.();
    }
    try {
      for await (const message of parseSse(response.body)) {
        if (message.id !== null) lastId = message.id;
        options.onMessage(message);
      }
    } catch (error) {
      if (options.signal.aborted) return;
      void error; // a dropped connection: resume below
    }
    await sleep(500, undefined, { signal: options.signal }).catch(() => undefined);
  }
}

/** The messages of an event stream; comment lines (`:keepalive`) are skipped. */
export async function* parseSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  let id: string | null = null;
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffer.indexOf('\n')) !== -1) {
      const line = buffer.slice(0, newline).replace(/\r$/, '');
      buffer = buffer.slice(newline + 1);
      if (line === '') {
        if (data.length > 0) yield { id, data: data.join('\n') };
        data = [];
        id = null;
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') data.push(value);
      else if (field === 'id') id = value;
    }
  }
}
