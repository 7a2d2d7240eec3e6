import { setTimeout as sleep } from 'node:timers/promises';
import { createParser } from 'eventsource-parser';
import { AppError, isErrorCode, type ErrorCode } from '@tributary/contracts/errors';
import type { ApiClient } from './api-client.js';

export interface SseMessage {
  readonly id: string | null;
  /** The `event:` name, null for unnamed messages. */
  readonly event: string | null;
  readonly data: string;
}

/** The frame a server sends before it ends a stream it gave up on (a client too slow). */
const CLOSE_EVENT = 'tributary/close';

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
  /**
   * Waits `ms` before a reconnect, settling early (never rejecting) once `signal` aborts. Default:
   * the real timer; tests pass their own to see which delay was asked for.
   */
  readonly wait?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** Wait before reconnecting until the server sets its own with `retry:`. */
const DEFAULT_RECONNECT_MS = 1000;

const realWait = (ms: number, signal: AbortSignal): Promise<void> =>
  sleep(ms, undefined, { signal }).catch(() => undefined);

/**
 * Follows an SSE stream (contract §9.3) until the signal aborts. A dropped connection is resumed
 * with Last-Event-ID, so nothing committed meanwhile is missed, after the delay the server last
 * asked for with `retry:`, and so is a stream the server dropped (its `tributary/close` frame is
 * not a message); refusals (401, 404) end it.
 */
export async function followSse(options: FollowOptions): Promise<void> {
  let lastId = options.lastEventId ?? null;
  let opened = false;
  let reconnectMs = DEFAULT_RECONNECT_MS;
  const wait = options.wait ?? realWait;
  while (!options.signal.aborted) {
    let response: Response;
    try {
      // Not through the generated client: openapi-fetch answers one parsed body per call, and this
      // loop reopens the stream itself (Last-Event-ID, the server's retry:) and parses it as it comes.
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
      await wait(reconnectMs, options.signal);
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
      for await (const message of parseSse(response.body, (ms) => (reconnectMs = ms))) {
        // The server is ending the stream (this client fell behind): resume from the last id below.
        if (message.event === CLOSE_EVENT) continue;
        if (message.id !== null) lastId = message.id;
        options.onMessage(message);
      }
    } catch (error) {
      if (options.signal.aborted) return;
      void error; // a dropped connection: resume below
    }
    await wait(reconnectMs, options.signal);
  }
}

/**
 * The messages of an event stream, parsed by eventsource-parser (the WHATWG rules: CR, LF and CRLF
 * line endings, multi-line data, comments); `onRetry` gets each `retry:` the server sends.
 */
export async function* parseSse(
  body: ReadableStream<Uint8Array>,
  onRetry: (ms: number) => void = () => undefined,
): AsyncGenerator<SseMessage> {
  const ready: SseMessage[] = [];
  const parser = createParser({
    onEvent: (event) => ready.push({ id: event.id ?? null, event: event.event ?? null, data: event.data }),
    onRetry,
  });
  const decoder = new TextDecoder();
  let endsWithCr = false;
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    const text = decoder.decode(chunk, { stream: true });
    if (text === '') continue; // the first bytes of a character split across chunks
    endsWithCr = text.endsWith('\r');
    parser.feed(text);
    yield* ready.splice(0);
  }
  // The parser holds a CR that ends its input, in case an LF follows (one CRLF line end). At the
  // end of the stream it was a line end of its own, maybe the blank line ending the last message:
  // an LF after it makes the pair the parser waits for, without adding a line.
  if (endsWithCr) parser.feed('\n');
  yield* ready.splice(0);
}
