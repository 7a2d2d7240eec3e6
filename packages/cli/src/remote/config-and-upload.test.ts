import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatTable, relativeTime } from '../ui/table.js';
import { codeForUpload, rawGithubUrl, resolveComponentRef } from './component-ref.js';
import { configPath, parseConfig, readConfig, serializeConfig, writeConfig } from './config-file.js';
import { normalizeApiUrl, resolveConnection } from './connection.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'tributary-cli-unit-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('config file', () => {
  it('parses sections, comments and keys before any section (they belong to default)', () => {
    const profiles = parseConfig(
      'api_key = top\n# comment\n; also\n[staging]\napi_url = https://x.example\napi_key=k2\n\n[default]\napi_url=http://a\n',
    );
    expect(Object.fromEntries(profiles)).toEqual({
      default: { api_key: 'top', api_url: 'http://a' },
      staging: { api_url: 'https://x.example', api_key: 'k2' },
    });
    expect(parseConfig(serializeConfig(profiles))).toEqual(profiles);
  });

  it('lives under XDG_CONFIG_HOME, else ~/.config, and is written 0600 even over a looser file', () => {
    expect(configPath({ XDG_CONFIG_HOME: '/x/y' })).toBe('/x/y/tributary/config');
    expect(configPath({ XDG_CONFIG_HOME: 'relative' })).toBe(path.join(os.homedir(), '.config', 'tributary', 'config'));
    const file = path.join(scratch, 'cfg', 'tributary', 'config');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, '[old]\n', { mode: 0o644 });
    writeConfig(file, new Map([['default', { api_key: 'k' }]]));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toBe('[default]\napi_key = k\n');
    expect(readConfig(path.join(scratch, 'missing'))).toEqual(new Map());
  });

  it('flags win over variables, which win over the profile', () => {
    const home = path.join(scratch, 'home');
    writeConfig(
      path.join(home, 'tributary', 'config'),
      new Map([
        ['default', { api_url: 'http://profile:1', api_key: 'pk' }],
        ['p2', { api_key: 'k2' }],
      ]),
    );
    const env = { XDG_CONFIG_HOME: home };
    expect(resolveConnection({}, env)).toMatchObject({ apiUrl: 'http://profile:1', apiKey: 'pk', source: 'profile' });
    expect(
      resolveConnection({}, { ...env, TRIBUTARY_API_URL: 'http://env:2/v1/', TRIBUTARY_API_KEY: 'ek' }),
    ).toMatchObject({
      apiUrl: 'http://env:2',
      apiKey: 'ek',
      source: 'environment',
    });
    expect(
      resolveConnection({ apiUrl: 'http://flag:3', apiKey: 'fk' }, { ...env, TRIBUTARY_API_URL: 'http://env:2' }),
    ).toMatchObject({
      apiUrl: 'http://flag:3',
      apiKey: 'fk',
    });
    expect(resolveConnection({ profile: 'p2' }, env)).toMatchObject({
      profile: 'p2',
      apiUrl: 'http://127.0.0.1:8080',
      apiKey: 'k2',
      source: 'default',
    });
    expect(() => normalizeApiUrl('ftp://x')).toThrow(/must start with http/);
    expect(() => normalizeApiUrl('not a url')).toThrow(/is not a URL/);
  });
});

describe('what deploy uploads', () => {
  it('bundles relative imports, keeps npm pins, drops the require shim, names the files relative to the component', async () => {
    const dir = path.join(scratch, 'component');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'helper.mjs'), "import ms from 'ms@2.1.3';\nexport const wait = () => ms('1m');\n");
    writeFileSync(
      path.join(dir, 'main.mjs'),
      "import { wait } from './helper.mjs';\nimport fp from 'lodash@4.17.21/fp';\nexport default { name: 'M', version: '0.1.0', type: 'action', async run() { return [wait(), typeof fp]; } };\n",
    );
    const upload = await codeForUpload(path.join(dir, 'main.mjs'));
    expect(upload.files.map((file) => path.basename(file)).sort()).toEqual(['helper.mjs', 'main.mjs']);
    expect(upload.code).toContain('"ms@2.1.3"');
    expect(upload.code).toContain('"lodash@4.17.21/fp"');
    expect(upload.code).toContain('ms("1m")');
    expect(upload.code).not.toContain('./helper.mjs');
    expect(upload.code).not.toContain('__tributaryCreateRequire');
    // The source map stays, so stacks on the server name main.mjs and helper.mjs at their lines,
    // but it names no path of this machine and carries no file's text.
    expect(upload.code).not.toContain(dir);
    const map = /\/\/# sourceMappingURL=data:application\/json;base64,([A-Za-z0-9+/=]+)\n$/.exec(upload.code);
    const decoded = JSON.parse(Buffer.from(map?.[1] ?? '', 'base64').toString('utf8')) as Record<string, unknown>;
    expect(decoded['sources']).toEqual(['helper.mjs', 'main.mjs']);
    expect(decoded).not.toHaveProperty('sourcesContent');
  });

  it('uploads a plain file without relative imports as written; TypeScript is compiled', async () => {
    const plain = path.join(scratch, 'plain.mjs');
    const text = "// my comment\nexport default { name: 'P', type: 'action', async run() { return 1; } };\n";
    writeFileSync(plain, text);
    expect((await codeForUpload(plain)).code).toBe(text);
    const typed = path.join(scratch, 'typed.ts');
    writeFileSync(
      typed,
      "const n: number = 2;\nexport default { name: 'T', type: 'action', async run() { return n; } };\n",
    );
    const compiled = (await codeForUpload(typed)).code;
    expect(compiled).not.toContain(': number');
    expect(compiled).toContain('export');
  });

  it('tells files, keys and URLs apart', async () => {
    expect(await resolveComponentRef('my-published-key')).toEqual({ kind: 'key', key: 'my-published-key' });
    expect(await resolveComponentRef('https://github.com/o/r/blob/main/s.mjs')).toEqual({
      kind: 'url',
      url: 'https://raw.githubusercontent.com/o/r/main/s.mjs',
    });
    expect(rawGithubUrl('https://example.com/a.mjs')).toBe('https://example.com/a.mjs');
    await expect(resolveComponentRef('missing.mjs')).rejects.toMatchObject({ code: 'FILE_NOT_FOUND' });
    await expect(resolveComponentRef('my-key', { allowKey: false })).rejects.toMatchObject({ code: 'FILE_NOT_FOUND' });
  });
});

describe('tables and times', () => {
  it('pads every column but the last to its widest cell', () => {
    expect(
      formatTable(
        ['ID', 'NAME', 'END'],
        [
          ['dc_1', 'a', 'x'],
          ['dc_22', 'longer', ''],
        ],
      ),
    ).toEqual(['ID     NAME    END', 'dc_1   a       x', 'dc_22  longer']);
  });

  it('says how long ago in the largest whole unit', () => {
    const now = 1_000_000_000_000;
    expect(relativeTime(now / 1000 - 3, now)).toBe('just now');
    expect(relativeTime(now / 1000 - 42, now)).toBe('42 seconds ago');
    expect(relativeTime(now / 1000 - 60, now)).toBe('1 minute ago');
    expect(relativeTime(now / 1000 - 7200, now)).toBe('2 hours ago');
    expect(relativeTime(now / 1000 - 3 * 86400, now)).toBe('3 days ago');
  });
});
