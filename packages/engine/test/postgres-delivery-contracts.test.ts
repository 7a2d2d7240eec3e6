/**
 * The DeliveryJobs and SubscriptionTable contracts on PostgreSQL (needs a server:
 * tools/test-support/postgres.ts, set TRIBUTARY_TEST_DATABASE_URL to use another than
 * 127.0.0.1:5432). One database for the file, emptied between tests; every `open` is a pool of its
 * own, as another process would have; configurations sealed with a real master key.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../tools/test-support/postgres.js';
import { SqlDeliveryJobs } from '../src/delivery/sql-delivery-jobs.js';
import { MasterKeyring } from '../src/secrets/master-keyring.js';
import { SecretBox } from '../src/secrets/secret-box.js';
import { openPostgres } from '../src/store/open-postgres.js';
import { SqlSubscriptions } from '../src/subscriptions/sql-subscriptions.js';
import { deliveryJobsContract } from './contracts/delivery-jobs.contract.js';
import { subscriptionTableContract } from './contracts/subscription-table.contract.js';
import { emptyDatabase } from './postgres-backend.js';

let database: TestDatabase;
const keys = mkdtempSync(path.join(os.tmpdir(), 'tributary-pg-delivery-keys-'));
const box = new SecretBox(MasterKeyring.load({ dataDir: keys, env: {}, log: () => undefined }));
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
  rmSync(keys, { recursive: true, force: true });
});

/** A pool of its own per `open`, given to `make`; the database is emptied when the test is done. */
function postgres<T>(make: (db: Awaited<ReturnType<typeof openPostgres>>) => T) {
  return () =>
    Promise.resolve({
      async open() {
        const db = await openPostgres({ url: database.url, log: () => undefined });
        let closed = false;
        return {
          ...make(db),
          async close() {
            if (closed) return;
            closed = true;
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
    });
}

deliveryJobsContract(
  'PostgreSQL',
  postgres((db) => ({ jobs: new SqlDeliveryJobs({ db, box, order: 'seq' }) })),
);
subscriptionTableContract(
  'PostgreSQL',
  postgres((db) => ({ table: new SqlSubscriptions({ db }) })),
);
