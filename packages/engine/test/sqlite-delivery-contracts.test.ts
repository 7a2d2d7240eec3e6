/**
 * The DeliveryJobs and SubscriptionTable contracts on the embedded backend: a real SQLite file,
 * opened as the engine opens it, configurations sealed with a real master key.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SqlDeliveryJobs } from '../src/delivery/sql-delivery-jobs.js';
import { MasterKeyring } from '../src/secrets/master-keyring.js';
import { SecretBox } from '../src/secrets/secret-box.js';
import { openDatabase } from '../src/store/open-database.js';
import { SqlSubscriptions } from '../src/subscriptions/sql-subscriptions.js';
import { deliveryJobsContract } from './contracts/delivery-jobs.contract.js';
import { subscriptionTableContract } from './contracts/subscription-table.contract.js';

deliveryJobsContract('SQLite', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tributary-delivery-contracts-'));
  const box = new SecretBox(MasterKeyring.load({ dataDir: dir, env: {}, log: () => undefined }));
  return Promise.resolve({
    async open() {
      const { db, raw } = await openDatabase({ file: path.join(dir, 'tributary.db') });
      let closed = false;
      return {
        jobs: new SqlDeliveryJobs({ db, box }),
        async close() {
          if (closed) return;
          closed = true;
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
});

subscriptionTableContract('SQLite', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tributary-subscription-contracts-'));
  return Promise.resolve({
    async open() {
      const { db, raw } = await openDatabase({ file: path.join(dir, 'tributary.db') });
      let closed = false;
      return {
        table: new SqlSubscriptions({ db }),
        async close() {
          if (closed) return;
          closed = true;
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
});
