import type { Kysely } from 'kysely';
import type { Database } from '../src/store/schema.js';

/** A saved component row for sources to refer to (the contract suites' `seedComponent`), on either database. */
export async function seedComponent(db: Kysely<Database>, componentId: string): Promise<void> {
  await db
    .insertInto('components')
    .values({
      id: componentId,
      key: null,
      name: null,
      version: null,
      description: null,
      component_type: 'source',
      code: 'export default {}',
      code_hash: componentId,
      source_url: null,
      configurable_props: '[]',
      lock: '{}',
      created_at: 0,
      updated_at: 0,
    })
    .execute();
}
