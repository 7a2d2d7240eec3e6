/**
 * Runs every docs example through the real `tributary` binary (built dist; the root `npm test` runs
 * `tsc -b` first) and checks what the pages say about it:
 *  1. every `<!-- cli-output -->` console block is executed and its output compared;
 *  2. the `<!-- dev-transcript -->` session of docs/cli.md is replayed against `tributary dev`;
 *  3. the claims made in prose are asserted example by example.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  BIN,
  commandArgs,
  consoleSteps,
  EXAMPLES_DIR,
  parseBlocks,
  readPages,
  REPO,
  tributary,
  tributaryJson,
  type Block,
  type ConsoleStep,
} from './doc-test-helpers.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
interface Report {
  ok: boolean;
  type: string | null;
  return_value: Json;
  exports: Record<string, Json>;
  summary: string | null;
  emits: { event: Json; metadata: { id?: string | number; name: string; summary: string; ts: number } }[];
  deduped: {
    event: Json;
    metadata: { id?: string | number; name: string; summary: string; ts: number };
    reason: string;
  }[];
  logs: { level: string; message: string }[];
  exit: { reason: string | null } | null;
  response: { status: number; headers: Record<string, string>; body: string | null } | null;
  sends: { kind: string; config: Record<string, Json> }[];
  hooks: { name: string; ok: boolean }[];
  warnings: { rule: string; message: string; prop?: string; field?: string }[];
  error: { code: string; message: string; rule?: string; stack?: string; details?: Record<string, Json> } | null;
}

// Each test runs the real binary several times, and every run starts worker processes: on a loaded
// 2-core machine that takes minutes, not the 30 s default. (Only a cap: nothing asserts on speed.)
vi.setConfig({ testTimeout: 300_000, hookTimeout: 120_000 });

const pages = readPages();
const blocks = pages.flatMap(parseBlocks);
const exercised = new Set<string>();
const example = (name: string): string => {
  exercised.add(name);
  return `${EXAMPLES_DIR}/${name}`;
};
const scratch = mkdtempSync(path.join(os.tmpdir(), 'tributary-docs-'));

/** `tributary run <example> ... --json`: exit code and run report. */
async function run(name: string, ...args: string[]): Promise<{ code: number; report: Report; stderr: string }> {
  const { code, json, stderr } = await tributaryJson<Report>(['run', example(name), ...args, '--json']);
  return { code, report: json, stderr };
}

/** Writes a throwaway component (not a docs example) and returns its path. */
function scratchComponent(name: string, code: string): string {
  const file = path.join(scratch, name);
  writeFileSync(file, code);
  return file;
}

beforeAll(() => {
  if (!existsSync(path.join(REPO, 'packages/cli/dist/main.js'))) {
    throw new Error('packages/cli/dist is missing: build first with `npx tsc -b` (npm test does it)');
  }
});

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

// 1. Console blocks ----------------------------------------------------------------------------

/**
 * Lines the CLI may print on stderr before a command's own output, depending on the machine and the
 * package cache: npm install progress and missing isolation layers (docs/cli.md says so).
 */
const ENVIRONMENT_LINE = /^(npm (installing|installed) .*|sandbox .* is off: .*)\n/gm;

/**
 * A timer event's fire time (epoch seconds, as in `{"firedAt":1795477181}`) is the time of the run,
 * so in human output every 10-digit number compares equal to any other.
 */
function maskEpochSeconds(text: string): string {
  return text.replace(/(?<![\d.])\d{10}(?![\d.])/g, '<epoch seconds>');
}

async function checkStep(step: ConsoleStep): Promise<void> {
  const args = commandArgs(step.command);
  expect(args[0], 'cli-output blocks run commands that terminate').not.toBe('dev');
  const raw = await tributary(args);
  const result = { ...raw, stderr: raw.stderr.replace(ENVIRONMENT_LINE, '') };
  const context = `$ ${step.command}\n--- stdout\n${result.stdout}--- stderr\n${result.stderr}`;
  if (args.includes('--json')) {
    expect(result.stderr, context).toBe('');
    expect(result.stdout.trimEnd().split('\n'), `${context}\n--json prints one line`).toHaveLength(1);
    expect(JSON.parse(result.stdout), context).toEqual(JSON.parse(step.expected));
  } else {
    expect(maskEpochSeconds(`${result.stdout}${result.stderr}`.trimEnd()), context).toBe(
      maskEpochSeconds(step.expected.trimEnd()),
    );
  }
  expect(result.code, context).toBe(step.exitCode);
}

function stateDirsOf(blockList: readonly Block[]): string[] {
  const dirs = new Set<string>();
  for (const block of blockList) {
    for (const step of consoleSteps(block)) {
      const args = commandArgs(step.command);
      const at = args.indexOf('--state');
      if (at !== -1 && args[at + 1]) dirs.add(path.resolve(REPO, args[at + 1] ?? ''));
    }
  }
  return [...dirs];
}

describe('cli-output blocks', () => {
  const marked = blocks.filter((block) => block.marker === 'cli-output');

  it('exist on the pages that show commands', () => {
    expect(marked.every((block) => block.lang === 'console')).toBe(true);
    const pagesWithOutput = new Set(marked.map((block) => block.page));
    for (const page of [
      'components.md',
      'props.md',
      'methods-and-hooks.md',
      'run-and-emit.md',
      'actions.md',
      'cli.md',
      'component-api.md',
      'quickstart-source.md',
      'quickstart-action.md',
      'environment-variables.md',
    ]) {
      expect(pagesWithOutput.has(page), page).toBe(true);
    }
  });

  // Pages run side by side; the blocks of one page run in page order, because later blocks may
  // continue the state (--state DIR) of earlier ones.
  for (const page of pages) {
    const pageBlocks = marked.filter((block) => block.page === page.name);
    if (pageBlocks.length === 0) continue;
    describe.concurrent(page.name, () => {
      const stateDirs = stateDirsOf(pageBlocks);
      const clean = (): void => {
        for (const dir of stateDirs) rmSync(dir, { recursive: true, force: true });
      };
      beforeAll(clean);
      afterAll(clean);
      let previous: Promise<void> = Promise.resolve();
      it.each(pageBlocks.map((block) => [`${block.page}:${block.line}`, block] as const))(
        '%s',
        async (_where, block) => {
          const steps = consoleSteps(block);
          expect(steps.length).toBeGreaterThan(0);
          const mine = previous.then(async () => {
            for (const step of steps) await checkStep(step);
          });
          previous = mine.catch(() => undefined);
          await mine;
        },
      );
    });
  }
});

// 2. tributary dev ---------------------------------------------------------------------------------

type Line = Record<string, unknown>;

/** A running `tributary dev --json`, whose stdout lines are parsed as they arrive. */
class Dev {
  readonly lines: Line[] = [];
  readonly stderr: string[] = [];
  readonly exited: Promise<number>;
  private waiters: { from: number; predicate: (line: Line) => boolean; resolve: (line: Line) => void }[] = [];

  constructor(readonly child: ChildProcessWithoutNullStreams) {
    createInterface({ input: child.stdout }).on('line', (text) => {
      const line = JSON.parse(text) as Line;
      this.lines.push(line);
      const index = this.lines.length - 1;
      for (const waiter of [...this.waiters]) {
        if (index >= waiter.from && waiter.predicate(line)) {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          waiter.resolve(line);
        }
      }
    });
    child.stderr.on('data', (chunk: Buffer) => this.stderr.push(chunk.toString()));
    // 'close', not 'exit': the last lines written before exiting may still be in the pipe at 'exit'.
    this.exited = new Promise((resolve) => child.on('close', (code) => resolve(code ?? -1)));
  }

  static start(args: readonly string[], cwd: string): Dev {
    return new Dev(spawn(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, NO_COLOR: '1' } }));
  }

  /** Resolves with the first line at index >= `from` that matches. */
  waitFor(predicate: (line: Line) => boolean, from = 0, timeoutMs = 60_000): Promise<Line> {
    const found = this.lines.slice(from).find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `timed out; lines so far:\n${this.lines.map((l) => JSON.stringify(l)).join('\n')}\n${this.stderr.join('')}`,
            ),
          ),
        timeoutMs,
      );
      this.waiters.push({
        from,
        predicate,
        resolve: (line) => {
          clearTimeout(timer);
          resolve(line);
        },
      });
    });
  }

  async stop(): Promise<number> {
    this.child.kill('SIGINT');
    return this.exited;
  }
}

const isResult = (kind: string, trigger?: string) => (line: Line) =>
  line['type'] === 'result' && line['kind'] === kind && (trigger === undefined || line['trigger'] === trigger);

/** Makes a dev line comparable across machines and runs: paths, port, endpoint id, times and durations. */
function normaliseDevLine(line: Line): Line {
  const copy = JSON.parse(JSON.stringify(line)) as Line;
  const base = (value: unknown): string => path.basename(String(value));
  if ('duration_ms' in copy) copy['duration_ms'] = 0;
  if (copy['type'] === 'ready') {
    copy['state_dir'] = String(copy['state_dir']).split(path.sep).slice(-2).join('/');
    copy['endpoint_url'] = String(copy['endpoint_url']).replace(/:\d+\/e\/[0-9a-f]{16}$/, ':PORT/e/ID');
    copy['watching'] = (copy['watching'] as unknown[]).map(base);
  }
  if (copy['type'] === 'invocation' && String(copy['trigger']).startsWith('change in ')) {
    copy['trigger'] = `change in ${base(String(copy['trigger']).slice('change in '.length))}`;
  }
  if (copy['type'] === 'reload') copy['file'] = base(copy['file']);
  for (const emit of (copy['emits'] as { metadata: { ts: number } }[] | undefined) ?? []) {
    if (emit.metadata.ts >= 1e12) emit.metadata.ts = 0;
  }
  return copy;
}

/** Copies a docs example into a fresh directory under the same relative path, so dev can watch and edit it. */
function devWorkspace(name: string): { cwd: string; file: string } {
  const cwd = mkdtempSync(path.join(scratch, 'dev-'));
  const file = path.join(cwd, EXAMPLES_DIR, name);
  mkdirSync(path.dirname(file), { recursive: true });
  cpSync(path.join(REPO, example(name)), file);
  return { cwd, file };
}

describe('tributary dev', () => {
  it('replays the dev --json session shown on the CLI page', async () => {
    const block = blocks.find((candidate) => candidate.marker === 'dev-transcript');
    if (!block) throw new Error('docs/cli.md has no <!-- dev-transcript --> block');
    const [first = '', ...shown] = block.content.split('\n');
    const args = commandArgs(first.replace(/^\$ /, ''));
    expect(args).toEqual(['dev', `${EXAMPLES_DIR}/hooks-source.mjs`, '--json']);
    const { cwd, file } = devWorkspace('hooks-source.mjs');
    // Port 0 instead of the default 4100, so the test never collides with a dev session of yours.
    const dev = Dev.start([...args, '--port', '0'], cwd);
    const ready = await dev.waitFor((line) => line['type'] === 'ready');
    const response = await fetch(String(ready['endpoint_url']), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"order":1}',
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('OK');
    await dev.waitFor(isResult('run'));
    appendFileSync(file, '// saved\n');
    await dev.waitFor((line) => line['type'] === 'reload');
    expect(await dev.stop()).toBe(0);

    expect(dev.lines.map(normaliseDevLine)).toEqual(shown.map((text) => normaliseDevLine(JSON.parse(text) as Line)));
    // The parts the comparison ignored still have the documented shape.
    expect(ready['file']).toBe(`${EXAMPLES_DIR}/hooks-source.mjs`);
    expect(String(ready['state_dir'])).toMatch(/[/\\]\.tributary-dev[/\\]hooks-source$/);
    expect(String(ready['endpoint_url'])).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/e\/[0-9a-f]{16}$/);
    // activate stored this.http.endpoint: the URL the dev session printed.
    const state = JSON.parse(readFileSync(path.join(cwd, '.tributary-dev/hooks-source/state.json'), 'utf8')) as {
      deployed: boolean;
      endpointId: string;
      db: Record<string, Json>;
    };
    expect(state.deployed).toBe(true);
    expect(state.db).toEqual({ registrations: 2, endpoint: ready['endpoint_url'] });
    expect(String(ready['endpoint_url']).endsWith(`/e/${state.endpointId}`)).toBe(true);
  });

  it('runs only activate when started again on the same state, and keeps the endpoint id', async () => {
    const { cwd } = devWorkspace('hooks-source.mjs');
    const args = ['dev', `${EXAMPLES_DIR}/hooks-source.mjs`, '--json', '--port', '0', '--state', 'state'];
    const first = Dev.start(args, cwd);
    const firstReady = await first.waitFor((line) => line['type'] === 'ready');
    expect(first.lines[0]).toEqual({ type: 'invocation', kind: 'deploy, activate', trigger: 'first start' });
    expect(await first.stop()).toBe(0);
    expect(first.lines.at(-3)).toEqual({
      type: 'log',
      kind: 'deactivate',
      level: 'info',
      message: 'deactivate: removed hook-1',
    });

    const second = Dev.start(args, cwd);
    const secondReady = await second.waitFor((line) => line['type'] === 'ready');
    expect(second.lines[0]).toEqual({ type: 'invocation', kind: 'activate', trigger: 'start' });
    expect(second.lines.filter((line) => line['type'] === 'result').map((line) => line['kind'])).toEqual(['activate']);
    expect(second.lines).toContainEqual({
      type: 'log',
      kind: 'activate',
      level: 'info',
      message: 'activate: registered hook-2',
    });
    expect(await second.stop()).toBe(0);
    const id = (url: unknown): string => String(url).replace(/^.*\/e\//, '');
    expect(id(secondReady['endpoint_url'])).toBe(id(firstReady['endpoint_url']));
  });

  it('keeps the previous code when a save does not load, and rolls back when the new activate fails', async () => {
    const { cwd, file } = devWorkspace('hooks-source.mjs');
    const original = readFileSync(file, 'utf8');
    const dev = Dev.start(['dev', `${EXAMPLES_DIR}/hooks-source.mjs`, '--json', '--port', '0'], cwd);
    const ready = await dev.waitFor((line) => line['type'] === 'ready');

    let from = dev.lines.length;
    writeFileSync(file, `${original}\nexport const broken = ;\n`);
    const error = await dev.waitFor((line) => line['type'] === 'error', from);
    expect(error['code']).toBe('COMPONENT_SYNTAX_ERROR');
    expect(String(error['message'])).toMatch(/\(still running the previous code\)$/);
    from = dev.lines.length;
    await fetch(String(ready['endpoint_url']), { method: 'POST', body: '{"still":"alive"}' });
    const stillRunning = await dev.waitFor(isResult('run'), from);
    expect(stillRunning['ok']).toBe(true);
    expect(stillRunning['emits']).toMatchObject([{ event: { still: 'alive' }, metadata: { summary: 'delivery' } }]);

    from = dev.lines.length;
    const failingActivate = original.replace(
      /async activate\(\) \{[\s\S]*?\n {4}\},/,
      "async activate() {\n      throw new Error('cannot register');\n    },",
    );
    expect(failingActivate).not.toBe(original);
    writeFileSync(file, failingActivate);
    const reload = await dev.waitFor((line) => line['type'] === 'reload', from);
    expect(reload['applied']).toBe(false);
    const results = dev.lines.slice(from).filter((line) => line['type'] === 'result');
    expect(results.map((line) => [line['kind'], line['ok']])).toEqual([
      ['deactivate', true],
      ['activate', false],
      ['activate', true],
    ]);
    expect(results[1]?.['error']).toEqual({ code: 'COMPONENT_ERROR', message: 'cannot register' });
    expect(await dev.stop()).toBe(0);
  });

  it('builds the HTTP event from real requests and answers as the HTTP prop says', async () => {
    const { cwd } = devWorkspace('webhook-source.mjs');
    const dev = Dev.start(
      ['dev', `${EXAMPLES_DIR}/webhook-source.mjs`, '--prop', 'token=s3cret', '--json', '--port', '0'],
      cwd,
    );
    const ready = await dev.waitFor((line) => line['type'] === 'ready');
    const endpoint = String(ready['endpoint_url']);
    expect(endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/e\/[0-9a-f]{16}$/);

    // The curl command of props.md#http, plus a repeated query key.
    let from = dev.lines.length;
    const accepted = await fetch(`${endpoint}/orders?src=docs&tag=a&tag=b`, {
      method: 'POST',
      headers: { 'x-token': 's3cret', 'content-type': 'application/json' },
      body: '{"id":7}',
    });
    expect(accepted.status).toBe(202);
    expect(accepted.headers.get('x-handled-by')).toBe('docs-webhook');
    expect(accepted.headers.get('content-type')).toBe('application/json');
    expect(await accepted.text()).toBe('{"accepted":true}');
    const result = await dev.waitFor(isResult('run'), from);
    const emits = result['emits'] as { event: Record<string, unknown>; metadata: Record<string, unknown> }[];
    expect(emits).toHaveLength(1);
    const event = emits[0]?.event ?? {};
    expect(event).toMatchObject({
      method: 'POST',
      path: '/orders',
      query: { src: 'docs', tag: ['a', 'b'] },
      bodyRaw: '{"id":7}',
      rawBody: '{"id":7}',
      body: { id: 7 },
    });
    expect(event['headers']).toMatchObject({ 'x-token': 's3cret', 'content-type': 'application/json' });
    expect(String(event['url'])).toMatch(/\/e\/[0-9a-f]{16}\/orders\?src=docs&tag=a&tag=b$/);
    expect(emits[0]?.metadata['summary']).toBe('POST /orders');

    from = dev.lines.length;
    const form = await fetch(endpoint, {
      method: 'PUT',
      headers: { 'x-token': 's3cret', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=1&b=2',
    });
    expect(form.status).toBe(202);
    const formEvent = ((await dev.waitFor(isResult('run'), from))['emits'] as { event: Record<string, unknown> }[])[0]
      ?.event;
    expect(formEvent).toMatchObject({ method: 'PUT', path: '/', query: {}, bodyRaw: 'a=1&b=2', body: 'a=1&b=2' });

    from = dev.lines.length;
    const refused = await fetch(`${endpoint}/orders`, { method: 'POST', headers: { 'x-token': 'wrong' }, body: '{}' });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({ error: 'bad token' });
    expect((await dev.waitFor(isResult('run'), from))['emits']).toEqual([]);

    const preflight = await fetch(endpoint, { method: 'OPTIONS' });
    expect(preflight.status).toBe(200);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-methods')).toBe('GET,HEAD,PUT,PATCH,POST,DELETE');
    const tooLarge = await fetch(endpoint, {
      method: 'POST',
      headers: { 'x-token': 's3cret' },
      body: 'x'.repeat(513 * 1024),
    });
    expect(tooLarge.status).toBe(413);
    const elsewhere = await fetch(endpoint.replace(/\/e\/[0-9a-f]+$/, '/e/0000000000000000'));
    expect(elsewhere.status).toBe(404);
    expect(await dev.stop()).toBe(0);
  });

  it('refuses actions and sources that do not load', async () => {
    const action = await tributary(['dev', example('hello-action.mjs'), '--prop', 'name=World', '--port', '0']);
    expect(action.code).toBe(2);
    expect(action.stderr).toMatch(/^error USAGE_ERROR: .*hello-action\.mjs is an action; dev runs sources/);
    const invalid = await tributary(['dev', example('invalid-action.mjs'), '--json', '--port', '0']);
    expect(invalid.code).toBe(2);
    expect(JSON.parse(invalid.stdout)).toMatchObject({ ok: false, error: { code: 'COMPONENT_INVALID', rule: 'C9' } });
    expect(invalid.stdout.trimEnd().split('\n')).toHaveLength(1);
  });
});

// 3. What the pages say, example by example (independent tests: each uses its own scratch state) ------

describe.concurrent('components.md', () => {
  it('hello-action returns the greeting, logs it and exports a summary', async () => {
    const { code, report, stderr } = await run('hello-action.mjs', '--prop', 'name=World');
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(report).toMatchObject({
      ok: true,
      type: 'action',
      return_value: 'Hello, World!',
      exports: { $summary: 'Greeted World' },
      summary: 'Greeted World',
      logs: [{ level: 'info', message: 'Hello, World!' }],
      emits: [],
      hooks: [],
      error: null,
    });
  });

  it('hello-source emits one event per run and runs deploy and activate first', async () => {
    const { code, report } = await run('hello-source.mjs', '--prop', 'name=Ada');
    expect(code).toBe(0);
    expect(report.type).toBe('source');
    expect(report.return_value).toBeNull();
    expect(report.hooks).toEqual([
      { name: 'deploy', ok: true },
      { name: 'activate', ok: true },
    ]);
    expect(report.emits).toHaveLength(1);
    expect(report.emits[0]).toMatchObject({
      event: { greeting: 'Hello, Ada!' },
      metadata: { name: 'default', summary: 'Greeting for Ada' },
    });
    expect(Math.abs((report.emits[0]?.metadata.ts ?? 0) - Date.now())).toBeLessThan(60_000);
  });

  it('commonjs-action, bundled-action and define-component-action load and run', async () => {
    expect((await run('commonjs-action.cjs', '--prop', 'text=hello')).report.return_value).toBe('2cf24dba5fb0');
    expect((await run('bundled-action.mjs', '--prop', 'title=Hello, World!')).report.return_value).toBe('hello-world');
    expect((await run('define-component-action.mjs')).report.return_value).toBe(
      'defineComponent returns the object it is given',
    );
  });

  it('refuses a module that mixes ESM and CommonJS, with file, line and column', async () => {
    const { code, report } = await run('mixed-format.mjs');
    expect(code).toBe(2);
    expect(report.ok).toBe(false);
    expect(report.error?.code).toBe('MIXED_MODULE_FORMAT');
    expect(report.error?.message).toContain(
      'mixed-format.mjs:4:1: a module must use either ESM (import/export) or CommonJS (require/module.exports), not both',
    );
    const human = await tributary(['run', example('mixed-format.mjs')]);
    expect(human.stderr).toMatch(/^error MIXED_MODULE_FORMAT: .*mixed-format\.mjs:4:1: a module must use either ESM/);
  });

  it('refuses to run a helper module (C1) and an app file (C2, with a hint)', async () => {
    const helper = await run('slugify.mjs');
    expect(helper.code).toBe(2);
    expect(helper.report.error).toMatchObject({ code: 'COMPONENT_INVALID', rule: 'C1' });
    expect(helper.report.error?.message).toContain('the module must export a component object');
    const app = await run('acme.app.mjs');
    expect(app.code).toBe(2);
    expect(app.report.error).toMatchObject({ code: 'COMPONENT_INVALID', rule: 'C2' });
    expect(app.report.error?.message).toContain('this file defines an app; import it from a source or action');
  });

  it('installs a pinned npm version and lists it under packages', async () => {
    const file = scratchComponent(
      'pinned.mjs',
      "import ms from 'ms@2.1.2';\nexport default { name: 'P', version: '0.1.0', type: 'action', async run() { return ms('1m'); } };\n",
    );
    const validated = await tributaryJson<{ packages: Record<string, string> }>(['validate', file, '--json']);
    expect(validated.json.packages).toEqual({ ms: '2.1.2' });
    expect((await tributaryJson<Report>(['run', file, '--json'])).json.return_value).toBe(60_000);
  });

  it('runs components in a worker with an empty environment and restricted files and processes', async () => {
    const file = scratchComponent(
      'sandboxed.mjs',
      [
        "import { execSync } from 'node:child_process';",
        "import { readFileSync, writeFileSync } from 'node:fs';",
        "import os from 'node:os';",
        "import path from 'node:path';",
        "export default { name: 'S', version: '0.1.0', type: 'action', props: { what: { type: 'string' } }, async run() {",
        "  if (this.what === 'env') return Object.keys(process.env).sort();",
        "  if (this.what === 'tmp') { const f = path.join(os.tmpdir(), 'docs.txt'); writeFileSync(f, 'kept'); return readFileSync(f, 'utf8'); }",
        "  if (this.what === 'read') return readFileSync('/etc/hostname', 'utf8');",
        "  if (this.what === 'spawn') return execSync('echo hi').toString();",
        "  if (this.what === 'exit') process.exit(3);",
        "  if (this.what === 'loop') for (;;) {}",
        '} };',
        '',
      ].join('\n'),
    );
    const what = (value: string, ...args: string[]) =>
      tributaryJson<Report>(['run', file, '--prop', `what=${value}`, ...args, '--json']);
    const env = await what('env');
    expect(env.json.return_value).toEqual(expect.arrayContaining(['HOME', 'TMPDIR']));
    const names = env.json.return_value as string[];
    expect(names.filter((name) => !['HOME', 'TMPDIR', 'NODE_ENV', 'PWD'].includes(name))).toEqual([]);
    expect((await what('tmp')).json.return_value).toBe('kept');
    for (const denied of ['read', 'spawn']) {
      const result = await what(denied);
      expect(result.code, denied).toBe(1);
      expect(result.json.error?.message, denied).toContain('Access to this API has been restricted');
    }
    const exited = await what('exit');
    expect(exited.code).toBe(1);
    expect(exited.json.error?.code).toBe('CRASHED');
    // An endless loop ends with TIMEOUT (the worker is killed); how long that takes is not asserted,
    // since on a loaded machine starting the CLI alone can take seconds.
    const looped = await what('loop', '--timeout', '1');
    expect(looped.code).toBe(1);
    expect(looped.json.error?.code).toBe('TIMEOUT');
  });

  it('reports a missing package as PACKAGE_NOT_FOUND with exit code 2', async () => {
    const file = scratchComponent(
      'missing-package.mjs',
      "import x from 'no-such-package-for-docs@1.0.0';\nexport default { name: 'M', version: '0.1.0', type: 'action', async run() { return x; } };\n",
    );
    const { code, json } = await tributaryJson<Report>(['run', file, '--json']);
    expect(code).toBe(2);
    expect(json.error?.code).toBe('PACKAGE_NOT_FOUND');
  });

  it('warns about a missing name on run (C4) and refuses it in validate', async () => {
    const file = scratchComponent(
      'no-name.mjs',
      "export default { version: '0.1.0', type: 'action', async run() { return 1; } };\n",
    );
    const ran = await tributaryJson<Report>(['run', file, '--json']);
    expect(ran.code).toBe(0);
    expect(ran.json.warnings.map((warning) => warning.rule)).toEqual(['C4']);
    const validated = await tributaryJson<{ ok: boolean; errors: { rule: string }[] }>(['validate', file, '--json']);
    expect(validated.code).toBe(2);
    expect(validated.json.errors.map((issue) => issue.rule)).toEqual(['C4']);
  });
});

describe.concurrent('props.md', () => {
  it('inputs-action: defaults, the alert not on this, and every type after coercion', async () => {
    const defaults = await run('inputs-action.mjs', '--prop', 'title=Report', '--prop', 'apiKey=abc123');
    expect(defaults.report.return_value).toEqual({
      title: 'Report',
      apiKeyLength: 6,
      copies: 1,
      ratio: 1.5,
      urgent: false,
      tags: [],
      sizes: [],
      priority: 'p3',
      meta: null,
      payload: null,
      hasNotice: false,
    });
    const coerced = await run(
      'inputs-action.mjs',
      '--props',
      JSON.stringify({
        title: 'Report',
        apiKey: 'abc123',
        copies: '2',
        ratio: '2.5',
        urgent: 'false',
        tags: 'red',
        sizes: '[1,2]',
        meta: '{"a":1}',
      }),
    );
    expect(coerced.report.return_value).toMatchObject({
      copies: 2,
      ratio: 2.5,
      urgent: false,
      tags: ['red'],
      sizes: [1, 2],
      meta: { a: 1 },
    });
    const nulls = await run(
      'inputs-action.mjs',
      '--props',
      JSON.stringify({ title: 'Report', apiKey: 'abc123', copies: null }),
    );
    expect(nulls.report.return_value).toMatchObject({ copies: 1 });
  });

  it.each([
    ['copies', '2.5', 'prop "copies" must be an integer, got 2.5'],
    ['copies', '"2.5"', 'prop "copies" must be an integer, got the string "2.5"'],
    ['copies', '"five"', 'prop "copies" must be an integer, got the string "five"'],
    ['ratio', '""', 'prop "ratio" must be a number, got the string ""'],
    ['ratio', '"abc"', 'prop "ratio" must be a number, got the string "abc"'],
    ['urgent', '"yes"', 'prop "urgent" must be true or false, got the string "yes"'],
    ['urgent', '1', 'prop "urgent" must be true or false, got number 1'],
    ['meta', '[1]', 'prop "meta" must be an object, got an array'],
    ['meta', '"not json"', 'prop "meta" must be an object (the string given is not valid JSON)'],
    ['tags', '[123]', 'prop "tags" element 0 must be a string, got number 123'],
    ['title', '42', 'prop "title" must be a string, got number 42'],
  ])('coercion refuses %s = %s', async (prop, value, message) => {
    const props = `{"title":"Report","apiKey":"abc123","${prop}":${value}}`;
    const { code, report } = await run('inputs-action.mjs', '--props', props);
    expect(code).toBe(2);
    expect(report.error).toMatchObject({ code: 'PROP_INVALID', message });
  });

  it('inputs-action: 64 KB per value, unknown props, and what validate shows', async () => {
    const big = await run('inputs-action.mjs', '--prop', 'title=Report', '--prop', `apiKey=${'k'.repeat(65 * 1024)}`);
    expect(big.code).toBe(2);
    expect(big.report.error).toMatchObject({ code: 'PROP_TOO_LARGE', rule: 'P14' });
    const justUnder = await run(
      'inputs-action.mjs',
      '--prop',
      'title=Report',
      '--prop',
      `apiKey=${'k'.repeat(60 * 1024)}`,
    );
    expect(justUnder.report.return_value).toMatchObject({ apiKeyLength: 60 * 1024 });
    const unknown = await run('inputs-action.mjs', '--prop', 'title=Report', '--prop', 'apiKey=k', '--prop', 'nope=1');
    expect(unknown.code).toBe(2);
    expect(unknown.report.error?.code).toBe('PROP_UNKNOWN');
    const validated = await tributaryJson<{ ok: boolean; configurable_props: Record<string, unknown>[] }>([
      'validate',
      example('inputs-action.mjs'),
      '--json',
    ]);
    expect(validated.code).toBe(0);
    const byName = Object.fromEntries(validated.json.configurable_props.map((prop) => [prop['name'], prop]));
    expect(byName['notice']).toEqual({
      name: 'notice',
      type: 'alert',
      alertType: 'info',
      content: 'Shown above the form; never passed to run().',
    });
    expect(byName['apiKey']).toMatchObject({ secret: true });
    expect(byName['copies']).toMatchObject({ min: 1, max: 5, optional: true, default: 1 });
    expect(byName['priority']).toMatchObject({
      options: [
        { label: 'Low', value: 'p3' },
        { label: 'High', value: 'p1' },
      ],
    });
  });

  it('options-action: numbered pages from 0, query only with useQuery, token pages with prevContext', async () => {
    const page = async (...args: string[]) =>
      (
        await tributaryJson<{ stringOptions: string[] | null; context: Json; errors: string[] }>([
          'options',
          example('options-action.mjs'),
          ...args,
          '--json',
        ])
      ).json;
    expect(await page('color')).toMatchObject({ stringOptions: ['amber', 'azure'], context: null, errors: [] });
    expect((await page('color', '--page', '1')).stringOptions).toEqual(['beige', 'black']);
    expect((await page('color', '--query', 'b')).stringOptions).toEqual(['beige', 'black']);
    expect((await page('color', '--query', 'b', '--page', '2')).stringOptions).toEqual([]);
    // author has no useQuery: the search text is not passed, so the result does not change.
    expect((await page('author', '--query', 'zzz')).stringOptions).toEqual(['Atwood', 'Borges']);
    expect(await page('author', '--page', '1', '--prev-context', '{"nextPageToken":1}')).toMatchObject({
      stringOptions: ['Calvino'],
      context: { nextPageToken: null },
    });
    // Values of async options are not checked against the list.
    expect(
      (await run('options-action.mjs', '--prop', 'color=purple', '--prop', 'author=Eco')).report.return_value,
    ).toBe('Eco likes purple');
  });

  it('acme-card-action: propDefinition forms, input values, overrides and $auth', async () => {
    const options = async (...args: string[]) =>
      (await tributary(['options', example('acme-card-action.mjs'), ...args])).stdout;
    expect(await options('card', '--prop', 'board=b2')).toBe('Crash on save\n');
    expect(await options('backup')).toBe('Roadmap  "b1"\nBugs  "b2"\n');
    const validated = await tributaryJson<{ configurable_props: Record<string, unknown>[] }>([
      'validate',
      example('acme-card-action.mjs'),
      '--json',
    ]);
    expect(validated.json.configurable_props).toEqual([
      { name: 'acme', type: 'app', app: 'acme' },
      { name: 'board', type: 'string', label: 'Board', description: 'An Acme board.', remoteOptions: true },
      { name: 'card', type: 'string', label: 'Card', remoteOptions: true },
      {
        name: 'backup',
        type: 'string',
        label: 'Backup board',
        description: 'An Acme board.',
        optional: true,
        remoteOptions: true,
      },
    ]);
    const ran = await run(
      'acme-card-action.mjs',
      '--prop',
      'board=b1',
      '--prop',
      'card=Launch',
      '--prop',
      'backup=b2',
      '--auth',
      'acme={"api_key":"tok_123"}',
    );
    expect(ran.report.return_value).toEqual({
      board: 'b1',
      card: 'Launch',
      backup: 'b2',
      authorization: 'Bearer tok_123',
    });
  });

  it('timer-source: default interval, cron, event override and schedule rules', async () => {
    const before = Math.floor(Date.now() / 1000);
    const interval = await run('timer-source.mjs');
    const fired = interval.report.emits[0];
    expect(fired?.event).toMatchObject({ schedule: 'every 900s' });
    const firedAt = (fired?.event as { firedAt: number }).firedAt;
    expect(firedAt).toBeGreaterThanOrEqual(before);
    expect(fired?.metadata.ts).toBe(firedAt * 1000);
    const cron = await run('timer-source.mjs', '--prop', 'timer={"cron":"0 9 * * 1-5","timezone":"Europe/Paris"}');
    expect(cron.report.emits[0]?.metadata.summary).toBe('tick (cron 0 9 * * 1-5)');
    const given = await run('timer-source.mjs', '--event', '{"timestamp":1700000000,"interval_seconds":900}');
    expect(given.report.emits).toEqual([
      {
        event: { firedAt: 1700000000, schedule: 'every 900s' },
        metadata: { name: 'default', summary: 'tick (every 900s)', ts: 1700000000000 },
      },
    ]);
    for (const timer of [
      '{"cron":"* * * * * *"}',
      '{"intervalSeconds":60,"cron":"0 0 * * *"}',
      '{"intervalSeconds":14}',
      '{"intervalSeconds":15.5}',
    ]) {
      const refused = await run('timer-source.mjs', '--prop', `timer=${timer}`);
      expect(refused.code, timer).toBe(2);
      expect(refused.report.error?.code, timer).toBe('PROP_INVALID');
    }
    expect((await run('timer-source.mjs', '--prop', 'timer={"intervalSeconds":15}')).code).toBe(0);
  });

  it('a timer without a default fires hourly, and an invalid default is rule P6', async () => {
    const hourly = scratchComponent(
      'hourly.mjs',
      "export default { name: 'H', version: '0.1.0', props: { timer: '$.interface.timer' }, async run(e) { this.$emit({ e, timer: this.timer }); } };\n",
    );
    const { json } = await tributaryJson<Report>(['run', hourly, '--json']);
    expect(json.emits[0]?.event).toMatchObject({
      e: { interval_seconds: 3600 },
      timer: { type: '$.interface.timer', intervalSeconds: 3600 },
    });
    const bad = scratchComponent(
      'bad-timer.mjs',
      "export default { name: 'B', version: '0.1.0', props: { timer: { type: '$.interface.timer', default: { intervalSeconds: 5 } } }, async run() {} };\n",
    );
    const refused = await tributaryJson<Report>(['run', bad, '--json']);
    expect(refused.code).toBe(2);
    expect(refused.json.error).toMatchObject({ code: 'COMPONENT_INVALID', rule: 'P6' });
  });

  it('webhook-source through run: --event as given, and the response in the report', async () => {
    const event = { method: 'POST', path: '/orders', headers: { 'x-token': 's3cret' }, body: { id: 7 } };
    const { report } = await run('webhook-source.mjs', '--prop', 'token=s3cret', '--event', JSON.stringify(event));
    expect(report.emits).toHaveLength(1);
    expect(report.emits[0]?.event).toEqual(event);
    expect(report.response).toEqual({
      status: 202,
      headers: { 'x-handled-by': 'docs-webhook', 'content-type': 'application/json' },
      body: '{"accepted":true}',
    });
  });

  it('respond without customResponse is ignored with a warning; a bad status throws RESPOND_INVALID', async () => {
    const plain = scratchComponent(
      'plain-http.mjs',
      "export default { name: 'P', version: '0.1.0', props: { http: '$.interface.http' }, async run() { this.http.respond({ status: 500 }); } };\n",
    );
    const ignored = await tributaryJson<Report>(['run', plain, '--json']);
    expect(ignored.json.response).toBeNull();
    expect(ignored.json.logs).toEqual([expect.objectContaining({ level: 'warn' })]);
    const badStatus = scratchComponent(
      'bad-status.mjs',
      "export default { name: 'S', version: '0.1.0', props: { http: { type: '$.interface.http', customResponse: true } }, async run() { this.http.respond({ status: 99 }); } };\n",
    );
    const thrown = await tributaryJson<Report>(['run', badStatus, '--json']);
    expect(thrown.code).toBe(1);
    expect(thrown.json.error?.code).toBe('RESPOND_INVALID');
  });

  it('counter-source keeps its db in the state directory', async () => {
    const state = path.join(scratch, 'counter-state');
    await run('counter-source.mjs', '--state', state);
    const second = await run('counter-source.mjs', '--state', state);
    expect(second.report.emits[0]).toMatchObject({ event: { count: 2 }, metadata: { summary: 'run 2' } });
    expect(JSON.parse(readFileSync(path.join(state, 'state.json'), 'utf8'))).toMatchObject({
      version: 1,
      deployed: true,
      db: { count: 2 },
      dedupe: null,
    });
    // Without --state every run starts from an empty store.
    expect((await run('counter-source.mjs')).report.emits[0]?.event).toEqual({ count: 1 });
  });

  it('dynamic-action: additionalProps adds a prop for csv only', async () => {
    expect((await run('dynamic-action.mjs', '--prop', 'format=text')).report.return_value).toBe('a b c');
    expect((await run('dynamic-action.mjs', '--prop', 'format=csv')).report.return_value).toBe('a,b,c');
    expect((await run('dynamic-action.mjs', '--prop', 'format=csv', '--prop', 'delimiter=;')).report.return_value).toBe(
      'a;b;c',
    );
    const unknown = await run('dynamic-action.mjs', '--prop', 'format=text', '--prop', 'delimiter=;');
    expect(unknown.code).toBe(2);
    expect(unknown.report.error?.code).toBe('PROP_UNKNOWN');
  });
});

describe.concurrent('methods-and-hooks.md', () => {
  it('methods-action: bound methods, and ConfigurationError logged without a stack', async () => {
    expect((await run('methods-action.mjs', '--prop', 'cents=1250')).report.return_value).toBe('$12.50');
    const { code, report } = await run('methods-action.mjs', '--prop', 'cents=-1');
    expect(code).toBe(1);
    expect(report.error).toEqual({ code: 'CONFIGURATION_ERROR', message: 'The amount must be zero or more' });
    expect(report.logs).toEqual([{ level: 'error', message: 'The amount must be zero or more' }]);
  });

  it('props are read-only on this', async () => {
    const file = scratchComponent(
      'read-only.mjs',
      "export default { name: 'R', version: '0.1.0', type: 'action', props: { n: { type: 'integer' } }, async run() { this.n = 2; } };\n",
    );
    const { code, json } = await tributaryJson<Report>(['run', file, '--prop', 'n=1', '--json']);
    expect(code).toBe(1);
    expect(json.error?.code).toBe('COMPONENT_ERROR');
    expect(json.error?.message).toContain('read-only');
    expect(json.error?.stack).toMatch(/^TypeError/);
  });

  it('hooks-source with run --state: deploy and activate once, then run only', async () => {
    const state = path.join(scratch, 'hooks-state');
    const first = await run('hooks-source.mjs', '--state', state);
    expect(first.report.hooks).toEqual([
      { name: 'deploy', ok: true },
      { name: 'activate', ok: true },
    ]);
    expect(first.report.logs).toEqual([{ level: 'info', message: 'activate: registered hook-1' }]);
    expect(first.report.emits.map((emit) => emit.metadata.summary)).toEqual([
      'historical item 1',
      'historical item 2',
      'delivery',
    ]);
    const stored = JSON.parse(readFileSync(path.join(state, 'state.json'), 'utf8')) as {
      endpointId: string;
      db: Record<string, Json>;
    };
    expect(stored.db).toEqual({
      registrations: 1,
      hookId: 'hook-1',
      endpoint: `http://127.0.0.1:4100/e/${stored.endpointId}`,
    });
    const second = await run('hooks-source.mjs', '--state', state, '--event', '{"body":{"order":1}}');
    expect(second.report.hooks).toEqual([]);
    expect(second.report.logs).toEqual([]);
    expect(second.report.emits).toMatchObject([{ event: { order: 1 }, metadata: { summary: 'delivery' } }]);
  });

  it('a failing deploy hook runs deactivate to clean up, stops the run, writes no state and exits 1', async () => {
    const file = scratchComponent(
      'failing-deploy.mjs',
      "export default { name: 'F', version: '0.1.0', props: { db: '$.service.db' }, hooks: { async deploy() { this.db.set('x', 1); throw new Error('no history'); } }, async run() { this.$emit({ ran: true }); } };\n",
    );
    const state = path.join(scratch, 'failing-deploy-state');
    const { code, json } = await tributaryJson<Report>(['run', file, '--state', state, '--json']);
    expect(code).toBe(1);
    expect(json.hooks).toEqual([
      { name: 'deploy', ok: false },
      { name: 'deactivate', ok: true },
    ]);
    expect(json.emits).toEqual([]);
    expect(json.error?.code).toBe('COMPONENT_ERROR');
    expect(existsSync(path.join(state, 'state.json'))).toBe(false);
  });
});

describe.concurrent('run-and-emit.md', () => {
  it('emit-source orders by ts and fills channel and summary defaults', async () => {
    const { report } = await run('emit-source.mjs');
    expect(report.emits.map((emit) => emit.metadata.id ?? emit.metadata.name)).toEqual([
      'ord-1',
      'ord-2',
      'ord-3',
      'stats',
    ]);
    expect(report.emits[3]?.metadata).toEqual({ name: 'stats', summary: '{"orders":3}', ts: Date.UTC(2024, 0, 4) });
  });

  it('$emit refuses reserved channels and non-JSON payloads, cuts default summaries at 140 characters, and returns a promise', async () => {
    const file = scratchComponent(
      'emit-rules.mjs',
      [
        "export default { name: 'E', version: '0.1.0', async run() {",
        "  console.log(String(this.$emit({ long: 'x'.repeat(200) }) instanceof Promise));",
        "  this.$emit(undefined, { summary: 'nothing' });",
        "  for (const bad of [() => this.$emit({}, { name: '$errors' }), () => this.$emit({ f() {} }), () => this.$emit({}, { ts: { at: 'now' } })]) {",
        '    try { bad(); } catch (error) { console.log(error.code); }',
        '  }',
        '} };',
        '',
      ].join('\n'),
    );
    const { json } = await tributaryJson<Report>(['run', file, '--json']);
    expect(json.logs.map((log) => log.message)).toEqual(['true', 'EMIT_INVALID', 'EMIT_INVALID', 'EMIT_INVALID']);
    expect(json.emits[0]?.metadata.summary).toHaveLength(140);
    expect(json.emits[0]?.metadata.summary.endsWith('…')).toBe(true);
    expect(json.emits[1]).toMatchObject({ event: null, metadata: { summary: 'nothing', name: 'default' } });
  });

  it('dedupe state is kept in the state directory as documented', async () => {
    const final = async (name: string, runs: number): Promise<unknown> => {
      const state = path.join(scratch, `${name}-state`);
      for (let i = 0; i < runs; i += 1) await run(name, '--state', state);
      return (JSON.parse(readFileSync(path.join(state, 'state.json'), 'utf8')) as { dedupe: unknown }).dedupe;
    };
    expect(await final('dedupe-unique.mjs', 2)).toEqual({ strategy: 'unique', ids: ['a', 'b', 'c', 'd'] });
    expect(await final('dedupe-greatest.mjs', 2)).toMatchObject({ strategy: 'greatest' });
    expect(await final('dedupe-last.mjs', 3)).toEqual({ strategy: 'last', last: 'n2' });
  });

  it('unique compares ids as strings; greatest refuses ids that are not numbers', async () => {
    const unique = scratchComponent(
      'unique-strings.mjs',
      "export default { name: 'U', version: '0.1.0', dedupe: 'unique', async run() { this.$emit({ a: 1 }, { id: 1 }); this.$emit({ a: 2 }, { id: '1' }); } };\n",
    );
    const uniqueRun = await tributaryJson<Report>(['run', unique, '--json']);
    expect(uniqueRun.json.emits).toHaveLength(1);
    expect(uniqueRun.json.deduped).toHaveLength(1);
    const greatest = scratchComponent(
      'greatest-abc.mjs',
      "export default { name: 'G', version: '0.1.0', dedupe: 'greatest', async run() { this.$emit({ a: 1 }, { id: '7' }); this.$emit({ a: 2 }, { id: 'abc' }); } };\n",
    );
    const greatestRun = await tributaryJson<Report>(['run', greatest, '--json']);
    expect(greatestRun.code).toBe(1);
    expect(greatestRun.json.error?.code).toBe('EMIT_INVALID');
    expect(greatestRun.json.emits.map((emit) => emit.metadata.id)).toEqual(['7']);
  });

  it('dedupe-missing-id drops the event with an error line, and the run succeeds', async () => {
    const { code, report } = await run('dedupe-missing-id.mjs');
    expect(code).toBe(0);
    expect(report.ok).toBe(true);
    expect(report.emits).toMatchObject([{ event: { n: 2 }, metadata: { id: 'two' } }]);
    expect(report.deduped).toMatchObject([{ event: { n: 1 }, reason: 'no id (dedupe "unique" needs metadata.id)' }]);
    expect(report.logs).toEqual([
      {
        level: 'error',
        message: 'dedupe: event without id dropped (strategy "unique"; pass { id } as the second argument of $emit)',
      },
    ]);
  });

  it('dedupe-long-id throws EMIT_INVALID, keeps the earlier event and exits 1', async () => {
    const { code, report } = await run('dedupe-long-id.mjs');
    expect(code).toBe(1);
    expect(report.error).toEqual({
      code: 'EMIT_INVALID',
      message: '$emit: metadata.id is 65 characters; under dedupe "unique" ids may be at most 64',
    });
    expect(report.emits).toEqual([
      { event: { n: 1 }, metadata: { id: 'one', name: 'default', summary: '{"n":1}', ts: 1 } },
    ]);
    expect(report.logs[0]?.level).toBe('error');
    expect(report.logs[0]?.message).toContain('metadata.id is 65 characters');
    const noDedupe = scratchComponent(
      'long-id-no-dedupe.mjs',
      "export default { name: 'L', version: '0.1.0', async run() { this.$emit({}, { id: 'x'.repeat(200) }); } };\n",
    );
    expect((await tributaryJson<Report>(['run', noDedupe, '--json'])).json.emits).toHaveLength(1);
  });

  it('db-source: JSON copies, delete with undefined, DB_VALUE_INVALID and the 60 KB limit', async () => {
    const { code, report } = await run('db-source.mjs');
    expect(code).toBe(0);
    expect(report.logs.map((log) => log.message)).toEqual([
      'a Date comes back as a string 2024-01-01T00:00:00.000Z',
      'retries stored: 3',
      'after delete: undefined',
      'DB_VALUE_INVALID',
      'DB_SIZE_EXCEEDED',
      'keys kept: 2024-01-01T00:00:00.000Z undefined',
    ]);
  });

  it('db writes survive a run that fails afterwards', async () => {
    const file = scratchComponent(
      'cursor.mjs',
      "export default { name: 'C', version: '0.1.0', props: { db: '$.service.db' }, async run() { const n = (this.db.get('n') ?? 0) + 1; this.db.set('n', n); this.$emit({ n }); if (n === 1) throw new Error('after the write'); } };\n",
    );
    const state = path.join(scratch, 'cursor-state');
    const failed = await tributaryJson<Report>(['run', file, '--state', state, '--json']);
    expect(failed.code).toBe(1);
    expect(failed.json.emits.map((emit) => emit.event)).toEqual([{ n: 1 }]);
    const next = await tributaryJson<Report>(['run', file, '--state', state, '--json']);
    expect(next.json.emits.map((emit) => emit.event)).toEqual([{ n: 2 }]);
  });
});

describe.concurrent('actions.md', () => {
  it('context-action: steps is {}, JIT false, and the deadline follows --timeout', async () => {
    expect((await run('context-action.mjs')).report.return_value).toEqual({
      idIsString: true,
      msAllowed: 30_000,
      JIT: false,
      steps: {},
    });
    expect((await run('context-action.mjs', '--timeout', '5')).report.return_value).toMatchObject({ msAllowed: 5_000 });
  });

  it('sum-action: exports, and $.summary as an alias of the $summary export', async () => {
    const { report } = await run('sum-action.mjs', '--prop', 'numbers=[1,2,3,4]');
    expect(report.return_value).toBe(10);
    expect(report.exports).toEqual({ count: 4, average: 2.5, $summary: 'Added 4 numbers' });
    expect(report.summary).toBe('Added 4 numbers');
  });

  it('respond-action: the first response wins, objects become JSON', async () => {
    const { report } = await run('respond-action.mjs', '--prop', 'name=Ada');
    expect(report.response).toEqual({
      status: 201,
      headers: { 'content-type': 'application/json' },
      body: '{"greeting":"Hi Ada"}',
    });
    expect(report.logs).toEqual([
      { level: 'warn', message: '$.respond was called more than once; only the first response is used' },
    ]);
  });

  it('exit-action: exit with a reason and no return value, or a normal return', async () => {
    const exited = await run('exit-action.mjs');
    expect(exited.code).toBe(0);
    expect(exited.report.exit).toEqual({ reason: 'nothing to do' });
    expect(exited.report.return_value).toBeNull();
    const processed = await run('exit-action.mjs', '--prop', 'items=["a","b"]');
    expect(processed.report.exit).toBeNull();
    expect(processed.report.return_value).toBe('processed 2 items');
  });

  it('a bare $.flow.exit lets the step finish; other $.flow functions are NOT_SUPPORTED', async () => {
    const bare = scratchComponent(
      'bare-exit.mjs',
      "export default { name: 'B', version: '0.1.0', type: 'action', async run({ $ }) { $.flow.exit(); return 'finished'; } };\n",
    );
    const finished = await tributaryJson<Report>(['run', bare, '--json']);
    expect(finished.json.exit).toEqual({ reason: null });
    expect(finished.json.return_value).toBe('finished');
    const delay = scratchComponent(
      'rerun.mjs',
      "export default { name: 'D', version: '0.1.0', type: 'action', async run({ $ }) { $.flow.rerun(1000); } };\n",
    );
    const unsupported = await tributaryJson<Report>(['run', delay, '--json']);
    expect(unsupported.code).toBe(1);
    expect(unsupported.json.error?.code).toBe('NOT_SUPPORTED');
  });

  it('send-action: five recorded sends, and SEND_INVALID for a lower-case method', async () => {
    const { report } = await run('send-action.mjs', '--prop', 'orderId=A-100');
    const order = { id: 'A-100', status: 'shipped' };
    expect(report.sends).toEqual([
      { kind: 'http', config: { method: 'POST', url: 'https://example.com/hooks/orders', data: order } },
      { kind: 'email', config: { subject: 'Order A-100 shipped', text: 'It is on its way.' } },
      { kind: 's3', config: { bucket: 'order-archive', prefix: 'shipped/', payload: order } },
      { kind: 'emit', config: { raw_event: order, channel: 'shipments' } },
      { kind: 'sse', config: { channel: 'orders', payload: order } },
    ]);
    expect(report.logs).toEqual([{ level: 'info', message: 'SEND_INVALID' }]);
    expect(report.return_value).toEqual(order);
  });

  it('actions have no $emit, must return JSON, take no event and default to a 30 s limit', async () => {
    const noEmit = scratchComponent(
      'no-emit.mjs',
      "export default { name: 'N', version: '0.1.0', type: 'action', async run() { return typeof this.$emit; } };\n",
    );
    expect((await tributaryJson<Report>(['run', noEmit, '--json'])).json.return_value).toBe('undefined');
    const returnsFunction = scratchComponent(
      'returns-fn.mjs',
      "export default { name: 'F', version: '0.1.0', type: 'action', async run() { return () => 1; } };\n",
    );
    const notJson = await tributaryJson<Report>(['run', returnsFunction, '--json']);
    expect(notJson.code).toBe(1);
    expect(notJson.json.error?.code).toBe('COMPONENT_ERROR');
    const withEvent = await run('hello-action.mjs', '--prop', 'name=World', '--event', '{}');
    expect(withEvent.code).toBe(2);
    expect(withEvent.report.error?.code).toBe('EVENT_INVALID');
  });
});

describe.concurrent('cli.md', () => {
  it('slow-action times out with TIMEOUT and exit code 1', async () => {
    const { code, report } = await run('slow-action.mjs', '--timeout', '1');
    expect(code).toBe(1);
    expect(report.error).toEqual({ code: 'TIMEOUT', message: 'run did not finish within 1s (TIMEOUT)' });
    expect(report.logs).toEqual([
      { level: 'info', message: 'starting' },
      { level: 'error', message: 'run did not finish within 1s (TIMEOUT)' },
    ]);
  });

  it('invalid-action: validate lists every problem, run refuses it with the first rule', async () => {
    const validated = await tributaryJson<{
      ok: boolean;
      type: unknown;
      errors: { rule: string }[];
      warnings: { rule: string }[];
      configurable_props: unknown;
    }>(['validate', example('invalid-action.mjs'), '--json']);
    expect(validated.code).toBe(2);
    expect(validated.json.ok).toBe(false);
    expect(validated.json.errors.map((issue) => issue.rule)).toEqual(['C9', 'P3']);
    expect(validated.json.warnings.map((issue) => issue.rule)).toEqual(['P5']);
    expect(validated.json.configurable_props).toBeNull();
    const ran = await run('invalid-action.mjs');
    expect(ran.code).toBe(2);
    expect(ran.report).toMatchObject({ ok: false, type: null, error: { code: 'COMPONENT_INVALID', rule: 'C9' } });
  });

  it('validate --json fields, and --publish applies the registry rules', async () => {
    const { code, json } = await tributaryJson<Record<string, unknown>>([
      'validate',
      example('hello-action.mjs'),
      '--json',
    ]);
    expect(code).toBe(0);
    expect(Object.keys(json)).toEqual([
      'ok',
      'file',
      'type',
      'key',
      'name',
      'version',
      'code_hash',
      'errors',
      'warnings',
      'configurable_props',
      'imports',
      'packages',
    ]);
    expect(json).toMatchObject({
      ok: true,
      file: path.join(REPO, EXAMPLES_DIR, 'hello-action.mjs'),
      type: 'action',
      key: 'docs-hello-action',
      version: '0.1.0',
    });
    expect(json['code_hash']).toMatch(/^[0-9a-f]{64}$/);
    const methods = await tributaryJson<{ imports: unknown[]; packages: Record<string, string> }>([
      'validate',
      example('methods-action.mjs'),
      '--json',
    ]);
    expect(methods.json.imports).toEqual([
      { specifier: '@pipedream/platform', name: '@pipedream/platform', range: null, subpath: '' },
    ]);
    expect(Object.keys(methods.json.packages)).toEqual(['@pipedream/platform']);
    expect(methods.json.packages['@pipedream/platform']).toMatch(/^\d+\.\d+\.\d+/);
    const unversioned = scratchComponent(
      'unversioned.mjs',
      "export default { name: 'U', type: 'action', async run() {} };\n",
    );
    expect((await tributary(['validate', unversioned])).code).toBe(0);
    const published = await tributaryJson<{ errors: { rule: string }[] }>([
      'validate',
      unversioned,
      '--publish',
      '--json',
    ]);
    expect(published.code).toBe(2);
    expect(published.json.errors.map((issue) => issue.rule)).toEqual(['C5']);
    const loose = scratchComponent(
      'loose-version.mjs',
      "export default { name: 'L', version: '1.0', type: 'action', async run() {} };\n",
    );
    const looseCheck = await tributaryJson<{ warnings: { rule: string }[] }>(['validate', loose, '--json']);
    expect(looseCheck.code).toBe(0);
    expect(looseCheck.json.warnings.map((issue) => issue.rule)).toEqual(['C6']);
    const loosePublish = await tributaryJson<{ errors: { rule: string }[] }>([
      'validate',
      loose,
      '--publish',
      '--json',
    ]);
    expect(loosePublish.code).toBe(2);
    expect(loosePublish.json.errors.map((issue) => issue.rule)).toEqual(['C6']);
  });

  it('usage errors and unreadable state exit with 2', async () => {
    const noEquals = await tributary(['run', example('hello-action.mjs'), '--prop', 'name']);
    expect(noEquals.code).toBe(2);
    expect(noEquals.stderr).toBe('error USAGE_ERROR: --prop expects NAME=VALUE, got "name"\n');
    const zero = await tributary(['run', example('hello-action.mjs'), '--prop', 'name=World', '--timeout', '0']);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toMatch(/^error USAGE_ERROR: --timeout/);
    const state = path.join(scratch, 'broken-state');
    mkdirSync(state, { recursive: true });
    writeFileSync(path.join(state, 'state.json'), '{ not json');
    const broken = await tributaryJson<Report>(['run', example('counter-source.mjs'), '--state', state, '--json']);
    expect(broken.code).toBe(2);
    expect(broken.json.error?.code).toBe('STATE_INVALID');
    const missing = await tributary(['run', `${EXAMPLES_DIR}/no-such-file.mjs`]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^error FILE_NOT_FOUND: /);
  });

  it('--prop wins over --props, and --auth must be a JSON object', async () => {
    expect((await run('hello-action.mjs', '--props', '{"name":"A"}', '--prop', 'name=B')).report.return_value).toBe(
      'Hello, B!',
    );
    const auth = await tributary([
      'run',
      example('acme-card-action.mjs'),
      '--prop',
      'board=b1',
      '--prop',
      'card=x',
      '--auth',
      'acme=[]',
    ]);
    expect(auth.code).toBe(2);
    expect(auth.stderr).toMatch(/^error USAGE_ERROR: --auth acme must be a JSON object/);
  });

  it('options exits 1 when options() throws, and prints (no options on this page) past the end', async () => {
    const file = scratchComponent(
      'throwing-options.mjs',
      "export default { name: 'T', version: '0.1.0', type: 'action', props: { p: { type: 'string', async options() { throw new Error('api down'); } } }, async run() {} };\n",
    );
    const failed = await tributaryJson<{ errors: string[] }>(['options', file, 'p', '--json']);
    expect(failed.code).toBe(1);
    expect(failed.json.errors).toEqual(['api down']);
    const past = await tributary(['options', example('options-action.mjs'), 'color', '--page', '3']);
    expect(past.stdout).toBe('(no options on this page)\n');
  });
});

describe('npm packages, limits and isolation pages', () => {
  it('npm-action: pins fold into one copy per package, listed by validate', async () => {
    const { code, report } = await run('npm-action.mjs', '--prop', 'wait=1m');
    expect(code).toBe(0);
    expect(report.return_value).toEqual({
      milliseconds: 60_000,
      title: 'Packages Without Package Json',
      doubled: [2, 4, 6],
    });
    const validated = await tributaryJson<{ packages: Record<string, string>; imports: { specifier: string }[] }>([
      'validate',
      example('npm-action.mjs'),
      '--json',
    ]);
    expect(validated.json.packages).toEqual({ lodash: '4.17.21', ms: '2.1.3' });
    expect(validated.json.imports.map((entry) => entry.specifier)).toEqual([
      'ms@2.1.3',
      'lodash@^4.17.0',
      'lodash@4.17.21/fp',
    ]);
  });

  it('oversized-source: PAYLOAD_TOO_LARGE at 6 MB, exit 1, the event before it kept', async () => {
    const { code, report } = await run('oversized-source.mjs');
    expect(code).toBe(1);
    expect(report.error?.code).toBe('PAYLOAD_TOO_LARGE');
    expect(report.emits.map((emit) => emit.metadata.summary)).toEqual(['kept']);
  });

  it('sandbox-probe-action: empty environment, refused files and processes, a writable private tmp', async () => {
    const { code, report, stderr } = await run('sandbox-probe-action.mjs');
    expect(code).toBe(0);
    const seen = report.return_value as Record<string, unknown>;
    expect(seen['readShadow']).toBe('refused (ERR_ACCESS_DENIED)');
    expect(seen['spawnShell']).toBe('refused (ERR_ACCESS_DENIED)');
    expect(seen['writeScratch']).toBe('ok');
    // bubblewrap sets PWD; without it (the CLI then says so on stderr) the worker gets only the three.
    const bubblewrap = !stderr.includes('bubblewrap is off');
    expect(seen['environment']).toEqual(
      bubblewrap ? ['HOME', 'NODE_ENV', 'PWD', 'TMPDIR'] : ['HOME', 'NODE_ENV', 'TMPDIR'],
    );
    const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
    if (isRoot) expect(seen['uid']).toBe(65534);
    // The page shows the bubblewrap case; without it the CLI says which layer is off.
    if (stderr.includes('bubblewrap is off')) expect(stderr).toContain('private-tmp is off');
  });
});

describe.concurrent('component-api.md', () => {
  it('anatomy-source: deploy resets the count, activate logs the schedule, ids dedupe across runs', async () => {
    const state = path.join(scratch, 'anatomy-state');
    const first = await run(
      'anatomy-source.mjs',
      '--state',
      state,
      '--event',
      '{"timestamp":1700000000,"interval_seconds":60}',
    );
    expect(first.code).toBe(0);
    expect(first.report.hooks).toEqual([
      { name: 'deploy', ok: true },
      { name: 'activate', ok: true },
    ]);
    expect(first.report.logs).toEqual([{ level: 'info', message: 'active, every 60s' }]);
    expect(first.report.emits).toEqual([
      {
        event: { count: 1, firedAt: 1700000000 },
        metadata: { id: 1, name: 'default', summary: 'tick 1', ts: expect.any(Number) as number },
      },
    ]);
    const second = await run('anatomy-source.mjs', '--state', state, '--prop', 'label=beat');
    expect(second.report.hooks).toEqual([]);
    expect(second.report.emits.map((emit) => emit.metadata.summary)).toEqual(['beat 2']);
    const stored = JSON.parse(readFileSync(path.join(state, 'state.json'), 'utf8')) as { db: unknown; dedupe: unknown };
    expect(stored.db).toEqual({ count: 2 });
    expect(stored.dedupe).toEqual({ strategy: 'unique', ids: ['1', '2'] });
    const validated = await tributaryJson<{ ok: boolean; configurable_props: { name: string }[] }>([
      'validate',
      example('anatomy-source.mjs'),
      '--json',
    ]);
    expect(validated.json.ok).toBe(true);
    // The db prop is a service: not something the user configures.
    expect(validated.json.configurable_props.map((prop) => prop.name)).toEqual(['timer', 'label']);
  });
});

describe.concurrent('quickstart-source.md', () => {
  it('quickstart-source: responds with the greeting and the number, and counts with --state', async () => {
    const event = JSON.stringify({ method: 'POST', path: '/orders', body: { id: 7 } });
    const once = await run('quickstart-source.mjs', '--event', event);
    expect(once.report.response).toEqual({
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: '{"message":"Thanks!","number":1}',
    });
    expect(once.report.emits).toEqual([
      {
        event: { number: 1, method: 'POST', path: '/orders', body: { id: 7 } },
        metadata: { id: 1, name: 'default', summary: 'Request 1: POST /orders', ts: expect.any(Number) as number },
      },
    ]);
    const state = path.join(scratch, 'quickstart-state');
    await run('quickstart-source.mjs', '--state', state, '--event', event);
    const next = await run('quickstart-source.mjs', '--state', state, '--event', '{"method":"GET","path":"/"}');
    expect(next.report.emits[0]?.event).toEqual({ number: 2, method: 'GET', path: '/', body: null });
    expect(next.report.response?.body).toBe('{"message":"Thanks!","number":2}');
  });

  it('quickstart-source under tributary dev: real requests, numbered answers, one event each', async () => {
    const { cwd } = devWorkspace('quickstart-source.mjs');
    const dev = Dev.start(['dev', `${EXAMPLES_DIR}/quickstart-source.mjs`, '--json', '--port', '0'], cwd);
    const ready = await dev.waitFor((line) => line['type'] === 'ready');
    const endpoint = String(ready['endpoint_url']);
    const posted = await fetch(`${endpoint}/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"id":7}',
    });
    expect(await posted.json()).toEqual({ message: 'Thanks!', number: 1 });
    const got = await fetch(endpoint);
    expect(await got.json()).toEqual({ message: 'Thanks!', number: 2 });
    await dev.waitFor(
      (line) =>
        isResult('run')(line) &&
        (line['emits'] as unknown[]).length === 1 &&
        dev.lines.filter(isResult('run')).length === 2,
    );
    const summaries = dev.lines
      .filter(isResult('run'))
      .flatMap((line) => (line['emits'] as { metadata: { summary: string } }[]).map((emit) => emit.metadata.summary));
    expect(summaries).toEqual(['Request 1: POST /orders', 'Request 2: GET /']);
    expect(await dev.stop()).toBe(0);
  });
});

describe.concurrent('quickstart-action.md', () => {
  it('quickstart-action: title case by default, exports words and a summary, refuses other styles', async () => {
    const { code, report } = await run('quickstart-action.mjs', '--prop', 'text=hello from tributary');
    expect(code).toBe(0);
    expect(report).toMatchObject({
      return_value: 'Hello From Tributary',
      exports: { words: 3, $summary: 'Formatted 3 words as title' },
      summary: 'Formatted 3 words as title',
    });
    expect(
      (await run('quickstart-action.mjs', '--prop', 'text=MiXeD Case', '--prop', 'style=lower')).report.return_value,
    ).toBe('mixed case');
    const refused = await run('quickstart-action.mjs', '--prop', 'text=x', '--prop', 'style=shout');
    expect(refused.code).toBe(2);
    expect(refused.report.error?.code).toBe('PROP_INVALID');
  });
});

describe.concurrent('environment-variables.md and sse.md', () => {
  it('env-action: variables exported in the shell, even Tributary settings, do not reach the component', async () => {
    const result = await tributary(['run', example('env-action.mjs'), '--prop', 'apiKey=sk_test_4242', '--json'], {
      env: { ACME_API_KEY: 'sk_from_the_shell', TRIBUTARY_ADMIN_KEY: 'trb_docs_environment_check' },
    });
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as Report).return_value).toEqual({
      fromEnvironment: null,
      fromProp: 'sk_… (12 characters)',
    });
    const probe = scratchComponent(
      'env-probe.mjs',
      "export default { name: 'E', version: '0.1.0', type: 'action', async run() { return Object.keys(process.env).filter((name) => name.startsWith('TRIBUTARY_') || name.startsWith('ACME_')); } };\n",
    );
    const probed = await tributary(['run', probe, '--json'], { env: { ACME_API_KEY: 'x', TRIBUTARY_ADMIN_KEY: 'y' } });
    expect((JSON.parse(probed.stdout) as Report).return_value).toEqual([]);
  });

  it('sse-client: without a key or a source it prints its usage and exits 2', async () => {
    const client = spawn(process.execPath, [path.join(REPO, example('sse-client.mjs'))], {
      env: { ...process.env, TRIBUTARY_API_KEY: '' },
    });
    let stderr = '';
    client.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => client.on('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toBe('usage: TRIBUTARY_API_KEY=<key> node sse-client.mjs <source id or name>\n');
  });

  it('sse-client: reads lines ended by \\r\\n or a lone \\r, a \\r\\n split across chunks, and resumes after the last id', async () => {
    // An SSE server other than Tributary's, as the SSE format allows it to write: the client must
    // not rely on the `\n` line endings of ours.
    const record = (id: string, n: number) => ({ id, metadata: { summary: `event ${n}` }, event: { n } });
    const resumedFrom: (string | undefined)[] = [];
    const pause = () => new Promise((resolve) => setTimeout(resolve, 50));
    const sse = createServer((request, response) => {
      if (request.url !== '/sources/elsewhere/sse') {
        response.writeHead(404, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { code: 'NOT_FOUND', message: request.url } }));
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const lastEventId = request.headers['last-event-id'];
      resumedFrom.push(typeof lastEventId === 'string' ? lastEventId : undefined);
      void (async () => {
        if (lastEventId === undefined) {
          response.write(': handshake\r\n\r\n');
          await pause();
          // A \r\n whose \n comes in the next chunk.
          response.write(`id: e1\r\ndata: ${JSON.stringify(record('e1', 1))}\r\n\r`);
          await pause();
          response.write('\n');
          await pause();
          // Lone \r line endings, and the data split over two `data:` lines.
          const [head, tail] = JSON.stringify(record('e2', 2)).split(',"metadata"');
          response.write(`id: e2\rdata: ${head},\rdata: "metadata"${tail}\r\r`);
          response.end();
        } else response.write(`id: e3\ndata: ${JSON.stringify(record('e3', 3))}\n\n`);
      })();
    });
    await new Promise<void>((resolve) => sse.listen(0, '127.0.0.1', resolve));
    const client = spawn(process.execPath, [path.join(REPO, example('sse-client.mjs')), 'elsewhere'], {
      env: {
        ...process.env,
        TRIBUTARY_API_URL: `http://127.0.0.1:${(sse.address() as AddressInfo).port}`,
        TRIBUTARY_API_KEY: 'trb_any',
      },
    });
    const out: string[] = [];
    createInterface({ input: client.stdout }).on('line', (line) => out.push(line));
    const exited = new Promise((resolve) => client.on('exit', resolve));
    try {
      await expect.poll(() => out.length).toBe(3);
      expect(out.map((line) => JSON.parse(line) as unknown)).toEqual([
        { id: 'e1', summary: 'event 1', event: { n: 1 } },
        { id: 'e2', summary: 'event 2', event: { n: 2 } },
        { id: 'e3', summary: 'event 3', event: { n: 3 } },
      ]);
      // e3 is sent only to the reconnection, which named the last id the client had seen.
      expect(resumedFrom).toEqual([undefined, 'e2']);
    } finally {
      client.kill();
      await exited;
      sse.closeAllConnections();
      sse.close();
    }
  });
});

describe('lifecycle.md', () => {
  it('lifecycle-source under tributary run: activate registers the endpoint with the service, run reports it', async () => {
    const calls: string[] = [];
    const service = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        calls.push(`${request.method} ${request.url} ${body}`.trim());
        response.writeHead(201, { 'content-type': 'application/json' }).end('{"id":"h1"}');
      });
    });
    await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
    const { port } = service.address() as AddressInfo;
    try {
      const { code, report } = await run(
        'lifecycle-source.mjs',
        '--prop',
        `serviceUrl=http://127.0.0.1:${port}`,
        '--event',
        '{"body":{"n":1}}',
      );
      expect(code).toBe(0);
      expect(report.logs.map((log) => log.message)).toEqual([
        'deploy: first deploy of this source',
        'activate: registered h1',
      ]);
      expect(report.emits).toMatchObject([{ event: { n: 1 }, metadata: { summary: 'delivery to h1' } }]);
      expect(calls).toHaveLength(1);
      expect(calls[0]).toMatch(/^POST \/hooks \{"url":"http:\/\/127\.0\.0\.1:4100\/e\/[0-9a-f]{16}"\}$/);
    } finally {
      service.close();
    }
  });
});

describe('destinations.md and the subscriptions of rest-api.md', () => {
  it('records the sends of the destinations example locally (a server delivers them)', async () => {
    const { code, report } = await run(
      'destinations-action.mjs',
      '--prop',
      'webhookUrl=https://example.com/hooks/orders',
    );
    expect(code).toBe(0);
    expect(report.return_value).toBe('A-100');
    expect(report.sends).toEqual([
      {
        kind: 'http',
        config: {
          method: 'POST',
          url: 'https://example.com/hooks/orders',
          headers: { 'X-Api-Key': 'k-123' },
          data: { id: 'A-100', status: 'shipped' },
        },
      },
      { kind: 'sse', config: { channel: 'orders', payload: { id: 'A-100', status: 'shipped' } } },
    ]);
  });

  it('verifies the sample delivery of fixtures/components/delivery with the signature check', async () => {
    const { verifySignature } = (await import(path.join(REPO, example('verify-webhook-signature.mjs')))) as {
      verifySignature: (header: string, body: string, secret: string, options?: { nowS?: number }) => boolean;
    };
    const sample = JSON.parse(
      readFileSync(path.join(REPO, 'fixtures/components/delivery/verify-signature.fixture.json'), 'utf8'),
    ) as { secret: string; header: string; body: string };
    expect(verifySignature(sample.header, sample.body, sample.secret, { nowS: 1_700_000_060 })).toBe(true);
    expect(verifySignature(sample.header, `${sample.body} `, sample.secret, { nowS: 1_700_000_060 })).toBe(false);
    expect(verifySignature(sample.header, sample.body, 'whsec_other', { nowS: 1_700_000_060 })).toBe(false);
    expect(verifySignature(sample.header, sample.body, sample.secret, { nowS: 1_700_000_000 + 3600 })).toBe(false);
  });
});

describe('workflow examples', () => {
  interface Run {
    status: string;
    exit: { reason: string | null } | null;
    steps: { name: string; status: string; return_value: Json; exports: Record<string, Json> }[];
  }
  const runWelcome = (email: string) =>
    tributaryJson<Run>([
      'workflow',
      'run',
      'fixtures/components/workflows/welcome.workflow.json',
      '--event',
      JSON.stringify({ body: { email } }),
      '--json',
    ]);

  it('welcome and notify: the welcome, its domain export, and the notify step that reads both', async () => {
    example('workflow-welcome-step.mjs');
    example('workflow-notify-step.mjs');
    const { code, json } = await runWelcome('ada@example.com');
    expect(code).toBe(0);
    expect(json.status).toBe('succeeded');
    expect(json.steps.map((step) => [step.name, step.return_value, step.exports])).toEqual([
      ['welcome', 'Welcome, ada@example.com', { domain: 'example.com' }],
      ['notify', { notified: true, version: 1 }, {}],
    ]);
  });

  it('notify ends the run with $.flow.exit for a test address', async () => {
    const { json } = await runWelcome('ada@example.org');
    expect(json.status).toBe('exited');
    expect(json.exit).toEqual({ reason: 'a test address' });
  });
});

describe('coverage', () => {
  it('runs every example file of fixtures/components/docs', () => {
    const files = readdirSync(path.join(REPO, EXAMPLES_DIR));
    expect(files.filter((file) => !exercised.has(file))).toEqual([]);
  });
});
