import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURES, tributary, tributaryJson } from './cli-process.js';

const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'tributary-cli-cache-'));
const env = { TRIBUTARY_CACHE_DIR: cacheDir };
afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));

describe('tributary run with npm packages', () => {
  it('installs what the component imports with progress on stderr, then reuses it', async () => {
    const file = path.join(FIXTURES, 'packages', 'pinned-forms.mjs');
    const first = await tributaryJson<{ ok: boolean; return_value: unknown }>(['run', file, '--json'], { env });
    expect(first.code).toBe(0);
    expect(first.json.return_value).toMatchObject({ ms: 7_200_000, camel: 'pinnedForms' });
    expect(first.stderr).toMatch(/npm installing dayjs@~1\.11\.0, lodash@4\.17\.21, ms@2\.1\.3 …/);
    expect(first.stderr).toMatch(/npm installed dayjs@1\.11\.\d+, lodash@4\.17\.21, ms@2\.1\.3 in \d+\.\d s/);

    const second = await tributaryJson<{ ok: boolean }>(['run', file, '--json'], { env });
    expect(second.code).toBe(0);
    expect(second.stderr).not.toContain('installing');
  });

  it('lists the installed versions in validate --json', async () => {
    const file = path.join(FIXTURES, 'packages', 'pinned-forms.mjs');
    const { json } = await tributaryJson<{ packages: Record<string, string>; imports: { specifier: string }[] }>(
      ['validate', file, '--json'],
      { env },
    );
    expect(json.packages).toMatchObject({ ms: '2.1.3', lodash: '4.17.21' });
    expect(json.imports.map((entry) => entry.specifier)).toEqual([
      'ms@2.1.3',
      'lodash@4.17.21/fp',
      'lodash@^4.17.0',
      'dayjs@~1.11.0',
    ]);
  });

  it('a package that does not exist is one clear line and exit code 2', async () => {
    const result = await tributary(['run', path.join(FIXTURES, 'packages', 'missing-package.mjs')], { env });
    expect(result.code).toBe(2);
    const lines = result.stderr
      .trim()
      .split('\n')
      .filter((line) => !line.startsWith('npm installing'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /PACKAGE_NOT_FOUND: package "tributary-no-such-package-zz" does not exist in the npm registry/,
    );
  });

  it('runs a TypeScript component', async () => {
    const { code, json } = await tributaryJson<{ emits: { event: unknown }[] }>(
      ['run', path.join(FIXTURES, 'typescript', 'typed-source.ts'), '--json'],
      { env },
    );
    expect(code).toBe(0);
    expect(json.emits[0]?.event).toEqual({ at: 1, label: 'tick' });
  });
});
