import { createServer, type IncomingMessage, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES } from './cli-process.js';
import { execFileSync } from 'node:child_process';
import { ADMIN_KEY, KEY, remoteCli, startServer, TerminalProcess, type ServerProcess } from './server-process.js';

// The issue's second test: an app prop on a connected account whose async options (and runs) call
// an HTTP API with the account's token. The API is a local node:http server.
const REMOTE = path.join(FIXTURES, 'remote');
const SOURCE = path.join(REMOTE, 'tracker-source.mjs');
const TOKEN = 'tok_tracker_secret_123';
const scratch = mkdtempSync(path.join(os.tmpdir(), 'tributary-remote-accounts-'));
const cli = remoteCli(path.join(scratch, 'config'));
const seenTokens: string[] = [];
let server: ServerProcess;
let api: Server;
let apiUrl = '';
const hasScript = (() => {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
const terminalEnv = {
  XDG_CONFIG_HOME: path.join(scratch, 'config'),
  TRIBUTARY_API_URL: '',
  TRIBUTARY_API_KEY: '',
  COLUMNS: '100',
};

const PROJECTS = [
  [
    { id: 'p1', name: 'Apollo' },
    { id: 'p2', name: 'Gemini' },
  ],
  [{ id: 'p3', name: 'Mercury' }],
];

function handle(request: IncomingMessage): { status: number; body: unknown } {
  const auth = request.headers.authorization ?? '';
  seenTokens.push(auth);
  if (auth !== `Bearer ${TOKEN}`) return { status: 401, body: { error: 'bad token' } };
  const url = new URL(request.url ?? '/', 'http://localhost');
  if (url.pathname === '/projects') {
    const cursor = Number(url.searchParams.get('cursor') ?? '0');
    return {
      status: 200,
      body: { items: PROJECTS[cursor] ?? [], next: cursor + 1 < PROJECTS.length ? cursor + 1 : null },
    };
  }
  const issues = /^\/projects\/(\w+)\/issues$/.exec(url.pathname);
  if (issues) return { status: 200, body: [{ id: `${issues[1]}-1`, title: `First issue of ${issues[1]}` }] };
  return { status: 404, body: {} };
}

beforeAll(async () => {
  api = createServer((request, response) => {
    const { status, body } = handle(request);
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  const address = api.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  apiUrl = `http://127.0.0.1:${address.port}`;
  server = await startServer({ TRIBUTARY_APPS_FILE: path.join(REMOTE, 'apps.json') });
  const login = await cli(['login', '--api-url', server.base, '--api-key', ADMIN_KEY]);
  if (login.code !== 0) throw new Error(login.stderr);
}, 60_000);

afterAll(async () => {
  await server.stop();
  await new Promise<void>((resolve) => api.close(() => resolve()));
  rmSync(scratch, { recursive: true, force: true });
});

describe.sequential('connected accounts and async options through the CLI', { timeout: 120_000 }, () => {
  let account = '';

  it('accounts create stores the credentials; list shows them without the secret', async () => {
    const created = await cli([
      'accounts',
      'create',
      'tracker',
      '--field',
      `base_url=${apiUrl}`,
      '--field',
      `api_token=${TOKEN}`,
      '--name',
      'Tracker prod',
      '--json',
    ]);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const json = JSON.parse(created.stdout) as {
      id: string;
      app: string;
      name: string;
      fields: Record<string, string>;
    };
    expect(json).toMatchObject({
      app: 'tracker',
      name: 'Tracker prod',
      fields: { base_url: apiUrl, api_token: '[REDACTED]' },
    });
    account = json.id;
    expect(account).toMatch(/^apn_/);

    // Two listings and a refused create: one process each, side by side.
    const [listed, sameInList, unknownApp] = await Promise.all([
      cli(['accounts', 'list']),
      cli(['list', 'accounts', '--json']),
      cli(['accounts', 'create', 'no-such-app', '--field', 'a=b']),
    ]);
    expect(listed.stdout).toMatch(
      new RegExp(
        `^ID\\s+APP\\s+NAME\\s+STATUS\\s+CREATED\\n${account}\\s+tracker\\s+Tracker prod\\s+ok\\s+(just now|\\d+ seconds ago)\\n$`,
      ),
    );
    expect(listed.stdout).not.toContain(TOKEN);
    expect(sameInList.stdout).not.toContain(TOKEN);
    expect((JSON.parse(sameInList.stdout) as { id: string }[]).map((entry) => entry.id)).toEqual([account]);

    expect(unknownApp.code).toBe(1);
    expect(unknownApp.stderr).toContain('no-such-app');
  });

  it("options --remote lists the API's projects page by page, called with the account's token", async () => {
    seenTokens.length = 0;
    const first = await cli(['options', '--remote', SOURCE, 'project', '--prop', `tracker=${account}`]);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toBe('Apollo  "p1"\nGemini  "p2"\nmore: --page 1 --prev-context \'{"nextPageToken":1}\'\n');
    expect(seenTokens).toEqual([`Bearer ${TOKEN}`]);
    const second = await cli([
      'options',
      '--remote',
      SOURCE,
      'project',
      '--prop',
      `tracker=${account}`,
      '--page',
      '1',
      '--prev-context',
      '{"nextPageToken":1}',
      '--json',
    ]);
    expect(JSON.parse(second.stdout)).toEqual({
      options: [{ label: 'Mercury', value: 'p3' }],
      stringOptions: null,
      context: { nextPageToken: null },
      errors: [],
      observations: [],
    });
  });

  it('an account with a wrong token makes options() fail (exit 1) with the API error', async () => {
    const wrong = await cli([
      'accounts',
      'create',
      'tracker',
      '--field',
      `base_url=${apiUrl}`,
      '--field',
      'api_token=nope',
      '--json',
    ]);
    const wrongId = (JSON.parse(wrong.stdout) as { id: string }).id;
    const failed = await cli(['options', '--remote', SOURCE, 'project', '--prop', `tracker=${wrongId}`]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('tracker answered 401');
    expect((await cli(['accounts', 'delete', wrongId])).stdout).toBe(`Deleted account ${wrongId}\n`);
  });

  it.skipIf(!hasScript)(
    'on a terminal: secrets are typed without echo, options are listed page by page, app props pick an account',
    async () => {
      const create = new TerminalProcess(
        ['accounts', 'create', 'tracker', '--field', `base_url=${apiUrl}`, '--name', 'Typed'],
        terminalEnv,
      );
      await create.waitFor(/API token \(api_token\)/);
      await create.type(`${TOKEN}${KEY.enter}`);
      expect(await create.exited).toBe(0);
      expect(create.screen).toMatch(/Created account apn_\w+ \(tracker, Typed\)/);
      expect(create.screen).not.toContain(TOKEN);
      const typed = /Created account (apn_\w+)/.exec(create.screen)?.[1] ?? '';

      const deploy = new TerminalProcess(['deploy', SOURCE, '--name', 'Picked', '--no-follow'], terminalEnv);
      await deploy.waitFor(/Connect a new tracker account…/);
      expect(deploy.screen).toContain(`Typed (${typed})`);
      // Pick the account named Typed wherever the server lists it.
      const accountLines = deploy.screen
        .slice(deploy.screen.lastIndexOf('— tracker account'))
        .split('\n')
        .filter((line) => /\(apn_\w+\)/.test(line));
      const typedAt = accountLines.findIndex((line) => line.includes(typed));
      await deploy.type(KEY.down.repeat(Math.max(0, typedAt)) + KEY.enter);
      await deploy.waitFor(/\(load more…\)/);
      expect(deploy.screen).toMatch(/Apollo[\s\S]*Gemini[\s\S]*\(load more…\)/);
      expect(deploy.screen).not.toContain('Mercury');
      await deploy.type(`${KEY.down}${KEY.down}${KEY.enter}`);
      await deploy.waitFor(/Mercury/);
      await deploy.type(`${KEY.down}${KEY.down}${KEY.enter}`);
      expect(await deploy.exited).toBe(0);
      expect(deploy.screen).toContain('Deploy complete.');
      const described = await cli(['describe', 'picked', '--json']);
      expect(
        (JSON.parse(described.stdout) as { configured_props: Record<string, unknown> }).configured_props,
      ).toMatchObject({
        tracker: { authProvisionId: typed },
        project: 'p3',
      });
      expect((await cli(['delete', 'picked'])).code).toBe(0);
      expect((await cli(['accounts', 'delete', typed])).code).toBe(0);
    },
  );

  it('deploy with the account: the source runs with $auth; deleting the account names the source', async () => {
    const deployed = await cli([
      'deploy',
      SOURCE,
      '--prop',
      `tracker=${account}`,
      '--prop',
      'project=p2',
      '--no-follow',
      '--json',
    ]);
    expect(deployed.stderr).toBe('');
    expect(deployed.code).toBe(0);
    const source = JSON.parse(deployed.stdout) as { id: string; configured_props: Record<string, unknown> };
    expect(source.configured_props['tracker']).toEqual({ authProvisionId: account });
    expect(JSON.stringify(source)).not.toContain(TOKEN);

    seenTokens.length = 0;
    expect((await cli(['run-now', source.id])).code).toBe(0);
    let events = '';
    for (let attempt = 0; attempt < 50 && events === ''; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      events = (await cli(['events', source.id, '-n', '5'])).stdout;
    }
    expect(events).toBe('{"id":"p2-1","title":"First issue of p2"}\n');
    expect(seenTokens).toEqual([`Bearer ${TOKEN}`]);

    // An account of another app is refused for the prop, naming it.
    const acme = await cli(['accounts', 'create', 'acme', '--field', 'api_key=k', '--json']);
    const acmeId = (JSON.parse(acme.stdout) as { id: string }).id;
    const wrongApp = await cli([
      'deploy',
      SOURCE,
      '--prop',
      `tracker=${acmeId}`,
      '--prop',
      'project=p1',
      '--no-follow',
    ]);
    expect(wrongApp.code).toBe(1);
    expect(wrongApp.stderr).toMatch(/^error \w+: .*tracker/);

    const deleted = await cli(['accounts', 'delete', account]);
    expect(deleted.code).toBe(0);
    expect(deleted.stdout).toBe(
      `Deleted account ${account}\nIt was used by 1 source; their app props need another account:\n  ${source.id}  Tracker Issues\n`,
    );
  });
});
