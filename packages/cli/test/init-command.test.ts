import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tributary, tributaryJson } from './cli-process.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'tributary-init-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Report {
  ok: boolean;
  type: string;
  emits: { event: Record<string, unknown> }[];
  return_value: unknown;
  response: { status: number } | null;
  logs: { message: string }[];
}

describe('tributary init', () => {
  it('init source --http --timer --db scaffolds a source that validates and runs', async () => {
    const created = await tributary(['init', 'source', 'New Webhook', '--http', '--timer', '--db'], { cwd: scratch });
    expect(created.code).toBe(0);
    expect(created.stdout).toBe(`created ${path.join('new-webhook', 'new-webhook.mjs')}\n`);
    const file = path.join(scratch, 'new-webhook', 'new-webhook.mjs');
    const text = readFileSync(file, 'utf8');
    expect(text).toContain("key: 'new-webhook'");
    expect(text).toContain("name: 'New Webhook'");
    expect(text).toContain("'$.interface.http'");
    expect(text).toContain("'$.interface.timer'");
    expect(text).toContain("db: '$.service.db'");

    const validated = await tributaryJson<{ ok: boolean; errors: unknown[]; warnings: unknown[] }>([
      'validate',
      file,
      '--publish',
      '--json',
    ]);
    expect(validated.json).toMatchObject({ ok: true, errors: [], warnings: [] });
    const state = path.join(scratch, 'state');
    const first = await tributaryJson<Report>([
      'run',
      file,
      '--state',
      state,
      '--event',
      '{"method":"POST","path":"/","body":{"a":1}}',
      '--json',
    ]);
    expect(first.code).toBe(0);
    expect(first.json.emits.map((emit) => emit.event)).toEqual([{ body: { a: 1 }, count: 1 }]);
    expect(first.json.response?.status).toBe(200);
    expect(first.json.logs.map((log) => log.message)).toContain('deployed');
    const second = await tributaryJson<Report>([
      'run',
      file,
      '--state',
      state,
      '--event',
      '{"method":"POST","path":"/","body":{}}',
      '--json',
    ]);
    expect(second.json.emits.map((emit) => emit.event)).toEqual([{ body: {}, count: 2 }]);
  });

  it('init source without flags emits on every run; init action greets', async () => {
    expect((await tributary(['init', 'source', 'plain_source'], { cwd: scratch })).code).toBe(0);
    const source = await tributaryJson<Report>([
      'run',
      path.join(scratch, 'plain_source', 'plain_source.mjs'),
      '--json',
    ]);
    expect(source.json.ok).toBe(true);
    expect(source.json.emits[0]?.event).toMatchObject({ count: 1 });

    const action = await tributaryJson<{ ok: boolean; key: string; files: string[] }>(
      ['init', 'action', 'Send Greeting', '--json'],
      { cwd: scratch },
    );
    expect(action.json).toEqual({
      ok: true,
      kind: 'action',
      key: 'send-greeting',
      files: [path.join('send-greeting', 'send-greeting.mjs')],
    });
    const file = path.join(scratch, 'send-greeting', 'send-greeting.mjs');
    const validated = await tributaryJson<{ ok: boolean; warnings: unknown[] }>([
      'validate',
      file,
      '--publish',
      '--json',
    ]);
    expect(validated.json).toMatchObject({ ok: true, warnings: [] });
    const ran = await tributaryJson<Report>(['run', file, '--prop', 'name=Tributary', '--json']);
    expect(ran.json.return_value).toBe('Hello, Tributary!');
    // Its first run, with no props at all, greets the default and warns about nothing.
    const first = await tributaryJson<Report & { warnings: unknown[] }>(['run', file, '--json']);
    expect(first.json.return_value).toBe('Hello, World!');
    expect(first.json.warnings).toEqual([]);
  });

  it('init app writes the app file and an example action that uses it', async () => {
    const created = await tributary(['init', 'app', 'acme_crm'], { cwd: scratch });
    expect(created.code).toBe(0);
    const appFile = path.join(scratch, 'acme_crm', 'acme_crm.app.mjs');
    const actionFile = path.join(scratch, 'acme_crm', 'actions', 'get-acme_crm-item', 'get-acme_crm-item.mjs');
    expect(existsSync(appFile)).toBe(true);
    expect(readFileSync(appFile, 'utf8')).toContain("app: 'acme_crm'");
    expect((await tributary(['validate', actionFile, '--publish'])).code).toBe(0);
    const options = await tributary(['options', actionFile, 'item', '--auth', 'acme_crm={"api_key":"k"}']);
    expect(options.stdout).toBe('First item  "item-1"\n');
    const ran = await tributaryJson<Report>([
      'run',
      actionFile,
      '--prop',
      'item=item-1',
      '--auth',
      'acme_crm={"api_key":"k"}',
      '--json',
    ]);
    expect(ran.json.return_value).toEqual({ item: 'item-1', authorized: true });
  });

  it('refuses an existing folder, an unknown kind and flags on actions (exit 2)', async () => {
    const again = await tributary(['init', 'action', 'Send Greeting'], { cwd: scratch });
    expect(again.code).toBe(2);
    expect(again.stderr).toBe('error NAME_CONFLICT: send-greeting already exists; pick another name or --dir\n');
    const kind = await tributary(['init', 'workflow', 'x'], { cwd: scratch });
    expect(kind.stderr).toBe('error USAGE_ERROR: init what? "workflow" is not one of source, action, app\n');
    const flags = await tributary(['init', 'action', 'y', '--http'], { cwd: scratch });
    expect(flags.code).toBe(2);
    expect(flags.stderr).toBe('error USAGE_ERROR: --http, --timer and --db are for sources\n');
  });
});
