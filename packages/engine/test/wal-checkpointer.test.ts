/**
 * The WAL of the server's SQLite file is checkpointed by a thread of its own (WalCheckpointer), on
 * real files: the server's connection stops checkpointing, the thread copies its commits into the
 * database file, restarts a log that writes never let rest, closes before the server's
 * connection, and when it fails the connection checkpoints by itself again.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { WalCheckpointer } from '../src/store/wal-checkpointer.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function open(): { raw: Database.Database; file: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tributary-wal-checkpointer-'));
  const file = path.join(dir, 'test.db');
  const raw = new Database(file);
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = NORMAL');
  raw.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)');
  cleanups.push(() => {
    if (raw.open) raw.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { raw, file };
}

/** Frames in the log and how many of them are in the database file, asked of another connection. */
function walState(file: string): { busy: number; log: number; checkpointed: number } {
  const reader = new Database(file, { fileMustExist: true });
  try {
    // A checkpoint of no frames: PASSIVE copies what it can, which the thread already did.
    const [state] = reader.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
    return state ?? { busy: 0, log: 0, checkpointed: 0 };
  } finally {
    reader.close();
  }
}

const insertMany = (raw: Database.Database, from: number, count: number) => {
  const insert = raw.prepare('INSERT INTO notes (id, text) VALUES (?, ?)');
  raw.transaction(() => {
    for (let id = from; id < from + count; id += 1) insert.run(id, 'x'.repeat(500));
  })();
};

describe('WalCheckpointer', () => {
  it('takes checkpoints away from the connection and copies its commits into the database file', async () => {
    const { raw, file } = open();
    const lines: string[] = [];
    const checkpointer = new WalCheckpointer({ file, raw, log: (line) => lines.push(line), busyMs: 5, idleMs: 20 });
    cleanups.push(() => checkpointer.stop());
    expect(raw.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    const before = statSync(file).size;
    for (let batch = 0; batch < 30; batch += 1) insertMany(raw, batch * 100, 100);
    // 1.5 MB of rows reach the database file with no checkpoint asked of the connection.
    await expect.poll(() => statSync(file).size).toBeGreaterThan(before + 1_000_000);
    await expect
      .poll(() => walState(file))
      .toEqual({ busy: 0, log: expect.any(Number), checkpointed: expect.any(Number) });
    const state = walState(file);
    expect(state.log).toBeGreaterThan(0);
    expect(state.checkpointed).toBe(state.log);
    expect(lines).toEqual([]);
  });

  it('restarts a log that commits never let rest, so it does not grow without end', async () => {
    const { raw, file } = open();
    const checkpointer = new WalCheckpointer({
      file,
      raw,
      log: () => undefined,
      busyMs: 1,
      idleMs: 1,
      restartFrames: 64,
    });
    cleanups.push(() => checkpointer.stop());
    // Wait for the thread's first checkpoint, then commit 72 MB of rows (500 bytes each), back to
    // back for 2 ms at a time between turns of the event loop: a server's commits, far faster than
    // its own. An amount, not a time: a slow host writes less in a given time.
    await delay(200);
    let id = 0;
    while (id * 500 < 72 * 1024 * 1024) {
      for (const turnEnds = Date.now() + 2; Date.now() < turnEnds; id += 20) insertMany(raw, id, 20);
      await new Promise((resolve) => setImmediate(resolve));
    }
    const written = Number(raw.prepare('SELECT sum(length(text)) AS n FROM notes').pluck().get());
    expect(written).toBeGreaterThan(64 * 1024 * 1024);
    // Without restarts the log holds about every page written, twice the rows' bytes (its file
    // never shrinks: its size is the most it ever held).
    expect(statSync(`${file}-wal`).size).toBeLessThan(32 * 1024 * 1024);
    expect(raw.prepare('SELECT count(*) AS n FROM notes').get()).toEqual({ n: id });
  });

  it('stops before the connection closes, which then removes the log', async () => {
    const { raw, file } = open();
    const checkpointer = new WalCheckpointer({ file, raw, log: () => undefined });
    insertMany(raw, 0, 500);
    await checkpointer.stop();
    raw.close();
    // The last connection to close checkpoints and deletes the log: the thread's was closed first.
    expect(existsSync(`${file}-wal`)).toBe(false);
    const reader = new Database(file, { fileMustExist: true });
    expect(reader.prepare('SELECT count(*) AS n FROM notes').get()).toEqual({ n: 500 });
    reader.close();
  });

  it('gives checkpoints back to the connection, saying so, when its thread fails', async () => {
    const { raw, file } = open();
    const lines: string[] = [];
    // A file that does not exist: the thread cannot open it.
    const checkpointer = new WalCheckpointer({ file: `${file}.missing`, raw, log: (line) => lines.push(line) });
    cleanups.push(() => checkpointer.stop());
    await expect.poll(() => lines.length).toBe(1);
    expect(lines[0]).toMatch(/WAL checkpoint thread failed: .*checkpoints its WAL from the server's connection again/);
    expect(raw.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
  });
});
