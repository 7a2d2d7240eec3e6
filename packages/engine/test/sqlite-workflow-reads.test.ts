/**
 * The SQLite workflow store serves workflow rows it read from memory until its next write to the
 * `workflows` table (WorkflowReadCache): a real file, changed behind the store's back by a second
 * connection, shows what is served from memory and when it is read again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openDatabase } from '../src/store/open-database.js';
import { SqliteWorkflowStore } from '../src/workflows/sqlite-workflow-store.js';
import type { WorkflowRow } from '../src/workflows/workflow-store.js';
import { version, workflow } from './contracts/workflow-store.contract.js';

const T0 = Date.UTC(2026, 0, 1);
const row: WorkflowRow = { ...workflow, name: 'first', triggerType: 'http', endpointId: 'ep_1' };

let dir: string;
let close: () => Promise<void>;
let store: SqliteWorkflowStore;
let behind: SqliteDatabase.Database;

beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'tributary-wf-reads-'));
  const file = path.join(dir, 'tributary.db');
  const { db, raw } = await openDatabase({ file });
  store = new SqliteWorkflowStore(raw);
  close = () => db.destroy();
  behind = new SqliteDatabase(file);
  await store.saveWorkflow(row, version);
});

afterEach(async () => {
  behind.close();
  await close();
  rmSync(dir, { recursive: true, force: true });
});

const rename = (name: string) => behind.prepare('UPDATE workflows SET name = ? WHERE id = ?').run(name, 'wf_1');

it('serves a workflow read by id or endpoint from memory until the store next writes the workflows table', async () => {
  expect((await store.getWorkflow('wf_1'))?.name).toBe('first');
  expect((await store.findByEndpoint('ep_1'))?.name).toBe('first');
  rename('second');
  expect((await store.getWorkflow('wf_1'))?.name).toBe('first');
  expect((await store.findByEndpoint('ep_1'))?.name).toBe('first');
  await store.setNextFire('wf_1', T0 + 1);
  expect((await store.getWorkflow('wf_1'))?.name).toBe('second');
  expect((await store.findByEndpoint('ep_1'))?.name).toBe('second');
});

it('remembers a miss (an unknown endpoint) until the next write', async () => {
  expect(await store.findByEndpoint('ep_2')).toBeNull();
  behind.prepare('UPDATE workflows SET endpoint_id = ? WHERE id = ?').run('ep_2', 'wf_1');
  expect(await store.findByEndpoint('ep_2')).toBeNull();
  await store.setActive('wf_1', true, T0 + 1);
  expect((await store.findByEndpoint('ep_2'))?.id).toBe('wf_1');
});
