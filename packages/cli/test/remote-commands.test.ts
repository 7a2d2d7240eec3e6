import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, REPO, tributary } from './cli-process.js';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import {
  ADMIN_KEY,
  CliProcess,
  closedPort,
  KEY,
  remoteCli,
  startServer,
  TerminalProcess,
  type ServerProcess,
} from './server-process.js';

/** better-sqlite3 (a dependency of the engine), to alter the server's database from the test. */
const openSqlite = (() => {
  const require = createRequire(path.join(REPO, 'packages/engine/package.json'));
  const Database = require('better-sqlite3') as new (file: string) => {
    prepare(sql: string): { run(): unknown };
    close(): void;
  };
  return (file: string) => new Database(file);
})();

// The "done means": the real binary against a real `tributary start` on a temporary data dir.
const REMOTE = path.join(FIXTURES, 'remote');
const scratch = mkdtempSync(path.join(os.tmpdir(), 'tributary-remote-cli-'));
const configHome = path.join(scratch, 'config');
const cli = remoteCli(configHome);
const processes: CliProcess[] = [];
let server: ServerProcess;
const hasScript = (() => {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

beforeAll(async () => {
  server = await startServer();
}, 60_000);

afterAll(async () => {
  for (const child of processes) child.kill();
  await server.stop();
  rmSync(scratch, { recursive: true, force: true });
});

function follow(args: readonly string[]): CliProcess {
  const child = new CliProcess(args, {
    XDG_CONFIG_HOME: configHome,
    TRIBUTARY_API_URL: '',
    TRIBUTARY_API_KEY: '',
    NO_COLOR: '1',
  });
  processes.push(child);
  return child;
}

async function post(url: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: await response.json() };
}

function lineValue(stdout: string, label: string): string {
  const line = stdout.split('\n').find((entry) => entry.startsWith(`${label}: `));
  if (line === undefined) throw new Error(`no "${label}:" line in:\n${stdout}`);
  return line.slice(label.length + 2);
}

describe.sequential('tributary CLI against a server', { timeout: 120_000 }, () => {
  let endpoint = '';
  let sourceId = '';

  it('login checks the key, stores the profile in a 0600 INI file, and whoami/logout use it', async () => {
    const refused = await cli(['login', '--api-url', server.base, '--api-key', 'trb_wrong_key_00000000000']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error UNAUTHORIZED: /);
    expect(existsSync(path.join(configHome, 'tributary', 'config'))).toBe(false);

    const login = await cli(['login', '--api-url', `${server.base}/v1/`, '--api-key', ADMIN_KEY]);
    expect(login.stderr).toBe('');
    expect(login.code).toBe(0);
    expect(login.stdout).toMatch(/^Logged in as admin on http:\/\/127\.0\.0\.1:\d+ \(profile default, saved in /);
    const file = path.join(configHome, 'tributary', 'config');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toBe(`[default]\napi_url = ${server.base}\napi_key = ${ADMIN_KEY}\n`);

    const staging = await cli(['login', '-p', 'staging', '--api-url', server.base, '--api-key', ADMIN_KEY, '--json']);
    expect(JSON.parse(staging.stdout)).toMatchObject({
      ok: true,
      profile: 'staging',
      api_url: server.base,
      user: { username: 'admin' },
    });
    expect(readFileSync(file, 'utf8')).toContain('[staging]');

    const whoami = await cli(['whoami']);
    expect(whoami.stdout).toBe(`admin on ${server.base} (profile default)\n`);
    const loggedOut = await cli(['logout', '-p', 'staging']);
    expect(loggedOut.stdout).toBe('Logged out of profile staging\n');
    const afterLogout = await cli(['whoami', '-p', 'staging']);
    expect(afterLogout.code).toBe(1);
    expect(afterLogout.stderr).toMatch(
      /^error UNAUTHORIZED: no API key for profile "staging": run tributary login -p staging/,
    );

    if (hasScript) {
      // On a terminal the key is asked for, and never echoed.
      const typed = new TerminalProcess(['login', '-p', 'typed', '--api-url', server.base], {
        XDG_CONFIG_HOME: configHome,
        TRIBUTARY_API_URL: '',
        TRIBUTARY_API_KEY: '',
        COLUMNS: '100',
      });
      await typed.waitFor(/API key for/);
      await typed.type(`${ADMIN_KEY}${KEY.enter}`);
      expect(await typed.exited).toBe(0);
      expect(typed.screen).toContain('Logged in as admin');
      expect(typed.screen).not.toContain(ADMIN_KEY);
      expect(readFileSync(file, 'utf8')).toContain(`[typed]\napi_url = ${server.base}\napi_key = ${ADMIN_KEY}\n`);
    }

    // Scripts need no config file at all: the variables are enough.
    const scripted = await tributary(['whoami', '--json'], {
      env: {
        XDG_CONFIG_HOME: path.join(scratch, 'empty-config'),
        TRIBUTARY_API_URL: server.base,
        TRIBUTARY_API_KEY: ADMIN_KEY,
      },
    });
    expect(scripted.code).toBe(0);
    expect(JSON.parse(scripted.stdout)).toMatchObject({ id: 'u_local', username: 'admin', api_url: server.base });
  });

  it('deploy FILE bundles relative imports, takes --prop, prints the source name and endpoint', async () => {
    const deployed = await cli([
      'deploy',
      path.join(REMOTE, 'webhook-source.mjs'),
      '--prop',
      'greeting=hi',
      '--no-follow',
    ]);
    expect(deployed.stderr).toBe('');
    expect(deployed.code).toBe(0);
    const lines = deployed.stdout.trimEnd().split('\n');
    expect(lines.slice(0, 3)).toEqual(['Deploying...', 'Deploy complete.', 'Source name: remote-webhook']);
    sourceId = lineValue(deployed.stdout, 'Source id');
    endpoint = lineValue(deployed.stdout, 'Endpoint');
    expect(sourceId).toMatch(/^dc_/);
    expect(endpoint).toMatch(new RegExp(`^${server.base}/e/\\w+$`));

    const reply = await post(endpoint, { name: 'Ann', id: 1 });
    expect(reply).toEqual({ status: 200, json: { greeting: 'hi', text: 'Hello, Ann!' } });

    // The uploaded module holds the imported file's code: the server never saw greeting.mjs.
    const code = await cli(['describe', 'remote-webhook', '--code']);
    expect(code.stdout).toContain('function greet(name)');
    expect(code.stdout).not.toContain("from './greeting.mjs'");
    expect(code.stdout).not.toContain(REMOTE);
  });

  it('events -n, logs, describe and list show the source', async () => {
    await post(endpoint, { name: 'Bob', id: 2 });
    let events = await cli(['events', 'remote-webhook', '-n', '2']);
    for (let attempt = 0; attempt < 50 && events.stdout.trimEnd().split('\n').length < 2; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      events = await cli(['events', 'remote-webhook', '-n', '2']);
    }
    expect(events.code).toBe(0);
    // Newest last, one JSON payload per line, as pd events prints them.
    expect(events.stdout).toBe('{"text":"Hello, Ann!","greeting":"hi"}\n{"text":"Hello, Bob!","greeting":"hi"}\n');
    // Read-only commands: one process each, side by side.
    const [last, logs, described, listed, json] = await Promise.all([
      cli(['events', sourceId, '-n', '1', '--json']),
      cli(['logs', 'remote-webhook']),
      cli(['describe', 'remote-webhook']),
      cli(['list', 'sources']),
      cli(['list', 'so', '--json']),
    ]);
    expect(JSON.parse(last.stdout)).toMatchObject({
      event: { text: 'Hello, Bob!' },
      metadata: { id: '2', summary: 'Hello, Bob!' },
    });

    expect(logs.code).toBe(0);
    expect(logs.stdout).toMatch(/^\d\d:\d\d:\d\d request for \/$/m);
    expect(logs.stdout).toContain('--- deploy started');

    expect(described.stdout.split('\n').slice(0, 3)).toEqual([
      `id: ${sourceId}`,
      'name: remote-webhook',
      `endpoint: ${endpoint}`,
    ]);
    expect(described.stdout).toContain('  greeting: "hi"');

    const [header, row] = listed.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^ID\s+NAME\s+COMPONENT\s+STATE\s+UPDATED\s+ENDPOINT$/);
    expect(row).toMatch(
      new RegExp(
        `^${sourceId}\\s+remote-webhook\\s+remote-webhook-source\\s+active\\s+(just now|\\d+ seconds? ago|\\d+ minutes? ago)\\s+${endpoint}$`,
      ),
    );
    // Columns line up: each header starts where its cells start.
    expect(row?.indexOf('remote-webhook')).toBe(header?.indexOf('NAME'));
    expect((JSON.parse(json.stdout) as { id: string }[]).map((source) => source.id)).toEqual([sourceId]);
  });

  it('update changes props, name and active state, and prints the source', async () => {
    const updated = await cli(['update', 'remote-webhook', '--prop', 'greeting=hello', '--name', 'Greeter']);
    expect(updated.code).toBe(0);
    expect(updated.stdout.split('\n').slice(0, 2)).toEqual([`id: ${sourceId}`, 'name: greeter']);
    expect(updated.stdout).toContain('  greeting: "hello"');
    expect((await post(endpoint, { name: 'Cy', id: 3 })).json).toEqual({ greeting: 'hello', text: 'Hello, Cy!' });

    const inactive = await cli(['update', 'greeter', '--deactivate', '--json']);
    expect(JSON.parse(inactive.stdout)).toMatchObject({ id: sourceId, active: false });
    const active = await cli(['update', sourceId, '--active', 'true', '--json']);
    expect(JSON.parse(active.stdout)).toMatchObject({ active: true });
    // --code swaps the code (bundled again) and keeps id, endpoint and props.
    const variant = path.join(scratch, 'variant');
    cpSync(REMOTE, variant, { recursive: true });
    writeFileSync(
      path.join(variant, 'greeting.mjs'),
      'export function greet(name) {\n  return `Hi there, ${name}!`;\n}\n',
    );
    const recoded = await cli(['update', 'greeter', '--code', path.join(variant, 'webhook-source.mjs'), '--json']);
    expect(recoded.code).toBe(0);
    expect(JSON.parse(recoded.stdout)).toMatchObject({
      id: sourceId,
      endpoint_url: endpoint,
      configured_props: { greeting: 'hello' },
    });
    expect((await post(endpoint, { name: 'Cy', id: 31 })).json).toEqual({ greeting: 'hello', text: 'Hi there, Cy!' });
    expect((await cli(['update', 'greeter', '--code', path.join(REMOTE, 'webhook-source.mjs')])).code).toBe(0);
    expect((await post(endpoint, { name: 'Cy', id: 32 })).json).toEqual({ greeting: 'hello', text: 'Hello, Cy!' });

    const nothing = await cli(['update', 'greeter']);
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toMatch(/^error USAGE_ERROR: nothing to update/);
  });

  it('deploy follows the event stream until Ctrl+C', async () => {
    const child = follow(['events', 'greeter', '-f']);
    // -f alone prints only what arrives once it is connected: post until the first one shows up.
    let posted = 0;
    while (child.lines.length === 0) {
      posted += 1;
      await post(endpoint, { name: `Dee${posted}`, id: 400 + posted });
      await child.waitFor(() => true, 1000).catch(() => undefined);
      if (posted > 60) throw new Error(`events -f printed nothing; stderr: ${child.stderr.join('')}`);
    }
    await post(endpoint, { name: 'Last', id: 499 });
    await child.waitFor((line) => line.includes('Last'));
    expect(await child.interrupt()).toBe(0);
    // Events posted before it connected are not printed, nothing twice, none of the earlier ones.
    expect(child.lines.at(-1)).toBe('{"text":"Hello, Last!","greeting":"hello"}');
    const names = child.lines.map((line) => (JSON.parse(line) as { text: string }).text);
    expect(new Set(names).size).toBe(names.length);
    expect(names.every((text) => /^Hello, (Dee\d+|Last)!$/.test(text))).toBe(true);

    // logs -f prints the recent entries, then new ones as they come.
    const logs = follow(['logs', 'greeter', '-f']);
    await logs.waitFor((line) => line.includes('--- deploy started'));
    let tries = 0;
    while (!logs.lines.some((line) => line.includes('request for /followed-logs'))) {
      tries += 1;
      if (tries > 30) throw new Error(`logs -f printed no new entry:\n${logs.lines.join('\n')}`);
      await post(`${endpoint}/followed-logs`, { name: 'Log', id: 600 + tries });
      await logs.waitFor((line) => line.includes('request for /followed-logs'), 1000).catch(() => undefined);
    }
    expect(await logs.interrupt()).toBe(0);

    const deploy = follow(['deploy', path.join(REMOTE, 'webhook-source.mjs'), '--name', 'Followed']);
    await deploy.waitFor((line) => line === 'Press Ctrl + C to terminate.');
    const followedEndpoint = lineValue(deploy.lines.join('\n'), 'Endpoint');
    expect(deploy.lines).toContain('Source name: followed');
    expect(deploy.lines.find((line) => line.startsWith('Listening for new events'))).toMatch(
      new RegExp(`^Listening for new events on the SSE stream for this source: ${server.base}/sources/dc_\\w+/sse$`),
    );
    await post(followedEndpoint, { name: 'Eve', id: 5 });
    await deploy.waitFor((line) => line.includes('Eve'));
    expect(await deploy.interrupt()).toBe(0);
    expect((await cli(['delete', 'followed'])).code).toBe(0);
  });

  it('dev --dc attaches a local file to the deployed source and updates it on every save', async () => {
    const work = path.join(scratch, 'dev');
    cpSync(REMOTE, work, { recursive: true });
    const dev = follow(['dev', '--dc', 'greeter', path.join(work, 'webhook-source.mjs')]);
    await dev.waitFor((line) => line === 'Ready for updates!');
    expect(dev.lines.filter((line) => line.startsWith('watch:add'))).toHaveLength(2);
    expect(dev.lines).toContain(`Attached to deployed component: ${server.base}/sources/${sourceId}/configuration`);

    writeFileSync(path.join(work, 'greeting.mjs'), 'export function greet(name) {\n  return `Howdy, ${name}!`;\n}\n');
    await dev.waitFor((line) => line === 'Update complete.');
    // Same source: same id, endpoint and props; new code.
    expect((await post(endpoint, { name: 'Fay', id: 6 })).json).toEqual({ greeting: 'hello', text: 'Howdy, Fay!' });
    await dev.waitFor((line) => line.includes('"Howdy, Fay!"'));
    await dev.waitFor((line) => /request for \/$/.test(line));

    // A save that does not load is reported; the deployed code keeps running.
    writeFileSync(path.join(work, 'greeting.mjs'), 'export function greet(name) {\n  return `Oops ${name;\n}\n');
    await dev.waitForStderr(/the deployed code keeps running/);
    expect(dev.stderr.join('')).toMatch(/error COMPONENT_SYNTAX_ERROR: .*greeting\.mjs:2:\d+/);
    expect((await post(endpoint, { name: 'Gus', id: 7 })).json).toEqual({ greeting: 'hello', text: 'Howdy, Gus!' });
    expect(await dev.interrupt()).toBe(0);
  });

  it('publish, then deploy KEY; unpublish; a different code under the same version is refused (C7)', async () => {
    const published = await cli(['publish', path.join(REMOTE, 'webhook-source.mjs')]);
    expect(published.code).toBe(0);
    expect(published.stdout).toMatch(
      /^sc_\w+\s+Remote Webhook\s+0\.1\.0\s+(just now|\d+ seconds? ago|\d+ minutes? ago)\s+remote-webhook-source\nPublished remote-webhook-source 0\.1\.0 to the registry of http:\/\/127\.0\.0\.1:\d+; use it with: tributary deploy remote-webhook-source\n$/,
    );

    const byKey = await cli([
      'deploy',
      'remote-webhook-source',
      '--props',
      '{"greeting":"hi"}',
      '--name',
      'From Key',
      '--no-follow',
      '--json',
    ]);
    expect(byKey.code).toBe(0);
    const source = JSON.parse(byKey.stdout) as {
      id: string;
      name_slug: string;
      component_key: string;
      endpoint_url: string;
    };
    expect(source).toMatchObject({ name_slug: 'from-key', component_key: 'remote-webhook-source' });
    expect((await post(source.endpoint_url, { name: 'Hal', id: 8 })).json).toEqual({
      greeting: 'hi',
      text: 'Hello, Hal!',
    });

    const changed = path.join(scratch, 'changed-webhook.mjs');
    writeFileSync(
      changed,
      readFileSync(path.join(REMOTE, 'webhook-source.mjs'), 'utf8')
        .replace('./greeting.mjs', path.join(REMOTE, 'greeting.mjs'))
        .replace('request for', 'req'),
    );
    // A refused publish, a listing and a deploy refused before any request change nothing: side by side.
    const [conflict, components, noTerminal] = await Promise.all([
      cli(['publish', changed]),
      cli(['list', 'components']),
      cli(['deploy']),
    ]);
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toMatch(
      /^error VERSION_CONFLICT: "remote-webhook-source" is already published at version 0\.1\.0 with different code; bump the version/,
    );

    expect(components.stdout).toMatch(/^ID\s+NAME\s+VERSION\s+UPDATED\s+KEY$/m);
    expect(components.stdout).toMatch(/remote-webhook-source$/m);

    if (hasScript) {
      // deploy without arguments, on a terminal: pick from the registry, then answer the prop prompts.
      const picked = new TerminalProcess(['deploy', '--name', 'Picked', '--no-follow'], {
        XDG_CONFIG_HOME: configHome,
        TRIBUTARY_API_URL: '',
        TRIBUTARY_API_KEY: '',
        COLUMNS: '100',
      });
      await picked.waitFor(/Source to deploy/);
      expect(picked.screen).toContain('remote-webhook-source  Remote Webhook 0.1.0');
      await picked.type(KEY.enter);
      await picked.waitFor(/Greeting/);
      await picked.type(`${KEY.down}${KEY.enter}`);
      await picked.waitFor(/Limit/);
      await picked.type(`3${KEY.enter}`);
      expect(await picked.exited).toBe(0);
      expect(picked.screen).toContain('Source name: picked');
      const pickedSource = JSON.parse((await cli(['describe', 'picked', '--json'])).stdout) as {
        configured_props: Record<string, unknown>;
      };
      expect(pickedSource.configured_props).toMatchObject({ greeting: 'hi', limit: 3 });
      expect((await cli(['delete', 'picked'])).code).toBe(0);
    }
    expect(noTerminal.code).toBe(1);
    expect(noTerminal.stderr).toMatch(/^error USAGE_ERROR: deploy what\?/);

    expect((await cli(['unpublish', 'component', 'remote-webhook-source'])).stdout).toBe(
      'Unpublished remote-webhook-source\n',
    );
    const gone = await cli(['deploy', 'remote-webhook-source', '--no-follow']);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/^error NOT_FOUND: /);
    expect((await cli(['delete', source.id])).stdout).toBe(`Deleted ${source.id}\n`);
  });

  it('list components shows each component once, at its newest saved version; --all shows every version', async () => {
    const ticker = path.join(scratch, 'ticker.mjs');
    const code = readFileSync(path.join(FIXTURES, 'cli', 'ticker.mjs'), 'utf8');
    const deployed: string[] = [];
    for (const version of ['0.1.0', '0.2.0']) {
      writeFileSync(ticker, code.replace('version: "0.1.0"', `version: "${version}"`));
      const run = await cli(['deploy', ticker, '--name', `ticker ${version}`, '--no-follow', '--json']);
      expect(run.code).toBe(0);
      deployed.push((JSON.parse(run.stdout) as { id: string }).id);
    }
    const rows = (stdout: string) => stdout.split('\n').filter((line) => line.includes('cli-ticker'));
    const [latest, all, jsonList] = await Promise.all([
      cli(['list', 'components']),
      cli(['list', 'components', '--all']),
      cli(['list', 'components', '--json']),
    ]);
    expect(rows(latest.stdout)).toHaveLength(1);
    expect(rows(latest.stdout)[0]).toMatch(/^sc_\w+\s+Ticker\s+0\.2\.0\s+/);
    expect(latest.stdout).toMatch(/^\d+ older saved versions? not shown; --all lists every one$/m);
    expect(rows(all.stdout).map((line) => /\s(0\.\d\.0)\s/.exec(line)?.[1])).toEqual(['0.2.0', '0.1.0']);
    const json = JSON.parse(jsonList.stdout) as { key: string; version: string }[];
    expect(json.filter((component) => component.key === 'cli-ticker').map((component) => component.version)).toEqual([
      '0.2.0',
    ]);
    for (const deleted of await Promise.all(deployed.map((id) => cli(['delete', id])))) expect(deleted.code).toBe(0);
  });

  it('run --remote prints the same report as the local run', async () => {
    const file = path.join(FIXTURES, 'docs', 'hello-action.mjs');
    const [local, remote, human, local2] = await Promise.all([
      tributary(['run', file, '--prop', 'name=World', '--json']),
      cli(['run', '--remote', file, '--prop', 'name=World', '--json']),
      cli(['run', '--remote', file, '--prop', 'name=World']),
      cli(['run', '--remote', file, '--state', 'x']),
    ]);
    expect(remote.code).toBe(0);
    expect(JSON.parse(remote.stdout)).toEqual(JSON.parse(local.stdout));
    expect(human.stdout).toBe(
      'Hello Action (action) ok\n  logs\n    Hello, World!\n  summary  Greeted World\n  return   "Hello, World!"\n',
    );
    expect(local2.code).toBe(1);
    expect(local2.stderr).toMatch(/^error USAGE_ERROR: --state is for local runs/);
  });

  it("run --remote of a bundled file names the author's files and lines in the stack, never a server path", async () => {
    const run = await cli(['run', '--remote', path.join(REMOTE, 'throws-in-helper.mjs'), '--json']);
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as { error: { code: string; stack: string } };
    expect(report.error.code).toBe('COMPONENT_ERROR');
    expect(report.error.stack.split('\n').slice(1)).toEqual([
      '    at fail (lib/fail.mjs:2:9)',
      '    at Object.run (throws-in-helper.mjs:9:5)',
    ]);
  });

  it('deploy of a file importing npm packages shows the server installing them, on stderr', async () => {
    const run = await cli(['deploy', path.join(REMOTE, 'pinned-package.mjs'), '--no-follow', '--json']);
    expect(run.code).toBe(0);
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe('npm installing ms@2.1.3 …');
    expect(lines[1]).toMatch(/^npm installed ms@2\.1\.3 in \d+\.\d s$/);
    const source = JSON.parse(run.stdout) as { id: string };
    // The same packages again come from the server's cache: nothing to wait for, no lines.
    const again = await cli(['deploy', path.join(REMOTE, 'pinned-package.mjs'), '--name', 'again', '--no-follow']);
    expect(again.code).toBe(0);
    expect(again.stderr).toBe('');
    const deleted = await Promise.all([cli(['delete', source.id]), cli(['delete', 'again'])]);
    expect(deleted.map((result) => result.code)).toEqual([0, 0]);
  });

  it('run --remote says how each send was delivered', async () => {
    const file = path.join(FIXTURES, 'delivery', 'send-sse.mjs');
    const [human, local] = await Promise.all([cli(['run', '--remote', file]), tributary(['run', file])]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(
      /^ {2}send {5}\$\.send\.sse \{"channel":"orders","payload":\{"order":42,"status":"shipped"\}\} \(dlv_\w+ delivered after 1 attempt\)$/m,
    );
    expect(local.stdout).toContain('(recorded, not delivered)');
  });

  it('run-now queues an invocation with the given event', async () => {
    const queued = await cli([
      'run-now',
      'greeter',
      '--event',
      '{"path":"/manual","body":{"name":"Ivy","id":9}}',
      '--json',
    ]);
    expect(queued.code).toBe(0);
    expect(JSON.parse(queued.stdout)).toMatchObject({
      ok: true,
      source_id: sourceId,
      invocation_id: expect.stringMatching(/^inv_/) as unknown,
    });
    let events = '';
    for (let attempt = 0; attempt < 50 && !events.includes('Ivy'); attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      events = (await cli(['events', 'greeter', '-n', '1'])).stdout;
    }
    expect(events).toBe('{"text":"Howdy, Ivy!","greeting":"hello"}\n');
  });

  it('dead-letters list, retry and delete an invocation the platform failed to run', async () => {
    // A trigger made on a connection of the test's own makes the server's commits fail in SQLite.
    const sqlite = openSqlite(path.join(server.scratch ?? '', 'data', 'tributary.db'));
    sqlite
      .prepare("CREATE TRIGGER refuse_logs BEFORE INSERT ON logs BEGIN SELECT RAISE(ABORT, 'disk full'); END")
      .run();
    let letters: { id: string; source_id: string; attempts: number; last_error: string }[] = [];
    try {
      expect(
        (await cli(['run-now', 'greeter', '--event', '{"path":"/dead","body":{"name":"Dee","id":10}}'])).code,
      ).toBe(0);
      // Three attempts, 1 s and 2 s apart, then a dead letter.
      for (let attempt = 0; attempt < 100 && letters.length === 0; attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        const listed = await cli(['dead-letters', 'list', '--json']);
        expect(listed.code).toBe(0);
        letters = JSON.parse(listed.stdout) as typeof letters;
      }
    } finally {
      sqlite.prepare('DROP TRIGGER refuse_logs').run();
      sqlite.close();
    }
    expect(letters).toEqual([
      expect.objectContaining({ source_id: sourceId, attempts: 3, last_error: expect.stringContaining('disk full') }),
    ]);
    const id = letters[0]?.id ?? '';

    const table = await cli(['dead-letters', 'list', '--source', 'greeter']);
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+SOURCE\s+TRIGGER\s+ATTEMPTS\s+FAILED\s+LAST ERROR$/);
    expect(table.stdout).toContain(id);

    const retried = await cli(['dead-letters', 'retry', id]);
    expect([retried.code, retried.stdout]).toEqual([0, `Queued ${id} again\n`]);
    let events = '';
    for (let attempt = 0; attempt < 50 && !events.includes('Dee'); attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      events = (await cli(['events', 'greeter', '-n', '1'])).stdout;
    }
    expect(events).toContain('Howdy, Dee!');
    expect((await cli(['dead-letters', 'list'])).stdout).toBe('No dead letters.\n');

    const [missing, unknownSource] = await Promise.all([
      cli(['dead-letters', 'delete', id, '--json']),
      cli(['dead-letters', 'list', '--source', 'no-such-source']),
    ]);
    expect(missing.code).toBe(1);
    expect(missing.stdout + missing.stderr).toContain('NOT_FOUND');
    expect(unknownSource.code).toBe(1);
    expect(unknownSource.stderr).toContain('query.source_id');
  });

  it('exit codes: 1 for a refused prop, usage or an ambiguous name; 2 for an unreachable server', async () => {
    // Each of these is refused and changes nothing: one process each, side by side.
    const port = await closedPort();
    const [badProp, badPropJson, twoBad, unreachable, usage, local] = await Promise.all([
      cli(['deploy', path.join(REMOTE, 'webhook-source.mjs'), '--prop', 'limit=99', '--no-follow']),
      cli(['deploy', path.join(REMOTE, 'webhook-source.mjs'), '--prop', 'limit=99', '--no-follow', '--json']),
      cli([
        'deploy',
        path.join(REMOTE, 'webhook-source.mjs'),
        '--prop',
        'limit=99',
        '--prop',
        'greeting=howdy',
        '--no-follow',
      ]),
      cli(['list', 'sources', '--api-url', `http://127.0.0.1:${port}`]),
      cli(['events']),
      tributary(['run']),
    ]);
    expect(badProp.code).toBe(1);
    expect(badProp.stderr).toBe('error PROP_INVALID: prop "limit" must be <= 10, got 99\n');
    expect(JSON.parse(badPropJson.stdout)).toMatchObject({ ok: false, error: { code: 'PROP_INVALID' } });
    expect(twoBad.code).toBe(1);
    expect(twoBad.stderr).toBe(
      [
        'error PROP_INVALID: 2 props are not valid',
        '  - prop "greeting" must be one of "hello", "hi", got "howdy"',
        '  - prop "limit" must be <= 10, got 99',
        '',
      ].join('\n'),
    );

    expect(unreachable.code).toBe(2);
    expect(unreachable.stderr).toMatch(
      new RegExp(
        `^error SERVER_UNREACHABLE: cannot reach the Tributary server at http://127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\)`,
      ),
    );

    expect(usage.code).toBe(1);
    expect(local.code).toBe(2);

    await cli(['deploy', path.join(REMOTE, 'webhook-source.mjs'), '--name', 'Twin', '--no-follow']);
    await cli(['deploy', path.join(REMOTE, 'webhook-source.mjs'), '--name', 'twin!', '--no-follow']);
    const [byName, sources, missing] = await Promise.all([
      cli(['describe', 'Twin']),
      cli(['list', 'sources', '--json']),
      cli(['describe', 'no-such-source']),
    ]);
    expect(byName.code).toBe(0);
    const slugs = (JSON.parse(sources.stdout) as { name_slug: string; name: string }[]).filter((source) =>
      source.name_slug.startsWith('twin'),
    );
    expect(slugs.map((source) => source.name_slug).sort()).toEqual(['twin', 'twin-2']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error NOT_FOUND: no source with id, slug or name "no-such-source"/);
  });

  it('delete removes the source; describing it afterwards is NOT_FOUND', async () => {
    const deleted = await cli(['delete', 'greeter']);
    expect(deleted.stdout).toBe(`Deleted ${sourceId}\n`);
    const after = await cli(['describe', sourceId]);
    expect(after.code).toBe(1);
    expect(after.stderr).toMatch(/^error NOT_FOUND: /);
    expect((await fetch(endpoint, { method: 'POST' })).status).toBe(404);
  });
});
