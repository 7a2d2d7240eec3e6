import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, tributary, tributaryJson } from './cli-process.js';

const fixture = (name: string): string => path.join(FIXTURES, 'cli', name);

describe('tributary validate', () => {
  it('prints every error and warning with its rule id and exits 2', async () => {
    const { code, stdout } = await tributary(['validate', fixture('invalid-rules.mjs')]);
    expect(code).toBe(2);
    expect(stdout).toMatch(/error\s+C9\s+actions cannot have hooks/);
    expect(stdout).toMatch(/error\s+P3\s+prop "count": "secret" is only allowed on string props/);
    expect(stdout).toMatch(/warning P5\s+prop "label"/);
    expect(stdout).toMatch(/warning C6\s+"version" "1" is not semantic versioning/);
    expect(stdout).toContain('invalid (2 errors, 2 warnings)');
  });

  it('reports in JSON with the configurable props of a valid component', async () => {
    const { code, json } = await tributaryJson<{
      ok: boolean;
      type: string;
      code_hash: string;
      errors: unknown[];
      configurable_props: { name: string; type: string; default?: unknown }[];
    }>(['validate', fixture('hello.mjs'), '--json']);
    expect(code).toBe(0);
    expect(json.ok).toBe(true);
    expect(json.type).toBe('action');
    expect(json.code_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(json.errors).toEqual([]);
    expect(json.configurable_props.map((prop) => prop.name)).toEqual(['name', 'times']);
  });

  it('leaves out $.service.db props and shows the timer default', async () => {
    const counter = await tributaryJson<{ configurable_props: { name: string }[] }>([
      'validate',
      fixture('counter.mjs'),
      '--json',
    ]);
    expect(counter.json.configurable_props).toEqual([]);
    const ticker = await tributaryJson<{ configurable_props: unknown[] }>([
      'validate',
      fixture('ticker.mjs'),
      '--json',
    ]);
    expect(ticker.json.configurable_props).toEqual([
      { name: 'timer', type: '$.interface.timer', default: { intervalSeconds: 15 } },
    ]);
  });

  it('applies the registry rules with --publish', async () => {
    const { code, stdout } = await tributary(['validate', fixture('invalid-rules.mjs'), '--publish']);
    expect(code).toBe(2);
    expect(stdout).toMatch(/error\s+C6/);
  });

  it('reports a syntax error with file, line and column and exits 2', async () => {
    const { code, stderr } = await tributary(['validate', fixture('syntax-error.mjs')]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/COMPONENT_SYNTAX_ERROR: .*syntax-error\.mjs:4:15: Unexpected ";"/);
  });
});

describe('tributary options', () => {
  it('pages async options with prevContext', async () => {
    const first = await tributaryJson<{ stringOptions: string[]; context: { nextPageToken: number | null } }>([
      'options',
      fixture('options.mjs'),
      'city',
      '--json',
    ]);
    expect(first.code).toBe(0);
    expect(first.json.stringOptions).toEqual(['Oslo', 'Lima']);
    expect(first.json.context).toEqual({ nextPageToken: 1 });
    const second = await tributaryJson<{ stringOptions: string[]; context: { nextPageToken: number | null } }>([
      'options',
      fixture('options.mjs'),
      'city',
      '--page',
      '1',
      '--prev-context',
      JSON.stringify(first.json.context),
      '--json',
    ]);
    expect(second.json.stringOptions).toEqual(['Pune']);
    expect(second.json.context).toEqual({ nextPageToken: null });
  });

  it("lists an app propDefinition's options with the app's $auth and the input-values function", async () => {
    const file = path.join(FIXTURES, 'f16-pick-list.mjs');
    const boards = await tributaryJson<{ options: unknown[] }>([
      'options',
      file,
      'board',
      '--auth',
      'acme={"api_key":"k"}',
      '--json',
    ]);
    expect(boards.json.options).toEqual([{ label: 'Main', value: 'b1' }]);
    const lists = await tributaryJson<{ stringOptions: string[] }>([
      'options',
      file,
      'list',
      '--prop',
      'board=b1',
      '--json',
    ]);
    expect(lists.json.stringOptions).toEqual(['todo', 'done']);
    const none = await tributaryJson<{ stringOptions: string[] }>([
      'options',
      file,
      'list',
      '--prop',
      'board=zz',
      '--json',
    ]);
    expect(none.json.stringOptions).toEqual([]);
  });

  it('prints human rows and how to get the next page', async () => {
    const { code, stdout } = await tributary(['options', fixture('options.mjs'), 'city']);
    expect(code).toBe(0);
    expect(stdout.split('\n').slice(0, 2)).toEqual(['Oslo', 'Lima']);
    expect(stdout).toContain(`more: --page 1 --prev-context '{"nextPageToken":1}'`);
  });

  it('lists static label/value options', async () => {
    const { json } = await tributaryJson<{ options: { label: string; value: string }[] }>([
      'options',
      fixture('options.mjs'),
      'size',
      '--json',
    ]);
    expect(json.options).toEqual([
      { label: 'Small', value: 's' },
      { label: 'Large', value: 'l' },
    ]);
  });

  it('refuses a prop without options, an unknown prop and bad flags with exit 2', async () => {
    const none = await tributary(['options', fixture('hello.mjs'), 'name']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('PROP_HAS_NO_OPTIONS');
    const unknown = await tributary(['options', fixture('options.mjs'), 'town']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('PROP_UNKNOWN');
    const page = await tributary(['options', fixture('options.mjs'), 'city', '--page', '-1']);
    expect(page.code).toBe(2);
    expect(page.stderr).toContain('--page must be a whole number');
    const context = await tributary(['options', fixture('options.mjs'), 'city', '--prev-context', '[1]']);
    expect(context.code).toBe(2);
    expect(context.stderr).toContain('--prev-context must be a JSON object');
  });
});

describe('tributary --help', () => {
  it('documents every command with examples', async () => {
    const commands = ['run', 'dev', 'validate', 'options'];
    const [top, ...helps] = await Promise.all([
      tributary(['--help']),
      ...commands.map((command) => tributary([command, '--help'])),
    ]);
    for (const [index, command] of commands.entries()) {
      const { code, stdout } = helps[index] ?? { code: -1, stdout: '' };
      expect(code).toBe(0);
      expect(stdout).toContain(`Usage: tributary ${command}`);
      expect(stdout).toContain('Examples:');
    }
    expect(top.stdout).toMatch(/run \[options\] <file>/);
  });
});
