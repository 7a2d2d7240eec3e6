/**
 * Group commits on a real SQLite file: writes asked for in one turn share a transaction, yet each
 * succeeds or fails on its own, and a write that threw leaves nothing behind; the others, run again
 * after it threw, are committed once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { GroupCommit } from '../src/store/group-commit.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function open(): { raw: Database.Database; file: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tributary-group-commit-'));
  const file = path.join(dir, 'test.db');
  const raw = new Database(file);
  raw.pragma('journal_mode = WAL');
  raw.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)');
  cleanups.push(() => {
    raw.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { raw, file };
}

describe('GroupCommit', () => {
  it('commits the writes of one turn together, rolling back only the one that threw', async () => {
    const { raw, file } = open();
    const group = new GroupCommit(raw);
    const insert = raw.prepare('INSERT INTO notes (id, text) VALUES (?, ?)');
    let transactionsSeen = 0;
    const write = (id: number, text: string) => () => {
      if (raw.inTransaction) transactionsSeen += 1;
      insert.run(id, text);
      return id;
    };
    const outcomes = await Promise.allSettled([
      group.run(write(1, 'one')),
      group.run(() => {
        insert.run(2, 'two');
        throw new Error('the second write refuses');
      }),
      group.run(write(3, 'three')),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(outcomes[0]).toMatchObject({ value: 1 });
    expect(outcomes[1]).toMatchObject({ reason: { message: 'the second write refuses' } });
    // The group ran once without savepoints (the first write, then the throw, all rolled back),
    // then again with a savepoint per write.
    expect(transactionsSeen).toBe(3);
    // What another connection reads is what was committed: the first and the third write.
    const reader = new Database(file, { readonly: true });
    expect(reader.prepare('SELECT id, text FROM notes ORDER BY id').all()).toEqual([
      { id: 1, text: 'one' },
      { id: 3, text: 'three' },
    ]);
    reader.close();
  });

  it('runs each write once when none throws, and hands back each value', async () => {
    const { raw, file } = open();
    const group = new GroupCommit(raw);
    const insert = raw.prepare('INSERT INTO notes (id, text) VALUES (?, ?)');
    const runs = new Map<number, number>();
    const write = (id: number) => () => {
      expect(raw.inTransaction).toBe(true);
      runs.set(id, (runs.get(id) ?? 0) + 1);
      return insert.run(id, `note ${id}`).changes;
    };
    const values = await Promise.all([1, 2, 3, 4].map((id) => group.run(write(id))));
    expect(values).toEqual([1, 1, 1, 1]);
    expect([...runs.values()]).toEqual([1, 1, 1, 1]);
    const reader = new Database(file, { readonly: true });
    expect(reader.prepare('SELECT count(*) AS n FROM notes').get()).toEqual({ n: 4 });
    reader.close();
  });

  it('keeps each write once when a later one fails on a constraint', async () => {
    const { raw, file } = open();
    const group = new GroupCommit(raw);
    const insert = raw.prepare('INSERT INTO notes (id, text) VALUES (?, ?)');
    const outcomes = await Promise.allSettled([
      group.run(() => insert.run(1, 'one').changes),
      group.run(() => insert.run(2, 'two').changes),
      // The same key again: SQLite refuses this statement only.
      group.run(() => insert.run(2, 'two again').changes),
      group.run(() => insert.run(3, 'three').changes),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect(outcomes[2]).toMatchObject({ reason: { code: 'SQLITE_CONSTRAINT_PRIMARYKEY' } });
    const reader = new Database(file, { readonly: true });
    expect(reader.prepare('SELECT id, text FROM notes ORDER BY id').all()).toEqual([
      { id: 1, text: 'one' },
      { id: 2, text: 'two' },
      { id: 3, text: 'three' },
    ]);
    reader.close();
    expect(raw.inTransaction).toBe(false);
  });

  it('resolves a write that comes after a flush in a commit of its own', async () => {
    const { raw } = open();
    const group = new GroupCommit(raw);
    const insert = raw.prepare('INSERT INTO notes (text) VALUES (?)');
    await group.run(() => insert.run('first'));
    await group.run(() => insert.run('second'));
    expect(raw.prepare('SELECT text FROM notes ORDER BY id').all()).toEqual([{ text: 'first' }, { text: 'second' }]);
    expect(raw.inTransaction).toBe(false);
  });
});
