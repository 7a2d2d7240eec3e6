/**
 * `outdated` and `upgrade` against a loopback npm registry (tools/test-support): a new release of
 * a package moves its registry keys to the new code, and a source deployed from the old version
 * keeps running it until it is updated.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackRegistry, type LoopbackRegistry } from '../../../tools/test-support/loopback-npm-registry.js';
import { editJson, packFixturePackage } from '../../../tools/test-support/pack-fixture-package.js';
import { Engine } from '../src/engine.js';

const NAME = '@fixtures/acme-components';
const root = mkdtempSync(path.join(os.tmpdir(), 'tributary-registry-upgrade-'));
chmodSync(root, 0o755);
let registry: LoopbackRegistry;
let engine: Engine;

beforeAll(async () => {
  registry = await startLoopbackRegistry();
  registry.publish(NAME, '1.0.0', packFixturePackage('acme-components', root));
  engine = await Engine.create({
    dataDir: path.join(root, 'data'),
    cacheDir: path.join(root, 'cache'),
    npmRegistry: registry.url,
    publicUrl: 'http://endpoints.test.invalid',
    allowPrivateUrls: false,
    concurrency: 2,
    sourceTimeoutMs: 20_000,
    log: () => {},
  });
}, 60_000);

afterAll(async () => {
  await engine?.stop();
  await registry?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('registry outdated and upgrade', { timeout: 120_000 }, () => {
  it('imports by name, sees a newer release, upgrades, and leaves deployed sources on their version', async () => {
    const first = await engine.registry.add(NAME);
    expect(first.version).toBe('1.0.0');
    expect(await engine.registry.outdated()).toEqual([
      { name: NAME, current: '1.0.0', latest: '1.0.0', outdated: false },
    ]);
    expect(await engine.registry.upgrade(undefined)).toEqual([]);

    const account = await engine.accounts.create({ app: 'acme', fields: { api_key: 'k-123456' } });
    const deployed = await engine.sources.deploy({
      componentKey: 'acme-new-card',
      configuredProps: { acme: { authProvisionId: account.id } },
    });

    registry.publish(
      NAME,
      '1.1.0',
      packFixturePackage('acme-components', root, (dir) => {
        editJson(path.join(dir, 'package.json'), (json) => void (json['version'] = '1.1.0'));
        const file = path.join(dir, 'sources/new-card/new-card.mjs');
        writeFileSync(file, readFileSync(file, 'utf8').replace('version: "0.1.0"', 'version: "0.2.0"'));
      }),
    );
    expect(await engine.registry.outdated(NAME)).toEqual([
      { name: NAME, current: '1.0.0', latest: '1.1.0', outdated: true },
    ]);
    const steps: string[] = [];
    const [report] = await engine.registry.upgrade(NAME, (step) => steps.push(step.phase));
    expect(report?.previous_version).toBe('1.0.0');
    expect(report?.version).toBe('1.1.0');
    // The app file is bundled into each component, and its banner names the version: all move.
    expect(report?.published.map((entry) => [entry.key, entry.version])).toEqual([
      ['acme-create-card', '0.1.0'],
      ['acme-list-boards', '0.1.0'],
      ['acme-new-card', '0.2.0'],
    ]);
    expect(steps).toContain('done');
    expect((await engine.components.findPublished('acme-new-card'))?.version).toBe('0.2.0');
    const source = await engine.sources.get(deployed.id);
    expect(source.component_id).toBe(deployed.component_id);
    expect((await engine.components.get(source.component_id)).version).toBe('0.1.0');
    expect((await engine.registry.outdated())[0]?.outdated).toBe(false);
    await engine.sources.remove(deployed.id);
  });

  it('says which package does not exist on the registry', async () => {
    await expect(engine.registry.add('@fixtures/nothing-here')).rejects.toMatchObject({ code: 'PACKAGE_NOT_FOUND' });
  });
});
