import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import { sealedAt } from './sealed-places.js';
import type { SecretBox } from './secret-box.js';

/**
 * A random 256-bit secret of this instance, made at first use and kept sealed in the database
 * (`instance_secrets`): it survives master key rotations (it is re-sealed like any other secret),
 * and a copy of the database without the master key does not give it away. Processes sharing the
 * database agree on it: the first insert wins.
 */
export async function instanceSecret(db: Kysely<Database>, box: SecretBox, name: string, now: number): Promise<Buffer> {
  const read = (): Promise<{ value_sealed: string } | undefined> =>
    db.selectFrom('instance_secrets').select('value_sealed').where('name', '=', name).executeTakeFirst();
  let row = await read();
  if (!row) {
    const value = box.seal(randomBytes(32).toString('base64'), sealedAt.instanceSecret(name));
    await db
      .insertInto('instance_secrets')
      .values({ name, value_sealed: value, created_at: now })
      .onConflict((conflict) => conflict.column('name').doNothing())
      .execute();
    row = await read();
  }
  if (!row) throw new Error(`instance secret "${name}" vanished right after it was stored`);
  return Buffer.from(box.open(row.value_sealed, sealedAt.instanceSecret(name)), 'base64');
}
