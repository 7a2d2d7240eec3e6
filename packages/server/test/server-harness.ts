/**
 * A real server for the REST tests: an Engine on a temporary data directory (real SQLite file,
 * real sandbox workers), the Fastify app from createServer listening on an ephemeral port, and an
 * API key. Tests drive it over HTTP with fetch, exactly like a client would.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Engine, PrometheusMetrics, type EngineOptions } from '@tributary/engine';
import type { FastifyInstance } from 'fastify';
import { createServer, type LogLevel } from '../src/index.js';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const FIXTURES = path.join(REPO, 'fixtures/components');

/** The text of a fixture component (fixtures/components/<name>). */
export function fixture(name: string): string {
  return readFileSync(path.join(FIXTURES, name), 'utf8');
}

/** better-sqlite3 is a dependency of the engine; tests open the same file to inspect or alter rows. */
type SqliteDatabase = {
  prepare(sql: string): {
    run(...params: unknown[]): unknown;
    get(...params: unknown[]): unknown;
    all(...params: unknown[]): unknown[];
  };
  pragma(source: string): unknown;
  close(): void;
};
export const openSqlite: (file: string) => SqliteDatabase = (() => {
  const require = createRequire(path.join(REPO, 'packages/engine/package.json'));
  const Database = require('better-sqlite3') as new (file: string) => SqliteDatabase;
  return (file: string) => new Database(file);
})();

/** Rows of one query on a connection of its own to the engine's SQLite file (WAL: reads never block it). */
export function readRows<T = Record<string, unknown>>(file: string, query: string, ...params: unknown[]): T[] {
  const sqlite = openSqlite(file);
  try {
    return sqlite.prepare(query).all(...params) as T[];
  } finally {
    sqlite.close();
  }
}

/** A parsed JSON body whose shape each test asserts on. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyJson = any;

export interface ApiResponse<T = AnyJson> {
  readonly status: number;
  readonly headers: Headers;
  /** The parsed JSON body (null when the body is empty or not JSON). */
  readonly body: T;
  readonly text: string;
}

export interface RequestOptions {
  /** A value sent as JSON; a string or Buffer is sent as is (with `contentType`). */
  readonly body?: unknown;
  readonly rawBody?: string | Buffer;
  readonly contentType?: string | null;
  /** The API key to send; null sends no Authorization header. Default: the harness key. */
  readonly key?: string | null;
  readonly headers?: Record<string, string>;
}

export interface Harness {
  readonly engine: Engine;
  readonly app: FastifyInstance;
  /** http://127.0.0.1:<port> */
  readonly base: string;
  readonly key: string;
  readonly dataDir: string;
  readonly cacheDir: string;
  readonly dbFile: string;
  /** Lines the engine and server logged. */
  readonly logLines: string[];
  request<T = AnyJson>(method: string, url: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  /** The path of an endpoint URL on this server (the engine's public URL is a placeholder). */
  endpoint(endpointUrl: string): string;
  /** Closes the server and stops the engine; the data directory is kept unless `remove`. */
  close(options?: { readonly remove?: boolean }): Promise<void>;
}

export interface HarnessOptions {
  /** Reuse a data directory (a restart); default: a fresh temporary one. */
  readonly dataDir?: string;
  readonly cacheDir?: string;
  readonly allowPrivateUrls?: boolean;
  readonly sourceTimeoutMs?: number;
  readonly apiBodyLimitBytes?: number;
  /** Skip engine.start() (no scheduler or queue runner). */
  readonly startEngine?: boolean;
  /** Create an API key (default true); on a restart the key of the first run can be passed. */
  readonly apiKey?: string;
  /** An apps file for the catalog (docs/accounts.md). */
  readonly appsFile?: string;
  /** A built web app folder to serve at `/`. */
  readonly webDir?: string;
  /** Turns the pino request log on, written to `logStream` (default stderr). */
  readonly logLevel?: LogLevel;
  readonly logStream?: NodeJS.WritableStream;
  /** `$.send.*` and webhook delivery settings (SMTP, S3, retries). */
  readonly delivery?: EngineOptions['delivery'];
  /** Environment for OAuth clients (TRIBUTARY_OAUTH_<SLUG>_CLIENT_ID/SECRET); default: none. */
  readonly env?: EngineOptions['env'];
  readonly now?: () => number;
  /** Runs on the app before it listens (a test adds a route). */
  readonly beforeListen?: (app: FastifyInstance) => void;
  /** Prometheus metrics on (as `tributary start` has them); default off. */
  readonly metrics?: boolean;
  readonly metricsPublic?: boolean;
  /** `/readyz` thresholds. */
  readonly readiness?: EngineOptions['readiness'];
  /** The store on PostgreSQL instead of the SQLite file. */
  readonly databaseUrl?: string;
  /** Run slots (default 4) and when a run moves to a long-run slot (EngineOptions). */
  readonly concurrency?: number;
  readonly longRunMs?: number;
  readonly longRunSlots?: number;
  /** The runner's safety-net re-read of the queue (EngineOptions.queueRescanMs; default 5 s). */
  readonly queueRescanMs?: number;
  /** How long an update waits for the source's run in flight (EngineOptions.sourceUpdateWaitMs; default 10 s). */
  readonly sourceUpdateWaitMs?: number;
}

export const PUBLIC_URL = 'http://tributary.test';

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const dataDir = options.dataDir ?? mkdtempSync(path.join(os.tmpdir(), 'tributary-server-data-'));
  const cacheDir = options.cacheDir ?? mkdtempSync(path.join(os.tmpdir(), 'tributary-server-cache-'));
  const logLines: string[] = [];
  const log = (message: string): void => {
    logLines.push(message);
  };
  const engine = await Engine.create({
    dataDir,
    cacheDir,
    publicUrl: PUBLIC_URL,
    allowPrivateUrls: options.allowPrivateUrls ?? false,
    concurrency: options.concurrency ?? 4,
    ...(options.longRunMs !== undefined ? { longRunMs: options.longRunMs } : {}),
    ...(options.longRunSlots !== undefined ? { longRunSlots: options.longRunSlots } : {}),
    ...(options.queueRescanMs !== undefined ? { queueRescanMs: options.queueRescanMs } : {}),
    ...(options.sourceUpdateWaitMs !== undefined ? { sourceUpdateWaitMs: options.sourceUpdateWaitMs } : {}),
    sourceTimeoutMs: options.sourceTimeoutMs ?? 20_000,
    log,
    ...(options.appsFile !== undefined ? { appsFile: options.appsFile } : {}),
    ...(options.delivery !== undefined ? { delivery: options.delivery } : {}),
    ...(options.metrics ? { metrics: new PrometheusMetrics() } : {}),
    ...(options.readiness !== undefined ? { readiness: options.readiness } : {}),
    ...(options.databaseUrl !== undefined ? { databaseUrl: options.databaseUrl } : {}),
    ...(options.env !== undefined ? { env: options.env } : {}),
    ...(options.now !== undefined ? { now: options.now } : {}),
  });
  const key = options.apiKey ?? (await engine.apiKeys.create('test')).key;
  const app = await createServer({
    engine,
    version: '0.0.0-test',
    log,
    ...(options.apiBodyLimitBytes !== undefined ? { apiBodyLimitBytes: options.apiBodyLimitBytes } : {}),
    ...(options.webDir !== undefined ? { webDir: options.webDir } : {}),
    ...(options.logLevel !== undefined ? { logLevel: options.logLevel } : {}),
    ...(options.logStream !== undefined ? { logStream: options.logStream } : {}),
    ...(options.metricsPublic !== undefined ? { metricsPublic: options.metricsPublic } : {}),
  });
  options.beforeListen?.(app);
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  if (options.startEngine !== false) await engine.start();
  let closed = false;

  const request = async <T>(
    method: string,
    url: string,
    requestOptions: RequestOptions = {},
  ): Promise<ApiResponse<T>> => {
    const headers: Record<string, string> = { ...(requestOptions.headers ?? {}) };
    const sendKey = requestOptions.key === undefined ? key : requestOptions.key;
    if (sendKey !== null) headers['authorization'] = `Bearer ${sendKey}`;
    let body: string | Buffer | undefined;
    if (requestOptions.rawBody !== undefined) body = requestOptions.rawBody;
    else if (requestOptions.body !== undefined) body = JSON.stringify(requestOptions.body);
    if (body !== undefined) {
      const contentType = requestOptions.contentType === undefined ? 'application/json' : requestOptions.contentType;
      if (contentType !== null) headers['content-type'] = contentType;
    }
    const response = await fetch(`${address}${url}`, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      parsed = null;
    }
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  };

  return {
    engine,
    app,
    base: address,
    key,
    dataDir,
    cacheDir,
    dbFile: path.join(dataDir, 'tributary.db'),
    logLines,
    request,
    endpoint: (endpointUrl) => {
      if (!endpointUrl.startsWith(`${PUBLIC_URL}/e/`))
        throw new Error(`not an endpoint URL of this server: ${endpointUrl}`);
      return endpointUrl.slice(PUBLIC_URL.length);
    },
    close: async (closeOptions = {}) => {
      if (!closed) {
        closed = true;
        await app.close();
        await engine.stop();
      }
      if (closeOptions.remove) {
        rmSync(dataDir, { recursive: true, force: true });
        if (!options.cacheDir) rmSync(cacheDir, { recursive: true, force: true });
      }
    },
  };
}

/** Deploys a fixture component as a source and returns its id and the full URL of its endpoint. */
export async function deployFixture(
  harness: Harness,
  fixtureName: string,
  name: string,
): Promise<{ id: string; url: string }> {
  const deployed = await harness.request('POST', '/v1/sources', {
    body: { component_code: fixture(fixtureName), name },
  });
  if (deployed.status !== 200) throw new Error(`deploying ${fixtureName} answered ${deployed.status}`);
  return {
    id: deployed.body.data.id as string,
    url: `${harness.base}${harness.endpoint(deployed.body.data.endpoint_url as string)}`,
  };
}

/** POSTs a JSON event to an endpoint URL. */
export function postEvent(url: string, body: unknown): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

/** Polls `check` until it returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function waitFor<T>(
  check: () => Promise<T | undefined | false>,
  what: string,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** No invocation of the source is queued or running (the engine's durable queue is empty for it). */
export async function queueIdle(harness: Harness, sourceId: string): Promise<void> {
  await waitFor(async () => {
    const rows = readRows(harness.dbFile, 'SELECT id FROM invocations WHERE source_id = ?', sourceId);
    return rows.length === 0;
  }, `the invocations of ${sourceId} to finish`);
}

/** All log messages of a source, oldest first, read through the API. */
export async function logMessages(harness: Harness, sourceId: string): Promise<string[]> {
  const response = await harness.request<{ data: { message: string }[] }>(
    'GET',
    `/v1/sources/${sourceId}/logs?limit=100`,
  );
  if (response.status !== 200) throw new Error(`GET logs answered ${response.status}: ${response.text}`);
  return response.body.data.map((entry) => entry.message).reverse();
}

/**
 * Everything a client can list (sources, published components) and the raw row counts. A refused
 * deploy stores nothing, not even its code; a deploy that was accepted and deleted since leaves
 * its saved component: `savedComponents: false` leaves that count out.
 */
export async function snapshot(
  harness: Harness,
  options: { readonly savedComponents?: boolean } = {},
): Promise<unknown> {
  const sources = await harness.request('GET', '/v1/users/me/sources?limit=100');
  const registry = await harness.request('GET', '/v1/components/registry');
  const count = (table: 'components' | 'sources' | 'registry' | 'events' | 'source_state' | 'api_keys') =>
    Promise.resolve(Number(readRows<{ n: number }>(harness.dbFile, `SELECT count(*) AS n FROM ${table}`)[0]?.n ?? 0));
  return {
    sources: sources.body,
    registry: registry.body,
    counts: {
      ...(options.savedComponents === false ? {} : { components: await count('components') }),
      sources: await count('sources'),
      registry: await count('registry'),
      events: await count('events'),
      source_state: await count('source_state'),
      api_keys: await count('api_keys'),
    },
  };
}

/** How many rows of a source a table of the harness's SQLite file holds (`source_id = ?`). */
export function countSourceRows(harness: Harness, table: string, sourceId: string): number {
  const rows = readRows<{ n: number }>(
    harness.dbFile,
    `SELECT count(*) AS n FROM ${table} WHERE source_id = ?`,
    sourceId,
  );
  return Number(rows[0]?.n ?? 0);
}

/** The events of a source's event bin (`GET /v1/sources/:id/event_summaries`), newest first. */
export async function sourceEvents<T>(harness: Harness, sourceId: string): Promise<T[]> {
  const page = await harness.request('GET', `/v1/sources/${sourceId}/event_summaries`);
  return (page.body.data as { event: T }[]).map((summary) => summary.event);
}
