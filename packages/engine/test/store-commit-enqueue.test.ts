/**
 * `Store.commit` with `enqueue`: the workflow runs a source's events start are queued in the
 * commit's own transaction, so they are stored exactly when the events are (a real SQLite file).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/store/open-database.js';
import { SqliteStore } from '../src/store/sqlite-store.js';
import { SqliteWrites } from '../src/store/sqlite-writes.js';
import { emptyCommit, sourceRow } from './contracts/backend.js';
import { seedComponent } from './seed-component.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function setup() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tributary-commit-enqueue-'));
  const { db, raw } = await openDatabase({ file: path.join(dir, 'tributary.db') });
  cleanups.push(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });
  const writes = new SqliteWrites(raw, 100, 100);
  // A commit is refused for a source that does not exist: `dc_a` is stored, with its component.
  await seedComponent(db, 'sc_a');
  writes.insertSource(sourceRow('dc_a', 'sc_a', 1), emptyCommit('dc_a'));
  return { raw, writes, store: new SqliteStore({ db, writes }) };
}

const commit = { sourceId: 'dc_a', events: [], logs: [], db: '{}', dedupe: null };
const entry = (id: string) => ({ id, sourceId: 'wfrun:x', trigger: 'manual' as const, event: 'null', createdAt: 1 });
const queued = (raw: Awaited<ReturnType<typeof setup>>['raw']) =>
  (raw.prepare('SELECT id FROM invocations ORDER BY id').all() as { id: string }[]).map((row) => row.id);

describe('Store.commit with enqueue', () => {
  it('queues the entries with the commit', async () => {
    const { raw, writes, store } = await setup();
    writes.enqueue({ id: 'inv_1', sourceId: 'dc_a', trigger: 'http', event: '{}', createdAt: 1 });
    await store.commit(commit, { dequeue: ['inv_1'], enqueue: [entry('wfr_1'), entry('wfr_2')] });
    expect(queued(raw)).toEqual(['wfr_1', 'wfr_2']);
  });

  it('queues none of them when the commit is refused', async () => {
    const { raw, store } = await setup();
    await expect(store.commit(commit, { dequeue: ['inv_gone'], enqueue: [entry('wfr_1')] })).rejects.toThrow(
      'invocation inv_gone is no longer queued',
    );
    expect(queued(raw)).toEqual([]);
  });
});
