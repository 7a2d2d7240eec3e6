/**
 * Importing packages of components into the registry, on a real engine (SQLite file, sandbox
 * workers) from npm tarballs packed from fixtures/packages/: no network is needed.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editJson, packFixturePackage } from '../../../tools/test-support/pack-fixture-package.js';
import { Engine } from '../src/engine.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'tributary-registry-import-'));
// Its own temporary folder: sandbox workers must be able to reach it (see the Sandbox).
const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'tributary-registry-cache-'));
let engine: Engine;
let acmeV1: string;
let acmeV2: string;
let thief: string;
let empty: string;

async function rejection(
  promise: Promise<unknown>,
): Promise<{ code: string; message: string; details: Record<string, unknown> }> {
  try {
    await promise;
  } catch (error) {
    return error as { code: string; message: string; details: Record<string, unknown> };
  }
  throw new Error('expected a rejection');
}

beforeAll(async () => {
  acmeV1 = packFixturePackage('acme-components', root);
  acmeV2 = packFixturePackage('acme-components', root, (dir) => {
    editJson(path.join(dir, 'package.json'), (json) => void (json['version'] = '1.1.0'));
    const file = path.join(dir, 'actions/create-card/create-card.mjs');
    writeFileSync(file, readFileSync(file, 'utf8').replace('version: "0.1.0"', 'version: "0.2.0"'));
    rmSync(path.join(dir, 'actions/list-boards'), { recursive: true });
  });
  // Another package that also defines `acme-list-boards`, and one component of its own.
  thief = packFixturePackage('acme-components', root, (dir) => {
    editJson(path.join(dir, 'package.json'), (json) => void (json['name'] = '@fixtures/other-components'));
    for (const name of ['create-card', 'broken']) rmSync(path.join(dir, 'actions', name), { recursive: true });
    const file = path.join(dir, 'sources/new-card/new-card.mjs');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"acme-new-card"', '"other-new-card"'));
  });
  empty = packFixturePackage('acme-components', root, (dir) => {
    editJson(path.join(dir, 'package.json'), (json) => void (json['name'] = '@fixtures/no-components'));
    rmSync(path.join(dir, 'actions'), { recursive: true });
    rmSync(path.join(dir, 'sources'), { recursive: true });
  });
  engine = await Engine.create({
    dataDir: path.join(root, 'data'),
    cacheDir,
    publicUrl: 'http://endpoints.test.invalid',
    allowPrivateUrls: false,
    concurrency: 2,
    sourceTimeoutMs: 20_000,
    log: () => {},
  });
}, 120_000);

afterAll(async () => {
  await engine?.stop();
  rmSync(root, { recursive: true, force: true });
  rmSync(cacheDir, { recursive: true, force: true });
});

describe('registry import', () => {
  it('publishes each component under its key with the package recorded, and reports the broken one', async () => {
    const steps: string[] = [];
    const report = await engine.registry.add(acmeV1, (step) => steps.push(step.phase));
    expect(report.package).toBe('@fixtures/acme-components');
    expect(report.version).toBe('1.0.0');
    expect(report.published.map((entry) => entry.key).sort()).toEqual([
      'acme-create-card',
      'acme-list-boards',
      'acme-new-card',
    ]);
    expect(report.skipped).toEqual([
      expect.objectContaining({ file: 'actions/broken/broken.mjs', code: 'COMPONENT_INVALID', rule: 'C2' }),
    ]);
    expect(steps).toEqual(
      expect.arrayContaining(['resolving', 'fetched', 'found', 'component', 'skipped', 'committing', 'done']),
    );

    const [listed] = await engine.registry.list();
    expect(listed).toMatchObject({
      name: '@fixtures/acme-components',
      version: '1.0.0',
      dependencies: { '@pipedream/platform': '1.6.0' },
    });
    expect(listed?.components.map((component) => component.key)).toEqual([
      'acme-create-card',
      'acme-list-boards',
      'acme-new-card',
    ]);
    expect(listed?.skipped[0]?.rule).toBe('C2');

    // The stored code stands alone: the app file and the common modules are inlined.
    const card = await engine.components.get('acme-create-card');
    expect(card.code).not.toMatch(/from\s+["'][./]/);
    expect(card.code).toContain('Roadmap');
    expect(card.code).toContain('@fixtures/acme-components@1.0.0: actions/create-card/create-card.mjs');
  });

  it('answers the async options of a propDefinition from the package app file, and runs its methods', async () => {
    const card = await engine.components.get('acme-create-card');
    const account = await engine.accounts.create({ app: 'acme', fields: { api_key: 'k-123456' } });
    const acme = { authProvisionId: account.id };
    const options = await engine.calls.listOptions({ id: card.id, prop: 'board', configured: { acme } });
    expect(options.options).toEqual([
      { label: 'Roadmap', value: 'b1' },
      { label: 'Support', value: 'b2' },
    ]);
    const run = await engine.calls.runAction({ id: card.id, configured: { acme, board: 'b2', title: 'Hello' } });
    expect(run.ok).toBe(true);
    expect(run.return_value).toEqual({ board: 'Support', title: 'Hello' });
  });

  it('reports a re-import of the same version as unchanged and stores nothing new', async () => {
    const count = () =>
      new SqliteDatabase(path.join(root, 'data', 'tributary.db'))
        .prepare('select count(*) as n from components')
        .get() as { n: number };
    const before = count().n;
    const report = await engine.registry.add(acmeV1);
    expect(report.published).toEqual([]);
    expect(report.unchanged.map((entry) => entry.key)).toEqual([
      'acme-create-card',
      'acme-list-boards',
      'acme-new-card',
    ]);
    expect(count().n).toBe(before);
  });

  it('refuses a key another package owns, naming that package, and imports the rest', async () => {
    const report = await engine.registry.add(thief);
    expect(report.published.map((entry) => entry.key)).toEqual(['other-new-card']);
    expect(report.skipped).toEqual([expect.objectContaining({ key: 'acme-list-boards', code: 'REGISTRY_KEY_TAKEN' })]);
    expect(report.skipped[0]?.message).toContain('@fixtures/acme-components');
    const owner = await engine.components.findPublished('acme-list-boards');
    expect(owner?.code).toContain('@fixtures/acme-components@1.0.0');
  });

  it('refuses a direct publish to a key a package owns', async () => {
    const error = await rejection(
      engine.components.publish('acme-list-boards', {
        code: 'export default { key: "acme-list-boards", name: "x", version: "9.0.0", type: "action", async run() {} };',
      }),
    );
    expect(error.code).toBe('REGISTRY_KEY_TAKEN');
    expect(error.message).toContain('@fixtures/acme-components');
  });

  it('gives a clear error for a package that does not exist or has no components', async () => {
    const missing = await rejection(engine.registry.add(path.join(root, 'no-such-package.tgz')));
    expect(missing.code).toBe('PACKAGE_NOT_FOUND');
    const none = await rejection(engine.registry.add(empty));
    expect(none.code).toBe('PACKAGE_HAS_NO_COMPONENTS');
    expect(none.message).toContain('@fixtures/no-components@1.0.0');
    expect((await engine.registry.list()).map((entry) => entry.name)).not.toContain('@fixtures/no-components');
  });

  it('leaves the registry as it was when the publish step fails half-way', async () => {
    const sqlite = new SqliteDatabase(path.join(root, 'data', 'tributary.db'));
    const snapshot = () => ({
      registry: sqlite.prepare('select key, component_id, version, package from registry order by key').all(),
      packages: sqlite.prepare('select name, version from registry_packages order by name').all(),
      components: sqlite.prepare('select count(*) as n from components').get(),
    });
    const before = snapshot();
    // The last write of the transaction fails: everything before it must roll back.
    sqlite.exec(
      "create trigger fail_package_write before update on registry_packages begin select raise(abort, 'disk full (test)'); end",
    );
    try {
      const error = await rejection(engine.registry.add(acmeV2));
      expect(error.message).toContain('disk full (test)');
      expect(snapshot()).toEqual(before);
    } finally {
      sqlite.exec('drop trigger fail_package_write');
      sqlite.close();
    }
  });

  it('upgrades to a newer version: keys move, dropped keys leave, deployed sources keep their code', async () => {
    const account = await engine.accounts.create({ app: 'acme', fields: { api_key: 'k-123456' } });
    const source = await engine.sources.deploy({
      componentKey: 'acme-new-card',
      configuredProps: { acme: { authProvisionId: account.id } },
    });
    const card = await engine.components.get('acme-create-card');
    const report = await engine.registry.add(acmeV2);
    expect(report.previous_version).toBe('1.0.0');
    expect(report.published.map((entry) => [entry.key, entry.version])).toEqual(
      expect.arrayContaining([['acme-create-card', '0.2.0']]),
    );
    expect(report.removed).toEqual(['acme-list-boards']);
    expect(await engine.components.findPublished('acme-list-boards')).toBeNull();
    expect((await engine.components.get('acme-create-card')).id).not.toBe(card.id);
    expect((await engine.sources.get(source.id)).component_id).toBe(source.component_id);
    await engine.sources.remove(source.id);
  });

  it('removes a package: its keys leave the registry, its saved components stay', async () => {
    const card = await engine.components.get('acme-create-card');
    const { removed } = await engine.registry.remove('@fixtures/acme-components');
    expect(removed).toEqual(['acme-create-card', 'acme-new-card']);
    expect(await engine.components.findPublished('acme-create-card')).toBeNull();
    expect((await engine.components.get(card.id)).id).toBe(card.id);
    expect((await rejection(engine.registry.remove('@fixtures/acme-components'))).code).toBe('NOT_FOUND');
  });

  it('publishes the curated components once', async () => {
    const report = await engine.publishCuratedComponents();
    expect(report?.skipped).toEqual([]);
    expect(report?.published.map((entry) => entry.key).sort()).toEqual([
      'tributary-format-json',
      'tributary-http-request',
      'tributary-http-webhook',
      'tributary-pick-fields',
      'tributary-schedule',
    ]);
    expect(await engine.publishCuratedComponents()).toBeNull();
    const formatted = await engine.calls.runAction({
      id: (await engine.components.get('tributary-format-json')).id,
      configured: { data: '{"b":1,"a":[1,2]}', indent: 0, sortKeys: true },
    });
    expect(formatted.return_value).toBe('{"a":[1,2],"b":1}');
  });
});
