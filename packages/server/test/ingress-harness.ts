/**
 * Shared helpers of the ingress, SSE and durability tests: an in-process engine and server on
 * temporary folders, deploys of fixture components over the REST API, and an SSE reader.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Engine, type RetryPolicy } from '@tributary/engine';
import { createServer } from '@tributary/server';
import type { FastifyInstance } from 'fastify';
import { readRows } from './server-harness.js';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const FIXTURES = path.join(REPO, 'fixtures/components');
export const SERVER_FIXTURES = path.join(FIXTURES, 'server');

export function fixtureCode(file: string): string {
  return readFileSync(path.isAbsolute(file) ? file : path.join(FIXTURES, file), 'utf8');
}

export interface DeployedSource {
  readonly id: string;
  readonly endpoint_url: string | null;
  readonly active: boolean;
  readonly [key: string]: unknown;
}

export interface EventRecord {
  readonly id: string;
  readonly indexed_at_ms: number;
  readonly event: unknown;
  readonly metadata: Record<string, unknown>;
}

interface EventPage {
  readonly data: EventRecord[];
  readonly page_info: { readonly end_cursor: string | null; readonly count: number };
}

/** The REST surface the tests need, against any base URL (in-process server or the real binary). */
export class ApiClient {
  constructor(
    readonly base: string,
    readonly key: string,
  ) {}

  async call<T = Record<string, unknown>>(
    method: string,
    url: string,
    body?: unknown,
  ): Promise<{ status: number; json: T }> {
    const response = await fetch(`${this.base}${url}`, {
      method,
      headers: {
        authorization: `Bearer ${this.key}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    return { status: response.status, json: (text ? JSON.parse(text) : {}) as T };
  }

  /**
   * Deploys a fixture file (path under fixtures/components) as a source; throws unless 200.
   * `variant` appends a comment to the code, which makes it another saved component.
   */
  async deploy(
    file: string,
    options: { name?: string; configuredProps?: Record<string, unknown>; variant?: string } = {},
  ): Promise<DeployedSource> {
    const { status, json } = await this.call<{ data: DeployedSource }>('POST', '/v1/sources', {
      component_code: `${fixtureCode(file)}${options.variant ? `\n// variant: ${options.variant}\n` : ''}`,
      ...(options.name ? { name: options.name } : {}),
      ...(options.configuredProps ? { configured_props: options.configuredProps } : {}),
    });
    if (status !== 200) throw new Error(`deploy of ${file} answered ${status}: ${JSON.stringify(json)}`);
    return json.data;
  }

  /** The URL of a source's HTTP endpoint on this server (the published one may name another host). */
  endpoint(source: DeployedSource, suffix = ''): string {
    if (!source.endpoint_url) throw new Error(`source ${source.id} has no HTTP endpoint`);
    return `${this.base}${new URL(source.endpoint_url).pathname}${suffix}`;
  }

  /** Every event of a source's bin, oldest first, read page by page (pages of `pageSize`). */
  async allEvents(sourceId: string, pageSize = 25): Promise<EventRecord[]> {
    const out: EventRecord[] = [];
    let before: string | null = null;
    for (;;) {
      const query: string = `limit=${pageSize}&expand=event${before ? `&before=${encodeURIComponent(before)}` : ''}`;
      const { status, json }: { status: number; json: EventPage } = await this.call<EventPage>(
        'GET',
        `/v1/sources/${sourceId}/event_summaries?${query}`,
      );
      if (status !== 200) throw new Error(`event_summaries answered ${status}: ${JSON.stringify(json)}`);
      out.push(...json.data);
      if (json.data.length < pageSize || !json.page_info.end_cursor) break;
      before = json.page_info.end_cursor;
    }
    return out.reverse();
  }
}

export interface TestServer {
  readonly engine: Engine;
  /** The engine's SQLite file, for tests that inspect or alter rows on a connection of their own. */
  readonly dbFile: string;
  readonly app: FastifyInstance;
  readonly base: string;
  readonly key: string;
  readonly api: ApiClient;
  readonly logs: string[];
  close(): Promise<void>;
}

/** An engine on a temporary data dir and cache, its server listening on a free port. */
export async function startTestServer(
  options: {
    responseDeadlineMs?: number;
    sseKeepaliveMs?: number;
    sseMaxBufferBytes?: number;
    endpointBaseUrl?: string;
    concurrency?: number;
    retry?: Partial<RetryPolicy>;
  } = {},
): Promise<TestServer> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tributary-server-data-'));
  const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'tributary-server-cache-'));
  const logs: string[] = [];
  const log = (message: string): void => {
    logs.push(message);
  };
  const engine = await Engine.create({
    dataDir,
    cacheDir,
    publicUrl: 'http://endpoints.test.invalid',
    allowPrivateUrls: false,
    concurrency: options.concurrency ?? 4,
    sourceTimeoutMs: 20_000,
    log,
    ...(options.endpointBaseUrl ? { endpointBaseUrl: options.endpointBaseUrl } : {}),
    ...(options.retry ? { retry: options.retry } : {}),
  });
  const { key } = await engine.apiKeys.create('test');
  const app = await createServer({
    engine,
    version: '0.0.0-test',
    log,
    ...(options.responseDeadlineMs !== undefined ? { responseDeadlineMs: options.responseDeadlineMs } : {}),
    ...(options.sseKeepaliveMs !== undefined ? { sseKeepaliveMs: options.sseKeepaliveMs } : {}),
    ...(options.sseMaxBufferBytes !== undefined ? { sseMaxBufferBytes: options.sseMaxBufferBytes } : {}),
    ...(options.endpointBaseUrl ? { endpointBaseUrl: options.endpointBaseUrl } : {}),
  });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  await engine.start();
  return {
    engine,
    dbFile: path.join(dataDir, 'tributary.db'),
    app,
    base: address,
    key,
    api: new ApiClient(address, key),
    logs,
    async close() {
      await app.close();
      await engine.stop();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(cacheDir, { recursive: true, force: true });
    },
  };
}

/** Polls `probe` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function waitFor<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  what: string,
  timeoutMs = 15_000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Waits until a source's bin holds at least `count` events and returns them, oldest first. */
export function waitForEvents(
  api: ApiClient,
  sourceId: string,
  count: number,
  timeoutMs = 15_000,
): Promise<EventRecord[]> {
  return waitFor(
    async () => {
      const events = await api.allEvents(sourceId, 100);
      return events.length >= count ? events : undefined;
    },
    `${count} events of ${sourceId}`,
    timeoutMs,
  );
}

/** One parsed SSE item: a message (with its id and data lines) or a comment line. */
export type SseItem =
  | { readonly type: 'message'; readonly id: string | null; readonly event: string | null; readonly data: string }
  | { readonly type: 'comment'; readonly text: string };

/**
 * An open SSE response read as it arrives, parsed per the EventSource rules (blank line ends a
 * message; `:` starts a comment). `next` waits for the next item that matches.
 */
export class SseStream {
  readonly items: SseItem[] = [];
  private cursor = 0;
  private buffer = '';
  private ended = false;
  private wake: (() => void) | null = null;
  private readonly pump: Promise<void>;

  private constructor(
    readonly response: Response,
    private readonly controller: AbortController,
  ) {
    this.pump = this.read();
  }

  static async open(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
    const controller = new AbortController();
    const response = await fetch(url, { headers, signal: controller.signal });
    return new SseStream(response, controller);
  }

  get messages(): Extract<SseItem, { type: 'message' }>[] {
    return this.items.filter((item): item is Extract<SseItem, { type: 'message' }> => item.type === 'message');
  }

  private async read(): Promise<void> {
    if (!this.response.body) return;
    const reader = this.response.body.getReader();
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        this.buffer += decoder.decode(value, { stream: true });
        this.parse();
      }
    } catch {
      // aborted by close()
    } finally {
      this.ended = true;
      this.notify();
    }
  }

  private parse(): void {
    let index: number;
    while ((index = this.buffer.search(/\r?\n\r?\n/)) !== -1) {
      const block = this.buffer.slice(0, index);
      this.buffer = this.buffer.slice(index).replace(/^\r?\n\r?\n/, '');
      let id: string | null = null;
      let event: string | null = null;
      const data: string[] = [];
      for (const line of block.split(/\r?\n/)) {
        if (line.startsWith(':')) {
          this.items.push({ type: 'comment', text: line.slice(1) });
          continue;
        }
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id') id = value;
        else if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
      }
      if (id !== null || data.length > 0) this.items.push({ type: 'message', id, event, data: data.join('\n') });
    }
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  /** The next item (after those already taken by `next`) that matches, waiting up to `timeoutMs`. */
  async next(predicate: (item: SseItem) => boolean = () => true, timeoutMs = 10_000): Promise<SseItem> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      while (this.cursor < this.items.length) {
        const item = this.items[this.cursor++];
        if (item && predicate(item)) return item;
      }
      if (this.ended) throw new Error(`SSE stream ended; items so far: ${JSON.stringify(this.items)}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for an SSE item; items so far: ${JSON.stringify(this.items)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** The next message, its data parsed as JSON. */
  async nextMessage<T = Record<string, unknown>>(timeoutMs = 10_000): Promise<{ id: string | null; data: T }> {
    const item = await this.next((candidate) => candidate.type === 'message', timeoutMs);
    if (item.type !== 'message') throw new Error('unreachable');
    return { id: item.id, data: JSON.parse(item.data) as T };
  }

  async close(): Promise<void> {
    this.controller.abort();
    await this.pump;
  }
}

/** POSTs a JSON body to a URL and returns the status and text. */
export async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string; headers: Headers }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

/** The invocations of a source still in the durable queue. */
export function queuedInvocations(
  server: { readonly dbFile: string },
  sourceId: string,
): { id: string; status: string; trigger: string; event: string; created_at: number }[] {
  return readRows(
    server.dbFile,
    'SELECT id, status, trigger, event, created_at FROM invocations WHERE source_id = ?',
    sourceId,
  );
}
