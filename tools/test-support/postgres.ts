/**
 * A fresh PostgreSQL database for a test file, dropped afterwards. The server is the one on this
 * machine and on CI (127.0.0.1:5432, trust auth, user postgres) unless TRIBUTARY_TEST_DATABASE_URL
 * names another (a server URL: its database is only used to create and drop test databases). A
 * server that cannot be reached fails the test with a message naming that variable: the PostgreSQL
 * suites never skip silently.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import pg from 'pg';

export const TEST_DATABASE_URL_VARIABLE = 'TRIBUTARY_TEST_DATABASE_URL';
const DEFAULT_SERVER_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  /** The URL of the new database (credentials of the server URL included). */
  readonly url: string;
  readonly name: string;
  /** Drops the database, closing whatever connections are still open on it. */
  drop(): Promise<void>;
}

export function testServerUrl(): string {
  return process.env[TEST_DATABASE_URL_VARIABLE] || DEFAULT_SERVER_URL;
}

async function onServer<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const serverUrl = testServerUrl();
  const client = new pg.Client({ connectionString: serverUrl });
  try {
    await client.connect();
  } catch (error) {
    const where = new URL(serverUrl);
    const reason = error instanceof Error ? error.message || String((error as { code?: string }).code) : String(error);
    throw new Error(
      `these tests need PostgreSQL, which is not reachable at ${where.hostname}:${where.port || '5432'} (${reason}); ` +
        `start it, or set ${TEST_DATABASE_URL_VARIABLE} to a server URL such as ${DEFAULT_SERVER_URL}`,
      { cause: error },
    );
  }
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Creates `tributary_test_<random>` on the test server. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `tributary_test_${randomBytes(6).toString('hex')}`;
  await onServer((client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(testServerUrl());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () => onServer(async (client) => void (await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))),
  };
}

/** A loopback port nothing listens on right now: a PostgreSQL URL that cannot be reached. */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
