/**
 * The registry import on PostgreSQL: the 0007 migration, the publish transaction, key owners and
 * a re-import, against a database of its own on the local server (tools/test-support/postgres.ts).
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packFixturePackage, editJson } from '../../../tools/test-support/pack-fixture-package.js';
import { createTestDatabase, type TestDatabase } from '../../../tools/test-support/postgres.js';
import { Engine } from '../src/engine.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'tributary-registry-pg-'));
chmodSync(root, 0o755);
let database: TestDatabase;
let engine: Engine;

beforeAll(async () => {
  database = await createTestDatabase();
  mkdirSync(path.join(root, 'data'));
  engine = await Engine.create({
    dataDir: path.join(root, 'data'),
    cacheDir: path.join(root, 'cache'),
    databaseUrl: database.url,
    publicUrl: 'http://endpoints.test.invalid',
    allowPrivateUrls: false,
    concurrency: 2,
    sourceTimeoutMs: 20_000,
    log: () => {},
  });
}, 60_000);

afterAll(async () => {
  await engine?.stop();
  await database?.drop();
  rmSync(root, { recursive: true, force: true });
});

describe('registry import on PostgreSQL', { timeout: 120_000 }, () => {
  it('publishes, reports a re-import as unchanged, refuses a key another package owns, and removes', async () => {
    const acme = packFixturePackage('acme-components', root);
    const first = await engine.registry.add(acme);
    expect(first.published.map((entry) => entry.key).sort()).toEqual([
      'acme-create-card',
      'acme-list-boards',
      'acme-new-card',
    ]);
    expect(first.skipped.map((entry) => entry.rule)).toEqual(['C2']);
    const again = await engine.registry.add(acme);
    expect(again.unchanged).toHaveLength(3);

    const other = packFixturePackage('acme-components', root, (dir) => {
      editJson(path.join(dir, 'package.json'), (json) => void (json['name'] = '@fixtures/other-components'));
    });
    const refused = await engine.registry.add(other);
    expect(refused.published).toEqual([]);
    const taken = refused.skipped.filter((entry) => entry.code === 'REGISTRY_KEY_TAKEN');
    expect(taken).toHaveLength(3);
    expect(taken[0]?.message).toContain('@fixtures/acme-components');

    const listed = await engine.registry.list();
    expect(listed.map((entry) => [entry.name, entry.components.length])).toEqual([
      ['@fixtures/acme-components', 3],
      ['@fixtures/other-components', 0],
    ]);
    expect((await engine.registry.remove('@fixtures/acme-components')).removed).toHaveLength(3);
    expect(await engine.components.findPublished('acme-create-card')).toBeNull();
  });
});
