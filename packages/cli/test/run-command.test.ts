import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURES, tributary, tributaryJson } from './cli-process.js';

const fixture = (name: string): string => path.join(FIXTURES, 'cli', name);
const scratch = mkdtempSync(path.join(os.tmpdir(), 'tributary-run-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Report {
  ok: boolean;
  type: string | null;
  return_value: unknown;
  exports: Record<string, unknown>;
  summary: string | null;
  emits: { event: unknown; metadata: { id?: unknown; name: string; summary: string; ts: number } }[];
  deduped: { reason: string }[];
  logs: { level: string; message: string }[];
  hooks: { name: string; ok: boolean }[];
  warnings: { rule: string }[];
  error: { code: string; message: string; rule?: string } | null;
}

describe('tributary run', () => {
  it('runs an action and prints exactly one JSON object with its result', async () => {
    const { code, json } = await tributaryJson<Report>([
      'run',
      fixture('hello.mjs'),
      '--prop',
      'name=World',
      '--prop',
      'times=2',
      '--json',
    ]);
    expect(code).toBe(0);
    expect(json).toMatchObject({
      ok: true,
      type: 'action',
      return_value: 'Hello, World! Hello, World!',
      exports: { $summary: 'Greeted World' },
      summary: 'Greeted World',
      emits: [],
      logs: [{ level: 'info', message: 'greeting World' }],
      exit: null,
      error: null,
    });
  });

  it('prints a human summary without --json', async () => {
    const { code, stdout } = await tributary(['run', fixture('hello.mjs'), '--props', '{"name":"Ada"}']);
    expect(code).toBe(0);
    expect(stdout).toContain('Hello (action) ok');
    expect(stdout).toContain('greeting Ada');
    expect(stdout).toContain('"Hello, Ada!"');
  });

  it('bundles relative imports', async () => {
    const { code, json } = await tributaryJson<Report>([
      'run',
      fixture('with-import.mjs'),
      '--prop',
      'word=hey',
      '--json',
    ]);
    expect(code).toBe(0);
    expect(json.return_value).toBe('HEY!');
  });

  it('accepts components wrapped in defineSource / defineAction (@pipedream/types) and defineComponent', async () => {
    // Independent runs: one process each, side by side.
    const [source, action, step] = await Promise.all([
      tributaryJson<Report>(['run', fixture('typed-source.mjs'), '--json']),
      tributaryJson<Report>(['run', fixture('typed-action.mjs'), '--json']),
      tributaryJson<Report>(['run', fixture('workflow-step.mjs'), '--prop', 'n=21', '--json']),
    ]);
    expect(source.code).toBe(0);
    expect(source.json.emits[0]?.event).toEqual({ label: 'typed' });
    expect(action.json.return_value).toBe('defined with defineAction');
    expect(step.json.return_value).toBe(42);
  });

  it('gives app props their credentials with --auth, by app slug or prop name', async () => {
    const file = path.join(FIXTURES, 'f16-pick-list.mjs');
    // Independent runs: one process each, side by side.
    const [bySlug, byProp, missing, notJson] = await Promise.all([
      tributaryJson<Report>(['run', file, '--prop', 'board=b1', '--auth', 'acme={"api_key":"abc"}', '--json']),
      tributaryJson<Report>([
        'run',
        file,
        '--prop',
        'board=b1',
        '--prop',
        'list=done',
        '--auth',
        'acme={"api_key":"abcde"}',
        '--json',
      ]),
      tributaryJson<Report>(['run', file, '--prop', 'board=b1', '--json']),
      tributary(['run', file, '--prop', 'board=b1', '--auth', 'acme=nope']),
    ]);
    expect(bySlug.code).toBe(0);
    expect(bySlug.json.return_value).toEqual({ board: 'b1', list: null, k: 3 });
    expect(byProp.json.return_value).toEqual({ board: 'b1', list: 'done', k: 5 });
    expect(missing.code).toBe(2);
    expect(missing.json.error).toMatchObject({ code: 'PROP_REQUIRED' });
    expect(missing.json.error?.message).toContain('app prop "acme" needs a connected account');
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain('--auth acme is not valid JSON');
  });

  it('prints every invalid prop at once, one line each, and lists them in --json', async () => {
    const file = path.join(FIXTURES, 'f14-inputs.mjs');
    const [human, json] = await Promise.all([
      tributary(['run', file, '--prop', 'repeat=9', '--prop', 'loud=maybe']),
      tributaryJson<Report>(['run', file, '--prop', 'repeat=9', '--json']),
    ]);
    expect(human.code).toBe(2);
    expect(human.stderr).toBe(
      [
        'error PROP_REQUIRED: 4 props are not valid',
        '  - prop "apiKey" is required (string)',
        '  - prop "repeat" must be <= 5, got 9',
        `  - prop "loud" must be true or false, got the string "maybe"`,
        '  - prop "size" is required (string)',
        '',
      ].join('\n'),
    );
    expect(json.code).toBe(2);
    expect(json.json.error).toMatchObject({
      code: 'PROP_REQUIRED',
      details: {
        prop: 'apiKey',
        errors: [
          { prop: 'apiKey', code: 'PROP_REQUIRED' },
          { prop: 'repeat', code: 'PROP_INVALID' },
          { prop: 'size', code: 'PROP_REQUIRED' },
        ],
      },
    });
  });

  it('keeps db and dedupe state in --state, running the deploy hook only the first time', async () => {
    const state = path.join(scratch, 'counter');
    const first = await tributaryJson<Report>(['run', fixture('counter.mjs'), '--state', state, '--json']);
    expect(first.code).toBe(0);
    expect(first.json.hooks).toEqual([
      { name: 'deploy', ok: true },
      { name: 'activate', ok: true },
    ]);
    expect(first.json.logs).toContainEqual({ level: 'info', message: 'deploy hook' });
    expect(first.json.emits.map((emit) => emit.metadata.summary)).toEqual(['run 1', 'unique 1']);

    const second = await tributaryJson<Report>(['run', fixture('counter.mjs'), '--state', state, '--json']);
    expect(second.json.hooks).toEqual([]);
    expect(second.json.emits.map((emit) => emit.metadata.summary)).toEqual(['unique 2']);
    expect(second.json.deduped).toHaveLength(1);
    expect(second.json.deduped[0]?.reason).toContain('"same"');
  });

  it('starts from a fresh state on every run without --state', async () => {
    for (let i = 0; i < 2; i += 1) {
      const { json } = await tributaryJson<Report>(['run', fixture('counter.mjs'), '--json']);
      expect(json.emits.map((emit) => emit.metadata.summary)).toEqual(['run 1', 'unique 1']);
    }
  });

  it('exits 1 with COMPONENT_ERROR when the component throws', async () => {
    const { code, json } = await tributaryJson<Report>(['run', fixture('throws.mjs'), '--json']);
    expect(code).toBe(1);
    expect(json.ok).toBe(false);
    expect(json.error).toMatchObject({ code: 'COMPONENT_ERROR', message: 'boom from the component' });
    expect(json.logs[0]?.level).toBe('error');
    expect(json.logs[0]?.message).toMatch(
      /^Error: boom from the component\n\s+at Object\.run \(.*fixtures\/components\/cli\/throws\.mjs:6:11\)$/,
    );
  });

  it('exits 1 with TIMEOUT when the deadline passes, keeping the emits made before it', async () => {
    const { code, json } = await tributaryJson<Report>(['run', fixture('slow.mjs'), '--timeout', '1', '--json']);
    expect(code).toBe(1);
    expect(json.error?.code).toBe('TIMEOUT');
    expect(json.emits.map((emit) => emit.event)).toEqual([{ before: true }]);
  });

  it('gives a timer source a timer event when no --event is given', async () => {
    const { code, json } = await tributaryJson<Report>(['run', fixture('ticker.mjs'), '--json']);
    expect(code).toBe(0);
    const event = json.emits[0]?.event as { interval: number; at: number };
    expect(event.interval).toBe(15);
    expect(Math.abs(event.at - Date.now() / 1000)).toBeLessThan(60);
  });

  it('passes --event to a source', async () => {
    const { code, json } = await tributaryJson<Report>([
      'run',
      fixture('webhook.mjs'),
      '--event',
      '{"method":"POST","path":"/hook","body":{"id":"e1","n":1}}',
      '--json',
    ]);
    expect(code).toBe(0);
    expect(json.emits).toMatchObject([{ event: { id: 'e1', n: 1 }, metadata: { id: 'e1', summary: 'POST /hook' } }]);
    expect(json).toMatchObject({
      response: { status: 202, headers: { 'x-version': '1' }, body: '{"received":{"id":"e1","n":1}}' },
    });
  });
});

describe('tributary run: bad input gives one clear line and exit code 2', () => {
  const cases: { name: string; args: string[]; code: string; text: RegExp }[] = [
    {
      name: 'a file that does not exist',
      args: ['run', 'no/such/file.mjs'],
      code: 'FILE_NOT_FOUND',
      text: /no\/such\/file\.mjs/,
    },
    {
      name: 'a syntax error',
      args: ['run', fixture('syntax-error.mjs')],
      code: 'COMPONENT_SYNTAX_ERROR',
      text: /syntax-error\.mjs:4:15/,
    },
    {
      name: 'a default export that is not an object',
      args: ['run', fixture('not-object.mjs')],
      code: 'COMPONENT_INVALID',
      text: /C1/,
    },
    {
      name: 'a prop value of the wrong type',
      args: ['run', fixture('hello.mjs'), '--prop', 'name=x', '--prop', 'times=many'],
      code: 'PROP_INVALID',
      text: /prop "times" must be an integer/,
    },
    {
      name: 'a prop value out of range',
      args: ['run', fixture('hello.mjs'), '--prop', 'name=x', '--prop', 'times=9'],
      code: 'PROP_INVALID',
      text: /must be <= 3/,
    },
    {
      name: 'a missing required prop',
      args: ['run', fixture('hello.mjs')],
      code: 'PROP_REQUIRED',
      text: /prop "name" is required/,
    },
    {
      name: 'an unknown prop',
      args: ['run', fixture('hello.mjs'), '--prop', 'name=x', '--prop', 'nmae=y'],
      code: 'PROP_UNKNOWN',
      text: /unknown prop "nmae"/,
    },
    {
      name: '--props that is not JSON',
      args: ['run', fixture('hello.mjs'), '--props', '{name:'],
      code: 'USAGE_ERROR',
      text: /--props is not valid JSON/,
    },
    {
      name: '--event given to an action',
      args: ['run', fixture('hello.mjs'), '--prop', 'name=x', '--event', '{}'],
      code: 'EVENT_INVALID',
      text: /actions take no event/,
    },
    {
      name: 'a rule violation',
      args: ['run', fixture('invalid-rules.mjs')],
      code: 'COMPONENT_INVALID',
      text: /C9: actions cannot have hooks/,
    },
  ];

  for (const testCase of cases) {
    it(testCase.name, async () => {
      // The human and the --json form of the same refusal, side by side.
      const [human, machine] = await Promise.all([
        tributary(testCase.args),
        tributaryJson<Report>([...testCase.args, '--json']),
      ]);
      expect(human.code).toBe(2);
      expect(human.stdout).toBe('');
      const lines = human.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(testCase.code);
      expect(lines[0]).toMatch(testCase.text);
      expect(human.stderr).not.toMatch(/\n\s+at /);

      expect(machine.code).toBe(2);
      expect(machine.json.ok).toBe(false);
      expect(machine.json.error?.code).toBe(testCase.code);
    });
  }

  it.skipIf(typeof process.getuid !== 'function' || process.getuid() !== 0)(
    'as root, a cache folder that workers cannot reach',
    async () => {
      const closed = mkdtempSync(path.join(os.tmpdir(), 'tributary-closed-cache-'));
      try {
        const env = { TRIBUTARY_CACHE_DIR: path.join(closed, 'cache') };
        const human = await tributary(['run', fixture('hello.mjs'), '--prop', 'name=x'], { env });
        expect(human.code).toBe(2);
        expect(human.stderr.trim().split('\n')).toEqual([
          expect.stringMatching(
            new RegExp(`USAGE_ERROR: the cache directory .* ${closed} does not let others through`),
          ) as string,
        ]);
        const machine = await tributaryJson<Report>(['run', fixture('hello.mjs'), '--prop', 'name=x', '--json'], {
          env,
        });
        expect(machine.code).toBe(2);
        expect(machine.json.error?.code).toBe('USAGE_ERROR');
      } finally {
        rmSync(closed, { recursive: true, force: true });
      }
    },
  );

  it('an unknown flag exits 2', async () => {
    const result = await tributary(['run', fixture('hello.mjs'), '--no-such-flag']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("unknown option '--no-such-flag'");
  });
});
