/**
 * The port contract suites on the embedded backend: real SQLite files in temporary folders, each
 * opened and closed as the engine does.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SqliteInvocationQueue } from '../src/invocations/sqlite-invocation-queue.js';
import { SqliteScheduler } from '../src/scheduler/sqlite-scheduler.js';
import { EVENT_BIN_SIZE, LOG_SIZE } from '../src/sources/event-store.js';
import { openDatabase } from '../src/store/open-database.js';
import { SqliteStore } from '../src/store/sqlite-store.js';
import { SqliteWrites } from '../src/store/sqlite-writes.js';
import type { Backend, BackendFactory, OpenOptions } from './contracts/backend.js';
import { queueContract } from './contracts/queue.contract.js';
import { schedulerContract } from './contracts/scheduler.contract.js';
import { storeContract } from './contracts/store.contract.js';
import { seedComponent } from './seed-component.js';

function sqliteBackend(): Promise<BackendFactory> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tributary-contracts-'));
  const file = path.join(dir, 'tributary.db');
  return Promise.resolve({
    async open(options: OpenOptions): Promise<Backend> {
      const { db, raw } = await openDatabase({ file });
      const writes = new SqliteWrites(raw, EVENT_BIN_SIZE, LOG_SIZE);
      return {
        store: new SqliteStore({ db, writes }),
        queue: new SqliteInvocationQueue({ raw, db, writes, now: options.now, retry: options.retry }),
        scheduler: new SqliteScheduler({
          db,
          writes,
          now: options.now,
          onQueued: options.onQueued ?? (() => undefined),
          log: options.log ?? (() => undefined),
          maxSleepMs: 20,
        }),
        seedComponent: (componentId) => seedComponent(db, componentId),
        async close() {
          await db.destroy();
          if (raw.open) raw.close();
        },
      };
    },
    dispose() {
      rmSync(dir, { recursive: true, force: true });
      return Promise.resolve();
    },
  });
}

storeContract('SQLite', sqliteBackend);
queueContract('SQLite', sqliteBackend);
schedulerContract('SQLite', sqliteBackend);
