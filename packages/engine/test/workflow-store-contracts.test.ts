/** The WorkflowStore contract on the embedded backend: a real SQLite file, closed and opened again. */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SqliteInvocationQueue } from '../src/invocations/sqlite-invocation-queue.js';
import { EVENT_BIN_SIZE, LOG_SIZE } from '../src/sources/event-store.js';
import { openDatabase } from '../src/store/open-database.js';
import { SqliteWrites } from '../src/store/sqlite-writes.js';
import { SqliteWorkflowStore } from '../src/workflows/sqlite-workflow-store.js';
import { workflowStoreContract } from './contracts/workflow-store.contract.js';

workflowStoreContract('sqlite', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tributary-wf-contracts-'));
  const file = path.join(dir, 'tributary.db');
  return Promise.resolve({
    async open(now) {
      const { db, raw } = await openDatabase({ file });
      const writes = new SqliteWrites(raw, EVENT_BIN_SIZE, LOG_SIZE);
      return {
        workflows: new SqliteWorkflowStore(raw),
        queue: new SqliteInvocationQueue({ raw, db, writes, now }),
        async close() {
          await db.destroy();
        },
      };
    },
    dispose() {
      rmSync(dir, { recursive: true, force: true });
      return Promise.resolve();
    },
  });
});
