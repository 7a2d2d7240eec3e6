/**
 * Opening the store on PostgreSQL (needs a server: tools/test-support/postgres.ts): what an
 * operator's mistakes look like, and 64-bit columns read as numbers.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, freeLoopbackPort, type TestDatabase } from '../../../tools/test-support/postgres.js';
import { openPostgres } from '../src/store/open-postgres.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

const quiet = (): void => undefined;

describe('openPostgres', () => {
  it('refuses a server it cannot reach with DATABASE_UNREACHABLE, naming host, port and database only', async () => {
    const port = await freeLoopbackPort();
    const error = await openPostgres({
      url: `postgres://someone:pa55word@127.0.0.1:${port}/tributary`,
      log: quiet,
    }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'DATABASE_UNREACHABLE', details: { database: `127.0.0.1:${port}/tributary` } });
    expect(String((error as Error).message)).toMatch(
      new RegExp(`^cannot reach PostgreSQL at 127\\.0\\.0\\.1:${port}/tributary: `),
    );
    expect(String((error as Error).message)).not.toContain('pa55word');
  });

  it('refuses a user that may not create the tables with DATABASE_NOT_WRITABLE', async () => {
    const role = `tributary_test_role_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      await admin.query(`CREATE ROLE ${role} LOGIN`);
      await admin.query(`REVOKE CREATE ON SCHEMA public FROM PUBLIC`);
      const url = new URL(database.url);
      url.username = role;
      url.password = '';
      await expect(openPostgres({ url: url.toString(), log: quiet })).rejects.toMatchObject({
        code: 'DATABASE_NOT_WRITABLE',
      });
    } finally {
      await admin.query(`DROP ROLE IF EXISTS ${role}`);
      await admin.end();
    }
  });

  it('migrates once, and reads bigint columns as numbers (epoch milliseconds beyond 32 bits)', async () => {
    const [one, two] = await Promise.all([
      openPostgres({ url: database.url, log: quiet }),
      openPostgres({ url: database.url, log: quiet }),
    ]);
    try {
      const at = Date.UTC(2200, 0, 1);
      await one
        .insertInto('api_keys')
        .values({
          id: 'key_1',
          name: 'k',
          key_hash: 'h',
          key_prefix: 'p',
          created_at: at,
          last_used_at: null,
          revoked_at: null,
        })
        .execute();
      const row = await two.selectFrom('api_keys').select(['created_at']).executeTakeFirstOrThrow();
      expect(row.created_at).toBe(at);
      const count = await two
        .selectFrom('api_keys')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      expect(count.n).toBe(1);
      // Past 2^53 a number would round: the read fails instead.
      await expect(sql`select 9007199254740993::bigint as n`.execute(one)).rejects.toThrow(/beyond 2\^53/);
    } finally {
      await one.destroy();
      await two.destroy();
    }
  });
});
