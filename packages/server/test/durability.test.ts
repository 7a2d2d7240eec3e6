/**
 * Delivery guarantee of the HTTP ingress with the real binary (reliability §2.9 rule 1): a 2xx
 * means the invocation is durable. `tributary start` is killed with SIGKILL while requests stream
 * in, then restarted on the same data dir; every acknowledged request must have run (at least
 * once, never zero) and its event must be in the event bin.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import SqliteDatabase from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, REPO, waitFor, type DeployedSource } from './ingress-harness.js';
import { freePort } from '../../../tools/test-support/tributary-server.js';

const BIN = path.join(REPO, 'packages/cli/bin/tributary.js');
const ADMIN_KEY = 'trb_durability_test_admin_key_0123456789';

/** Requests in all, spread round-robin over SOURCES so each bin (100 events) holds all of its own. */
const REQUESTS = 300;
const SOURCES = 4;
const CLIENT_CONCURRENCY = 8;
/** SIGKILL once this many requests have been acknowledged. */
const KILL_AFTER_ACKS = 110;
/** Pause of each client between its requests. */
const PACE_MS = 40;

/** One `tributary start` process. */
class ServerProcess {
  readonly stdout: string[] = [];
  readonly stderr: string[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  private constructor(
    readonly child: ChildProcess,
    readonly base: string,
  ) {
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  static async start(dataDir: string, cacheDir: string): Promise<ServerProcess> {
    const port = await freePort();
    const child = spawn(process.execPath, [BIN, 'start', '--port', String(port), '--data-dir', dataDir], {
      cwd: REPO,
      env: {
        ...process.env,
        TRIBUTARY_ADMIN_KEY: ADMIN_KEY,
        TRIBUTARY_CACHE_DIR: cacheDir,
        TRIBUTARY_CONCURRENCY: '4',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const server = new ServerProcess(child, `http://127.0.0.1:${port}`);
    child.stderr?.on('data', (chunk: Buffer) => server.stderr.push(chunk.toString()));
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`server not ready after 30 s; stderr: ${server.stderr.join('')}`)),
        30_000,
      );
      createInterface({ input: child.stdout! }).on('line', (line) => {
        server.stdout.push(line);
        if (/ ready: API /.test(line)) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(
          new Error(`server exited before ready (code ${code}, signal ${signal}); stderr: ${server.stderr.join('')}`),
        );
      });
    });
    await ready;
    return server;
  }

  async kill(signal: NodeJS.Signals): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    await this.exited;
  }
}

/** Rows of a table, read from the SQLite file itself (the durable queue is `invocations`). */
function countRows(dataDir: string, table: 'invocations' | 'events'): number {
  const db = new SqliteDatabase(path.join(dataDir, 'tributary.db'), { readonly: true, fileMustExist: true });
  try {
    return (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe('durability of acknowledged HTTP requests across kill -9 (real binary)', () => {
  let dataDir: string;
  let cacheDir: string;
  const servers: ServerProcess[] = [];

  beforeAll(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'tributary-durability-data-'));
    cacheDir = mkdtempSync(path.join(os.tmpdir(), 'tributary-durability-cache-'));
  });

  afterAll(async () => {
    for (const server of servers) await server.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(cacheDir, { recursive: true, force: true });
  });

  it(
    'runs every request that got a 2xx, and keeps its event, after SIGKILL and restart',
    { timeout: 180_000 },
    async () => {
      // First life: deploy the sources, then stream requests and kill the server in the middle.
      const first = await ServerProcess.start(dataDir, cacheDir);
      servers.push(first);
      let api = new ApiClient(first.base, ADMIN_KEY);
      const sources: DeployedSource[] = [];
      for (let i = 0; i < SOURCES; i += 1) {
        // A short sleep in run keeps a backlog in the queue, so the kill catches acknowledged work not yet run.
        sources.push(
          await api.deploy('server/numbered-webhook.mjs', { name: `durable-${i}`, configuredProps: { delayMs: 25 } }),
        );
      }
      const endpointPaths = sources.map((source) => new URL(source.endpoint_url ?? '').pathname);
      const sourceOf = (n: number): number => n % SOURCES;

      const acknowledged = new Set<number>();
      const otherStatus = new Map<number, number>();
      const otherBodies = new Map<number, string>();
      const failed = new Set<number>();
      let next = 0;
      let killed: Promise<void> | null = null;
      const client = async (): Promise<void> => {
        while (next < REQUESTS) {
          const n = next;
          next += 1;
          try {
            const response = await fetch(`${first.base}${endpointPaths[sourceOf(n)]}`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ n }),
              signal: AbortSignal.timeout(10_000),
            });
            const text = await response.text();
            if (response.status >= 200 && response.status < 300) {
              acknowledged.add(n);
              if (text !== 'OK') otherBodies.set(n, text);
            } else otherStatus.set(n, response.status);
          } catch {
            failed.add(n);
          }
          if (acknowledged.size >= KILL_AFTER_ACKS && !killed) killed = first.kill('SIGKILL');
          // Paced a little above what the sources process, so the kill finds work done, running and queued.
          if (!killed) await new Promise((resolve) => setTimeout(resolve, PACE_MS));
        }
      };
      await Promise.all(Array.from({ length: CLIENT_CONCURRENCY }, () => client()));
      await killed;
      const exit = await first.exited;
      expect(exit.signal).toBe('SIGKILL');

      // The kill happened mid-stream: some requests were acknowledged, the rest were not.
      expect(acknowledged.size).toBeGreaterThanOrEqual(KILL_AFTER_ACKS);
      expect(acknowledged.size).toBeLessThan(REQUESTS);
      expect(failed.size).toBeGreaterThan(0);
      expect(acknowledged.size + failed.size + otherStatus.size).toBe(REQUESTS);
      // Every non-2xx answer before the kill would be an ingress failure: there must be none.
      expect([...otherStatus.entries()]).toEqual([]);
      expect([...otherBodies.entries()]).toEqual([]);
      // Acknowledged work was still waiting in the queue when the process died.
      const backlog = countRows(dataDir, 'invocations');
      const committedBeforeKill = countRows(dataDir, 'events');
      const stats = JSON.stringify({
        acknowledged: acknowledged.size,
        failed: failed.size,
        backlog,
        committedBeforeKill,
      });
      expect(backlog, stats).toBeGreaterThan(0);
      // In the file the dead process left, each acknowledged request is either committed or still queued.
      expect(committedBeforeKill + backlog, stats).toBeGreaterThanOrEqual(acknowledged.size);

      // Second life on the same data dir: the queue drains.
      const second = await ServerProcess.start(dataDir, cacheDir);
      servers.push(second);
      api = new ApiClient(second.base, ADMIN_KEY);
      await waitFor(
        () => (countRows(dataDir, 'invocations') === 0 ? true : undefined),
        'the queue to drain after the restart',
        60_000,
        100,
      );

      // Every acknowledged n is in its source's event bin (read page by page), exactly once.
      const missing: number[] = [];
      let stored = 0;
      for (const [index, source] of sources.entries()) {
        const events = await api.allEvents(source.id, 20);
        stored += events.length;
        expect(events.length).toBeLessThanOrEqual(REQUESTS / SOURCES); // the bin never had to drop anything
        const seen = events.map((record) => (record.event as { n: number }).n);
        expect(new Set(seen).size, `duplicate events in ${source.id}`).toBe(seen.length);
        for (const record of events) {
          const n = (record.event as { n: number }).n;
          expect(sourceOf(n)).toBe(index);
          expect(record.metadata['id']).toBe(String(n));
          expect(record.metadata['emitter_id']).toBe(source.id);
        }
        for (const n of acknowledged) if (sourceOf(n) === index && !seen.includes(n)) missing.push(n);
      }
      expect(missing, `acknowledged requests with no event after the restart (${stats})`).toEqual([]);
      // Unacknowledged requests may or may not have run, but nothing beyond what was sent exists.
      expect(stored).toBeGreaterThanOrEqual(acknowledged.size);
      expect(stored).toBeLessThanOrEqual(acknowledged.size + failed.size);

      // The restarted server keeps taking requests.
      const after = await fetch(`${second.base}${endpointPaths[0]}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ n: REQUESTS * SOURCES }),
      });
      expect(after.status).toBe(200);
      await waitFor(
        async () =>
          (await api.allEvents(sources[0]?.id ?? '', 100)).some(
            (record) => (record.event as { n: number }).n === REQUESTS * SOURCES,
          )
            ? true
            : undefined,
        'the post-restart event',
      );

      // A clean stop (SIGTERM) still works on the recovered data dir.
      await second.kill('SIGTERM');
      expect((await second.exited).code).toBe(0);
    },
  );
});
