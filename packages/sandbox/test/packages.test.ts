import { createServer, type Server } from 'node:http';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planDependencies, type InstallProgress, type Sandbox } from '@tributary/sandbox';
import { parsePackageSpecifier, type PackageImport } from '@tributary/runtime';
import { FIXTURES, invoke, open, testSandbox } from './sandbox-harness.js';

const progress: InstallProgress[] = [];
let sandbox: Sandbox;
let cacheDir: string;
let dispose: () => Promise<void>;
let server: Server;
let serverUrl: string;

beforeAll(async () => {
  ({ sandbox, cacheDir, dispose } = testSandbox({ onInstallProgress: (event) => progress.push(event) }));
  server = createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ path: request.url, auth: request.headers.authorization ?? null }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  serverUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(async () => {
  server.close();
  await dispose();
});

const fixture = (name: string): string => path.join(FIXTURES, name);
const imports = (...specifiers: string[]): PackageImport[] =>
  specifiers.map((specifier) => ({
    ...(parsePackageSpecifier(specifier) as NonNullable<ReturnType<typeof parsePackageSpecifier>>),
    importer: 'x.mjs',
  }));

describe('planDependencies', () => {
  it('folds imports of one package, keeping an exact pin that satisfies a range', () => {
    expect(planDependencies(imports('lodash@4.17.21/fp', 'lodash@^4.17.0', 'lodash', 'ms'))).toEqual([
      { name: 'lodash', range: '4.17.21' },
      { name: 'ms', range: null },
    ]);
  });

  it('refuses two pins that cannot both hold, naming the package', () => {
    expect(() => planDependencies(imports('ms@2.1.3', 'ms@^3.0.0'))).toThrow(/package "ms" is pinned twice/);
  });
});

describe('npm packages a component imports', () => {
  it('installs exact, caret, tilde and subpath pins, and records the versions', async () => {
    const prepared = await sandbox.prepare(fixture('packages/pinned-forms.mjs'));
    expect(prepared.lock['ms']).toBe('2.1.3');
    expect(prepared.lock['lodash']).toBe('4.17.21');
    expect(prepared.lock['dayjs']).toMatch(/^1\.11\.\d+$/);
    const handle = await sandbox.open(prepared, { key: 'pinned', purpose: 'run' });
    const result = await invoke(handle);
    expect(result.error).toBeNull();
    expect(result.returnValue).toEqual({ ms: 7_200_000, fp: [2, 4], camel: 'pinnedForms', year: 2024 });
  });

  it('runs a registry-style component: moment, lodash.get, xml-js and @pipedream/platform axios($) and ConfigurationError', async () => {
    const handle = await open(sandbox, 'packages/registry-style.mjs');
    const result = await invoke(handle, { configured: { url: `${serverUrl}/hello?x=1` }, timeoutMs: 10_000 });
    expect(result.error).toBeNull();
    expect(result.returnValue).toEqual({
      date: '2024-01-02',
      got: 42,
      xml: '1',
      fetched: { path: '/hello?x=1', auth: null },
    });
    const refused = await invoke(handle, { configured: { url: 'bad' } });
    expect(refused.error).toMatchObject({ code: 'CONFIGURATION_ERROR', message: 'the URL is not valid' });
  });

  it('finds require() in CommonJS and a pinned dynamic import()', async () => {
    const prepared = await sandbox.prepare(fixture('packages/commonjs-require.cjs'));
    expect(prepared.lock['pretty-bytes']).toBe('6.1.1');
    expect(Object.keys(prepared.lock).sort()).toEqual(['ms', 'pretty-bytes']);
    const result = await invoke(await sandbox.open(prepared, { key: 'cjs', purpose: 'run' }));
    expect(result.returnValue).toEqual({ ms: 1000, size: '2.05 kB' });
  });

  it('installs a dependency set once: a second prepare adds no install, and the lock holds until the code changes', async () => {
    const file = fixture('packages/registry-style.mjs');
    const first = await sandbox.prepare(file);
    progress.length = 0;
    const second = await sandbox.prepare(file);
    expect(progress.map((event) => event.phase)).toEqual(['cached']);
    expect(second.packageDir).toBe(first.packageDir);
    expect(second.lock).toEqual(first.lock);
    for (const [name, version] of Object.entries(first.lock)) {
      const manifest = JSON.parse(
        readFileSync(path.join(first.packageDir ?? '', 'node_modules', name, 'package.json'), 'utf8'),
      ) as { version: string };
      expect(manifest.version).toBe(version);
    }
  });

  it('uses the recorded versions on later prepares, even when newer ones exist', async () => {
    const file = fixture('packages/commonjs-require.cjs');
    const first = await sandbox.prepare(file);
    const lockDir = path.join(cacheDir, 'locks');
    const lockFile = readdirSync(lockDir)
      .map((name) => path.join(lockDir, name))
      .find((candidate) => JSON.stringify(JSON.parse(readFileSync(candidate, 'utf8'))).includes('pretty-bytes'));
    expect(lockFile).toBeDefined();
    writeFileSync(lockFile as string, JSON.stringify({ version: 1, dependencies: { ...first.lock, ms: '2.1.2' } }));
    const pinned = await sandbox.prepare(file);
    expect(pinned.lock['ms']).toBe('2.1.2');
    expect(pinned.packageDir).not.toBe(first.packageDir);
  });

  it('names a package that does not exist, and leaves nothing half-installed', async () => {
    await expect(sandbox.prepare(fixture('packages/missing-package.mjs'))).rejects.toMatchObject({
      code: 'PACKAGE_NOT_FOUND',
      message: expect.stringContaining('tributary-no-such-package-zz'),
    });
    await expect(sandbox.prepare(fixture('packages/missing-version.mjs'))).rejects.toMatchObject({
      code: 'PACKAGE_NOT_FOUND',
      message: expect.stringContaining('"ms"'),
    });
    expect(readdirSync(path.join(cacheDir, 'deps')).filter((name) => name.startsWith('.tmp-'))).toEqual([]);
  });

  it('a package that needs a native addon fails with a clear error (addons are not allowed)', async () => {
    const handle = await open(sandbox, 'packages/native-addon.mjs');
    const result = await invoke(handle, { timeoutMs: 10_000 });
    expect(result.ok).toBe(false);
    expect(result.error?.message).toMatch(/bindings|dlopen|ERR_DLOPEN_DISABLED|addon/i);
  }, 120_000);
});

describe('TypeScript components', () => {
  it('compiles .ts with @pipedream/types defineSource', async () => {
    const result = await invoke(await open(sandbox, 'typescript/typed-source.ts'));
    expect(result.error).toBeNull();
    expect(result.emits).toMatchObject([{ event: { at: 1, label: 'tick' }, metadata: { summary: 'tick' } }]);
  });

  it('does not stop on type errors', async () => {
    const result = await invoke(await open(sandbox, 'typescript/type-error.ts'));
    expect(result.returnValue).toBe('not a number');
  });

  it('stops on a syntax error with file, line and column', async () => {
    await expect(sandbox.prepare(fixture('typescript/syntax-error.ts'))).rejects.toMatchObject({
      code: 'COMPONENT_SYNTAX_ERROR',
      message: expect.stringMatching(/syntax-error\.ts:6:28: Unexpected ";"/),
    });
  });
});

describe('the cache', () => {
  it('keeps no temporary folders behind', () => {
    expect(existsSync(path.join(cacheDir, 'deps'))).toBe(true);
    expect(readdirSync(path.join(cacheDir, 'deps')).some((name) => name.startsWith('.tmp-'))).toBe(false);
  });
});

describe('a package set shared by several components (registry imports)', () => {
  it('lets a component adopt one install when its ranges fit, and installs its own otherwise', async () => {
    const shared = await sandbox.installShared('test shared set', [{ name: 'ms', range: '2.1.3' }]);
    expect(shared?.lock).toEqual({ ms: '2.1.3' });
    progress.length = 0;
    const fits = await sandbox.prepare(fixture('packages/shared-ms-caret.mjs'), shared ? { shared } : {});
    expect(fits.packageDir).toBe(shared?.dir);
    expect(fits.lock).toEqual({ ms: '2.1.3' });
    expect(progress.map((event) => event.phase)).toEqual([]);
    const result = await invoke(await sandbox.open(fits, { key: 'shared-caret', purpose: 'run' }));
    expect(result.returnValue).toBe(7_200_000);
    // The same set asked for again installs nothing: its versions were recorded under its key.
    const again = await sandbox.installShared('test shared set', [{ name: 'ms', range: '2.1.3' }]);
    expect(again?.dir).toBe(shared?.dir);
    expect(progress.map((event) => event.phase)).toEqual(['cached']);

    const old = await sandbox.prepare(fixture('packages/shared-ms-old.mjs'), shared ? { shared } : {});
    expect(old.lock).toEqual({ ms: '2.0.0' });
    expect(old.packageDir).not.toBe(shared?.dir);
  });
});
