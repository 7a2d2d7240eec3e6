/**
 * The WorkflowStore contract on PostgreSQL (needs a server: tools/test-support/postgres.ts). One
 * database for the file, emptied between tests; every `open` is a pool of its own, as a restarted
 * process would have.
 */
import { afterAll, beforeAll } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../tools/test-support/postgres.js';
import { PostgresInvocationQueue } from '../src/invocations/postgres-invocation-queue.js';
import { openPostgres } from '../src/store/open-postgres.js';
import { PostgresWorkflowStore } from '../src/workflows/postgres-workflow-store.js';
import { workflowStoreContract } from './contracts/workflow-store.contract.js';
import { emptyDatabase } from './postgres-backend.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

workflowStoreContract('PostgreSQL', () =>
  Promise.resolve({
    async open(now) {
      const db = await openPostgres({ url: database.url, log: () => undefined, poolSize: 4 });
      const queue = new PostgresInvocationQueue({ db, now });
      return {
        workflows: new PostgresWorkflowStore(db),
        queue,
        async close() {
          await queue.close();
          await db.destroy();
        },
      };
    },
    async dispose() {
      const db = await openPostgres({ url: database.url, log: () => undefined, poolSize: 1 });
      try {
        await emptyDatabase(db);
      } finally {
        await db.destroy();
      }
    },
  }),
);
