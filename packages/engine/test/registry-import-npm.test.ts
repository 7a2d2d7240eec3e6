/**
 * Registry imports that need the npm registry (CI reaches it too; kept to these two): a
 * component's npm import is installed at the range its package's package.json declares, not the
 * newest version, and a real published package, @pipedream/helper_functions@0.3.13, imports and
 * runs.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import semver from 'semver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packFixturePackage } from '../../../tools/test-support/pack-fixture-package.js';
import { Engine } from '../src/engine.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'tributary-registry-npm-'));
chmodSync(root, 0o755);
let engine: Engine;

beforeAll(async () => {
  engine = await Engine.create({
    dataDir: path.join(root, 'data'),
    cacheDir: path.join(root, 'cache'),
    publicUrl: 'http://endpoints.test.invalid',
    allowPrivateUrls: false,
    concurrency: 2,
    sourceTimeoutMs: 30_000,
    log: () => {},
  });
}, 60_000);

afterAll(async () => {
  await engine?.stop();
  rmSync(root, { recursive: true, force: true });
});

describe('registry import from npm', { timeout: 240_000 }, () => {
  it('installs @pipedream/platform at the version the package declares, not the newest', async () => {
    const report = await engine.registry.add(packFixturePackage('platform-pinned', root));
    expect(report.skipped).toEqual([]);
    const row = await engine.components.get('platform-pinned-axios');
    expect(row.code).toContain('"@pipedream/platform@1.6.0"');
    expect(JSON.parse(row.lock)).toEqual({ '@pipedream/platform': '1.6.0' });
    const run = await engine.calls.runAction({ id: row.id, configured: {} });
    expect(run.error).toBeNull();
    expect(run.return_value).toEqual({ axios: 'function' });
  });

  it('imports @pipedream/helper_functions@0.3.13 with its app file bundled and its declared ranges honoured', async () => {
    const report = await engine.registry.add('@pipedream/helper_functions@0.3.13');
    expect(report.package).toBe('@pipedream/helper_functions');
    expect(report.published.length + report.skipped.length).toBe(24);
    expect(report.published.length).toBeGreaterThanOrEqual(20);
    for (const entry of report.skipped) expect(entry.message).toMatch(/^[CP]\d+: /);
    const manifest = JSON.parse(
      readFileSync(path.join(root, 'cache/registry-packages/@pipedream+helper_functions@0.3.13/package.json'), 'utf8'),
    ) as { dependencies: Record<string, string> };
    const xml = await engine.components.get('helper_functions-xml-to-json');
    const lock = JSON.parse(xml.lock) as Record<string, string>;
    expect(semver.satisfies(lock['xml-js'] ?? '', manifest.dependencies['xml-js'] ?? '')).toBe(true);

    // The app prop's app needs no credentials: an account with no fields.
    await engine.apps.put('helper_functions', { name: 'Helper Functions', auth_type: 'none', fields: [] });
    const account = await engine.accounts.create({ app: 'helper_functions', fields: {} });
    const decode = await engine.components.get('helper_functions-base64-decode-string');
    expect(decode.code).toContain('@pipedream/helper_functions@0.3.13: actions/base64-decode-string');
    const run = await engine.calls.runAction({
      id: decode.id,
      configured: { helper_functions: { authProvisionId: account.id }, data: Buffer.from('héllo').toString('base64') },
    });
    expect(run.error).toBeNull();
    expect(run.exports).toEqual({ data: 'héllo' });
  });
});
