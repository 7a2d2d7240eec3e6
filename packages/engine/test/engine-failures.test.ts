/**
 * The runner's and the scheduler's failure paths, on a real engine: real SQLite file, real sandbox
 * workers running fixture components, and an injected clock that decides when a backoff is over.
 * Database failures are real SQLite errors: a trigger, created on a connection of the test's own,
 * makes the engine's statements fail until it is dropped.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import SqliteDatabase from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../src/engine.js';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../fixtures/components');
const T0 = Date.UTC(2026, 0, 1, 12);
const BACKOFF_MS = 60_000;

interface Setup {
  readonly engine: Engine;
  readonly logs: string[];
  readonly clock: { now: () => number; advance: (ms: number) => void };
  readonly sqlite: SqliteDatabase.Database;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(): Promise<Setup> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tributary-engine-data-'));
  const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'tributary-engine-cache-'));
  let ms = T0;
  const clock = { now: () => ms, advance: (by: number) => void (ms += by) };
  const logs: string[] = [];
  const engine = await Engine.create({
    dataDir,
    cacheDir,
    publicUrl: 'http://endpoints.test.invalid',
    allowPrivateUrls: false,
    concurrency: 2,
    sourceTimeoutMs: 20_000,
    log: (message) => logs.push(message),
    now: clock.now,
    // Real timers never end a backoff here: only the test's clock does.
    retry: { maxAttempts: 3, baseDelayMs: BACKOFF_MS, maxDelayMs: 4 * BACKOFF_MS },
    schedulerMaxSleepMs: 25,
  });
  const sqlite = new SqliteDatabase(path.join(dataDir, 'tributary.db'));
  cleanups.push(async () => {
    sqlite.close();
    await engine.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(cacheDir, { recursive: true, force: true });
  });
  return { engine, logs, clock, sqlite };
}

async function until<T>(probe: () => Promise<T | undefined> | T | undefined, what: string, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const code = (file: string): string => readFileSync(path.join(FIXTURES, file), 'utf8');
const matching = (logs: readonly string[], pattern: RegExp): string[] => logs.filter((line) => pattern.test(line));

async function eventsOf(engine: Engine, sourceId: string): Promise<unknown[]> {
  const page = await engine.events.list(sourceId, { limit: 100 });
  return page.data.map((record) => record.event).reverse();
}

function queued(sqlite: SqliteDatabase.Database, sourceId: string): { attempts: number; not_before: number }[] {
  return sqlite.prepare('SELECT attempts, not_before FROM invocations WHERE source_id = ?').all(sourceId) as {
    attempts: number;
    not_before: number;
  }[];
}

describe('runner failure paths (real engine, injected clock)', () => {
  it('a batch whose commit fails is retried one by one, with backoff on the clock, then kept as a dead letter', async () => {
    const { engine, logs, clock, sqlite } = await setup();
    const source = await engine.sources.deploy({ componentCode: code('engine/steps.mjs'), name: 'steps' });
    // Queued before the runner starts: the four go to the worker as one batch.
    for (const n of [1, 2, 3, 4]) await engine.runner.enqueue({ sourceId: source.id, trigger: 'manual', event: { n } });
    sqlite
      .prepare("CREATE TRIGGER refuse_logs BEFORE INSERT ON logs BEGIN SELECT RAISE(ABORT, 'disk full'); END")
      .run();
    await engine.start();

    await until(() => matching(logs, /retries \(attempt 2\)/)[0], 'the first retry to be scheduled');
    expect(
      matching(logs, /a batch of 4 invocations .* failed in the platform \(retrying them one by one\): disk full/),
    ).toHaveLength(1);
    // The first invocation holds back the others while it backs off; nothing was stored.
    expect(queued(sqlite, source.id).map((row) => row.attempts)).toEqual([1, 0, 0, 0]);
    expect(queued(sqlite, source.id)[0]?.not_before).toBe(T0 + BACKOFF_MS);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await engine.runner.rescan();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(matching(logs, /failed in the platform: disk full/)).toHaveLength(1);

    // The clock ends each backoff: attempt 2 after 60 s, attempt 3 after 120 s more, then a dead letter.
    clock.advance(BACKOFF_MS);
    await engine.runner.rescan();
    await until(() => matching(logs, /retries \(attempt 3\) after 120000 ms/)[0], 'the second retry');
    clock.advance(2 * BACKOFF_MS);
    await engine.runner.rescan();
    const letter = await until(async () => (await engine.deadLetters.list({ limit: 10 })).data[0], 'a dead letter');
    expect(letter).toMatchObject({
      sourceId: source.id,
      trigger: 'manual',
      event: { n: 1 },
      attempts: 3,
      createdAt: T0,
      failedAt: T0 + 3 * BACKOFF_MS,
    });
    expect(letter.lastError).toContain('disk full');

    // The store is back: the rest run, then the dead letter runs again when retried.
    sqlite.prepare('DROP TRIGGER refuse_logs').run();
    // n=2 may have failed once before the trigger went: the clock ends its backoff too.
    await until(async () => {
      if ((await eventsOf(engine, source.id)).length === 3) return true;
      clock.advance(BACKOFF_MS);
      await engine.runner.rescan();
      return undefined;
    }, 'three events');
    await engine.deadLetters.retry(letter.id);
    await until(async () => ((await eventsOf(engine, source.id)).length === 4 ? true : undefined), 'four events');
    expect(await eventsOf(engine, source.id)).toEqual([
      { n: 2, count: 1 },
      { n: 3, count: 2 },
      { n: 4, count: 3 },
      { n: 1, count: 4 },
    ]);
    expect((await engine.deadLetters.list({ limit: 10 })).total).toBe(0);
    await until(() => (queued(sqlite, source.id).length === 0 ? true : undefined), 'an empty queue');
  });

  it('a worker that dies mid-batch fails only its own invocation: a result, not a platform failure', async () => {
    const { engine, logs, sqlite } = await setup();
    const source = await engine.sources.deploy({ componentCode: code('engine/steps.mjs'), name: 'crashing' });
    for (const n of [1, 2, 3, 4, 5])
      await engine.runner.enqueue({ sourceId: source.id, trigger: 'manual', event: { n, exit: n === 3 } });
    await engine.start();
    await until(async () => ((await eventsOf(engine, source.id)).length === 4 ? true : undefined), 'four events');
    await until(() => (queued(sqlite, source.id).length === 0 ? true : undefined), 'an empty queue');
    expect((await eventsOf(engine, source.id)).map((event) => (event as { n: number }).n)).toEqual([1, 2, 4, 5]);
    const crashed = (await engine.events.logs(source.id, { limit: 100 })).data.filter((entry) =>
      /--- run failed .*CRASHED/.test(entry.message),
    );
    expect(crashed).toHaveLength(1);
    expect((await engine.deadLetters.list({ limit: 10 })).total).toBe(0);
    expect(matching(logs, /failed in the platform/)).toEqual([]);
  });
});

describe('scheduler failure paths (real engine, injected clock)', () => {
  it('a database error in a tick is logged and retried; the server keeps running and the tick fires once', async () => {
    const { engine, logs, clock, sqlite } = await setup();
    await engine.start();
    const source = await engine.sources.deploy({
      componentCode: code('f03-tick.mjs'),
      name: 'tick',
      configuredProps: { timer: { intervalSeconds: 60 } },
    });
    sqlite
      .prepare(
        "CREATE TRIGGER refuse_ticks BEFORE UPDATE OF next_fire_at ON sources BEGIN SELECT RAISE(ABORT, 'database is locked up'); END",
      )
      .run();
    // Several ticks are due; every check fails in SQLite.
    clock.advance(5 * 60_000);
    await until(() => (matching(logs, /scheduler's check failed/).length >= 3 ? true : undefined), 'failed checks');
    expect(matching(logs, /scheduler's check failed .*database is locked up/).length).toBeGreaterThanOrEqual(3);
    expect(queued(sqlite, source.id)).toEqual([]);
    expect(await eventsOf(engine, source.id)).toEqual([]);

    sqlite.prepare('DROP TRIGGER refuse_ticks').run();
    await until(async () => ((await eventsOf(engine, source.id)).length === 1 ? true : undefined), 'the tick');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await eventsOf(engine, source.id)).toHaveLength(1);
    const next = sqlite.prepare('SELECT next_fire_at FROM sources WHERE id = ?').get(source.id) as {
      next_fire_at: number;
    };
    expect(next.next_fire_at).toBeGreaterThan(clock.now());
  });
});
