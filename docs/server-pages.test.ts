/**
 * The pages about the server, checked against a real `tributary start` on a temporary data directory:
 * the quickstarts' deploy and publish steps, the SSE streams and the Node.js client of sse.md, the
 * secrets of environment-variables.md, and the hook order of every operation of lifecycle.md (with a
 * real webhook service that the lifecycle example registers with).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EXAMPLES_DIR, REPO, startServer, tributary, type RunningServer } from './doc-test-helpers.js';

// Each test runs the real binary several times, and every run starts worker processes: on a loaded
// 2-core machine that takes minutes, not the 30 s default. (Only a cap: nothing asserts on speed.)
vi.setConfig({ testTimeout: 300_000, hookTimeout: 120_000 });

const scratch = mkdtempSync(path.join(os.tmpdir(), 'tributary-docs-server-'));
const code = (name: string): string => readFileSync(path.join(REPO, EXAMPLES_DIR, name), 'utf8');
let server: RunningServer;

interface Source {
  id: string;
  name_slug: string;
  active: boolean;
  endpoint_url: string | null;
  configured_props: Record<string, unknown>;
}
interface ErrorBody {
  error: { code: string; message: string; details?: Record<string, unknown> };
}
interface EventRecord {
  id: string;
  indexed_at_ms: number;
  event: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

beforeAll(async () => {
  // ACME_API_KEY is in the server's environment: environment-variables.md says components never see it.
  server = await startServer({ dataDir: path.join(scratch, 'data'), env: { ACME_API_KEY: 'sk_server_environment' } });
});

afterAll(async () => {
  await server.stop();
  rmSync(scratch, { recursive: true, force: true });
});

async function deploy(file: string, body: Record<string, unknown> = {}): Promise<Source> {
  const { status, json } = await server.api<{ data: Source } & ErrorBody>('POST', '/v1/sources', {
    component_code: code(file),
    ...body,
  });
  expect(status, JSON.stringify(json)).toBe(200);
  return json.data;
}

/** The events of a source, oldest first, once there are at least `count` of them. */
async function eventsOf(source: string, count: number): Promise<EventRecord[]> {
  // A deadline, not a number of tries: on a loaded machine a run commits seconds after its reply.
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { json } = await server.api<{ data: EventRecord[] }>(
      'GET',
      `/v1/sources/${source}/event_summaries?expand=event&limit=100`,
    );
    if (json.data.length >= count) return json.data.reverse();
    if (Date.now() > deadline) throw new Error(`${source} never had ${count} events`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Runs the CLI against the server, with its own config directory. */
function cli(args: string[], configHome: string) {
  return tributary(args, { env: { XDG_CONFIG_HOME: configHome, TRIBUTARY_API_URL: '', TRIBUTARY_API_KEY: '' } });
}

describe('quickstart-source.md on a server', () => {
  it('login, deploy --no-follow and the endpoint answer as the page shows', async () => {
    const configHome = path.join(scratch, 'config-quickstart');
    const login = await cli(['login', '--api-url', server.base, '--api-key', server.key], configHome);
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toBe(
      `Logged in as admin on ${server.base} (profile default, saved in ${path.join(configHome, 'tributary', 'config')})\n`,
    );
    const deployed = await cli(['deploy', `${EXAMPLES_DIR}/quickstart-source.mjs`, '--no-follow'], configHome);
    expect(deployed.code, deployed.stderr).toBe(0);
    const lines = deployed.stdout.trimEnd().split('\n');
    expect(lines.slice(0, 3)).toEqual(['Deploying...', 'Deploy complete.', 'Source name: new-request']);
    expect(lines[3]).toMatch(/^Source id: dc_\w+$/);
    const endpoint = /^Endpoint: (http:\/\/\S+\/e\/\w+)$/.exec(lines[4] ?? '')?.[1] ?? '';
    expect(endpoint).not.toBe('');

    const posted = await fetch(`${endpoint}/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"id":7}',
    });
    expect(await posted.json()).toEqual({ message: 'Thanks!', number: 1 });
    expect(await (await fetch(endpoint)).json()).toEqual({ message: 'Thanks!', number: 2 });
    const events = await eventsOf('new-request', 2);
    expect(events.map((event) => event.metadata['summary'])).toEqual(['Request 1: POST /orders', 'Request 2: GET /']);
    expect(events[0]?.event).toEqual({ number: 1, method: 'POST', path: '/orders', body: { id: 7 } });

    const listed = await cli(['events', 'new-request', '-n', '10'], configHome);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('"path":"/orders"');
  });

  it('POST /v1/sources with the code deploys the same source under the next free name', async () => {
    const source = await deploy('quickstart-source.mjs');
    expect(source.name_slug).toMatch(/^new-request(-\d+)?$/);
    expect(source.endpoint_url).toMatch(/\/e\/\w+$/);
  });
});

describe('quickstart-action.md on a server', () => {
  it('publish, then run --remote and POST /v1/actions/run give the local result', async () => {
    const configHome = path.join(scratch, 'config-action');
    expect((await cli(['login', '--api-url', server.base, '--api-key', server.key], configHome)).code).toBe(0);
    const published = await cli(['publish', `${EXAMPLES_DIR}/quickstart-action.mjs`], configHome);
    expect(published.code, published.stderr).toBe(0);
    expect(published.stdout).toContain('quickstart-format-text');

    const remote = await cli(
      ['run', '--remote', 'quickstart-format-text', '--prop', 'text=hello from the server', '--json'],
      configHome,
    );
    expect(remote.code, remote.stderr).toBe(0);
    expect(JSON.parse(remote.stdout)).toMatchObject({
      ok: true,
      return_value: 'Hello From The Server',
      exports: { words: 4, $summary: 'Formatted 4 words as title' },
    });
    const viaApi = await server.api<{ data: { return_value: unknown; summary: unknown } }>('POST', '/v1/actions/run', {
      id: 'quickstart-format-text',
      configured_props: { text: 'hello from the server', style: 'upper' },
    });
    expect(viaApi.status).toBe(200);
    expect(viaApi.json.data).toMatchObject({
      return_value: 'HELLO FROM THE SERVER',
      summary: 'Formatted 4 words as upper',
    });

    const changed = code('quickstart-action.mjs').replace('Changes the case', 'Changes the letter case');
    const conflict = await server.api<ErrorBody>('PUT', '/v1/components/quickstart-format-text', {
      component_code: changed,
    });
    expect(conflict.status).toBe(409);
    expect(conflict.json.error.code).toBe('VERSION_CONFLICT');
  });
});

describe('component-api.md on a server', () => {
  it('an app prop configured with a connected account gets its fields as $auth', async () => {
    const account = await server.api<{ data: { id: string; fields: Record<string, string> } }>('POST', '/v1/accounts', {
      app: 'acme',
      fields: { api_key: 'tok_123' },
    });
    expect(account.status).toBe(201);
    expect(account.json.data.id).toMatch(/^apn_/);
    expect(account.json.data.fields['api_key']).toBe('[REDACTED]');
    const configHome = path.join(scratch, 'config-accounts');
    expect((await cli(['login', '--api-url', server.base, '--api-key', server.key], configHome)).code).toBe(0);
    const ran = await cli(
      [
        'run',
        '--remote',
        `${EXAMPLES_DIR}/acme-card-action.mjs`,
        '--prop',
        `acme=${account.json.data.id}`,
        '--prop',
        'board=b1',
        '--prop',
        'card=Launch',
        '--json',
      ],
      configHome,
    );
    expect(ran.code, ran.stderr).toBe(0);
    expect((JSON.parse(ran.stdout) as { return_value: unknown }).return_value).toEqual({
      board: 'b1',
      card: 'Launch',
      backup: null,
      authorization: 'Bearer tok_123',
    });
  });
});

describe('environment-variables.md on a server', () => {
  it('the server environment does not reach components; secrets are [REDACTED] and kept on update', async () => {
    const saved = await server.api<{ data: { id: string } }>('POST', '/v1/components', {
      component_code: code('env-action.mjs'),
    });
    expect(saved.status).toBe(200);
    const ran = await server.api<{ data: { return_value: unknown } }>('POST', '/v1/actions/run', {
      id: saved.json.data.id,
      configured_props: { apiKey: 'sk_test_4242' },
    });
    expect(ran.json.data.return_value).toEqual({ fromEnvironment: null, fromProp: 'sk_… (12 characters)' });

    const webhook = await deploy('webhook-source.mjs', {
      name: 'Secret webhook',
      configured_props: { token: 's3cret' },
    });
    expect(webhook.configured_props['token']).toBe('[REDACTED]');
    const updated = await server.api<{ data: Source }>('PUT', `/v1/sources/${webhook.id}`, {
      configured_props: { token: '[REDACTED]' },
    });
    expect(updated.json.data.configured_props['token']).toBe('[REDACTED]');
    const accepted = await fetch(`${webhook.endpoint_url}/x`, {
      method: 'POST',
      headers: { 'x-token': 's3cret', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(accepted.status).toBe(202);
  });
});

// sse.md ---------------------------------------------------------------------------------------

/** Reads an SSE response frame by frame (frames end with a blank line). */
async function* frames(response: Response): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end;
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      yield buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
    }
  }
}

/** The sse-client example, running, with its stdout lines as they arrive. */
function startClient(source: string, env: Record<string, string>) {
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    [path.join(REPO, EXAMPLES_DIR, 'sse-client.mjs'), source],
    { env: { ...process.env, TRIBUTARY_API_URL: server.base, TRIBUTARY_API_KEY: server.key, ...env } },
  );
  const out: string[] = [];
  let err = '';
  const waiters: (() => void)[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    out.push(line);
    for (const wake of waiters.splice(0)) wake();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
    for (const wake of waiters.splice(0)) wake();
  });
  // 'close', not 'exit': the last lines written before exiting may still be in the pipe at 'exit'.
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const until = async (done: () => boolean): Promise<void> => {
    const deadline = Date.now() + 20_000;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`sse-client: stdout ${out.join('\n')}\nstderr ${err}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  };
  return { child, out, stderr: () => err, exited, until };
}

describe('sse.md', () => {
  let source: Source;
  beforeAll(async () => {
    source = await deploy('quickstart-source.mjs', { name: 'SSE demo' });
  });
  const send = async (pathName: string): Promise<void> => {
    const response = await fetch(`${source.endpoint_url}${pathName}`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(200);
  };

  it('refuses a missing or wrong key with 401 and an unknown source with 404, before the stream starts', async () => {
    const none = await fetch(`${server.base}/sources/${source.id}/sse`);
    expect(none.status).toBe(401);
    expect(((await none.json()) as ErrorBody).error.code).toBe('UNAUTHORIZED');
    const wrong = await fetch(`${server.base}/sources/${source.id}/sse?token=trb_wrong`);
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as ErrorBody).error.message).toBe('the API key is not valid');
    const unknown = await fetch(`${server.base}/sources/no-such-source/sse`, {
      headers: { authorization: `Bearer ${server.key}` },
    });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as ErrorBody).error.code).toBe('NOT_FOUND');
  });

  it('streams a handshake, then one unnamed message per event with the event id and record (?token= and the old path)', async () => {
    for (const url of [`/sources/${source.name_slug}/sse`, `/sse/dc/${source.id}/emits`]) {
      const controller = new AbortController();
      const response = await fetch(`${server.base}${url}?token=${server.key}`, { signal: controller.signal });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      const stream = frames(response);
      expect((await stream.next()).value).toBe(':sse-handshake');
      await send('/raw');
      let frame: string;
      do frame = String((await stream.next()).value);
      while (frame.startsWith(':'));
      const [idLine = '', dataLine = '', ...rest] = frame.split('\n');
      expect(rest).toEqual([]);
      expect(idLine).toMatch(/^id: \d+-\d+$/);
      const record = JSON.parse(dataLine.replace(/^data: /, '')) as EventRecord;
      expect(record.id).toBe(idLine.slice('id: '.length));
      expect(record.event).toMatchObject({ method: 'POST', path: '/raw' });
      expect(record.metadata).toMatchObject({ emitter_id: source.id, emit_id: record.id, name: 'default' });
      expect(Object.keys(record)).toEqual(['id', 'indexed_at_ms', 'event', 'metadata']);
      controller.abort();
    }
  });

  it('the Node.js client prints each event, resumes with LAST_EVENT_ID, and stops on a wrong key', async () => {
    const first = startClient(source.id, {});
    await first.until(() => first.stderr().includes(`connected to ${source.id}`));
    await send('/one');
    await send('/two');
    await first.until(() => first.out.length >= 2);
    const seen = first.out.map((line) => JSON.parse(line) as { id: string; summary: string; event: { path: string } });
    expect(seen.map((entry) => entry.event.path)).toEqual(['/one', '/two']);
    expect(Object.keys(seen[0] ?? {})).toEqual(['id', 'summary', 'event']);
    expect(seen[1]?.summary).toMatch(/^Request \d+: POST \/two$/);
    first.child.kill();
    await first.exited;

    await send('/three'); // while no client listens
    const resumed = startClient(source.id, { LAST_EVENT_ID: seen[1]?.id ?? '' });
    await resumed.until(() => resumed.out.length >= 1);
    await send('/four');
    await resumed.until(() => resumed.out.length >= 2);
    expect(resumed.out.map((line) => (JSON.parse(line) as { event: { path: string } }).event.path)).toEqual([
      '/three',
      '/four',
    ]);
    resumed.child.kill();
    await resumed.exited;

    const refused = startClient(source.id, { TRIBUTARY_API_KEY: 'trb_wrong' });
    expect(await refused.exited).toBe(1);
    expect(refused.stderr()).toBe('401 UNAUTHORIZED: the API key is not valid\n');
  });

  it('the log stream sends log entries framed by start and end lines, and resumes the same way', async () => {
    const controller = new AbortController();
    const response = await fetch(`${server.base}/sources/${source.id}/logs/sse`, {
      headers: { authorization: `Bearer ${server.key}`, 'last-event-id': 'not-in-the-log' },
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    const messages: { id: string; ts: number; level: string; message: string; invocation_id: string | null }[] = [];
    for await (const frame of frames(response)) {
      const data = frame.split('\n').find((line) => line.startsWith('data: '));
      if (data) messages.push(JSON.parse(data.slice('data: '.length)) as (typeof messages)[number]);
      if (messages.some((entry) => entry.message.startsWith('--- run finished in '))) break;
    }
    controller.abort();
    const run = messages.filter(
      (entry) => entry.invocation_id === messages.find((m) => m.message === '--- run started')?.invocation_id,
    );
    expect(run[0]?.message).toBe('--- run started');
    expect(run.at(-1)?.message).toMatch(/^--- run finished in \d+ ms$/);
    expect(Object.keys(messages[0] ?? {})).toEqual(['id', 'ts', 'level', 'message', 'invocation_id']);
    expect(messages.some((entry) => entry.message === '--- deploy started')).toBe(true);
  });
});

// lifecycle.md -------------------------------------------------------------------------------------

/** The webhook service the lifecycle example registers with: POST /hooks and DELETE /hooks/:id. */
interface Service {
  readonly url: string;
  readonly calls: string[];
  /** The endpoint URL of every POST /hooks. */
  readonly registered: string[];
  fail: 'none' | 'post' | 'delete';
  close(): void;
}

async function webhookService(): Promise<Service> {
  const calls: string[] = [];
  const registered: string[] = [];
  let next = 0;
  const state = { fail: 'none' as Service['fail'] };
  const http: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const method = request.method ?? '';
      calls.push(`${method} ${request.url ?? ''}`);
      if ((state.fail === 'post' && method === 'POST') || (state.fail === 'delete' && method === 'DELETE')) {
        response.writeHead(500).end();
        return;
      }
      if (method === 'POST') {
        next += 1;
        registered.push(String((JSON.parse(body) as { url?: unknown }).url));
        response.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ id: `h${next}` }));
      } else response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    registered,
    get fail() {
      return state.fail;
    },
    set fail(value) {
      state.fail = value;
    },
    close: () => http.close(),
  };
}

describe('lifecycle.md', () => {
  let service: Service;
  beforeAll(async () => {
    service = await webhookService();
  });
  afterAll(() => service.close());

  it('saving the same code twice gives the same saved component', async () => {
    const first = await server.api<{ data: { id: string } }>('POST', '/v1/components', {
      component_code: code('lifecycle-source.mjs'),
    });
    const second = await server.api<{ data: { id: string } }>('POST', '/v1/components', {
      component_code: code('lifecycle-source.mjs'),
    });
    expect(first.json.data.id).toMatch(/^sc_/);
    expect(second.json.data.id).toBe(first.json.data.id);
  });

  it('runs the hooks of each operation through the REST API in the documented order', async () => {
    service.calls.length = 0;
    const source = await deploy('lifecycle-source.mjs', { configured_props: { serviceUrl: service.url } });
    expect(source.active).toBe(true);
    expect(service.calls).toEqual(['POST /hooks']);
    const endpoint = source.endpoint_url ?? '';

    const put = (body: Record<string, unknown>) =>
      server.api<{ data: Source } & ErrorBody>('PUT', `/v1/sources/${source.id}`, body);
    const renamed = await put({ name: 'Lifecycle renamed' });
    expect(renamed.json.data.name_slug).toBe('lifecycle-renamed');
    expect(service.calls).toEqual(['POST /hooks']); // a rename runs no hook

    await put({ configured_props: { serviceUrl: service.url } });
    expect(service.calls.slice(1)).toEqual(['DELETE /hooks/h1', 'POST /hooks']);

    const off = await put({ active: false });
    expect(off.json.data.active).toBe(false);
    expect(service.calls.slice(3)).toEqual(['DELETE /hooks/h2']);
    expect((await fetch(endpoint, { method: 'POST', body: '{}' })).status).toBe(404);

    await put({ component_code: code('lifecycle-source.mjs').replace("'0.1.0'", "'0.1.1'") });
    expect(service.calls).toHaveLength(4); // an update of an inactive source runs no hook

    const on = await put({ active: true });
    expect(on.json.data.active).toBe(true);
    expect(on.json.data.endpoint_url).toBe(endpoint);
    expect(service.calls.slice(4)).toEqual(['POST /hooks']);
    expect((await fetch(endpoint, { method: 'POST', body: '{"n":1}' })).status).toBe(200);
    expect(service.registered.slice(-3)).toEqual([endpoint, endpoint, endpoint]);
    const [delivery] = await eventsOf(source.id, 1);
    expect(delivery?.metadata['summary']).toBe('delivery to h3');

    const logs = await server.api<{ data: { message: string }[] }>('GET', `/v1/sources/${source.id}/logs?limit=100`);
    const hookLines = logs.json.data
      .map((entry) => entry.message)
      .reverse()
      .filter((message) => /^(deploy|activate|deactivate):/.test(message));
    expect(hookLines).toEqual([
      'deploy: first deploy of this source',
      'activate: registered h1',
      'deactivate: removed h1',
      'activate: registered h2',
      'deactivate: removed h2',
      'activate: registered h3',
    ]);

    const removed = await server.api('DELETE', `/v1/sources/${source.id}`);
    expect(removed.status).toBe(200);
    expect(service.calls.slice(5)).toEqual(['DELETE /hooks/h3']);
    expect((await server.api('GET', `/v1/sources/${source.id}`)).status).toBe(404);
    expect((await fetch(endpoint, { method: 'POST', body: '{}' })).status).toBe(404);
  });

  it('a failing hook fails the operation with HOOK_FAILED and changes nothing; force deletes anyway', async () => {
    service.fail = 'post';
    const refused = await server.api<ErrorBody>('POST', '/v1/sources', {
      component_code: code('lifecycle-source.mjs'),
      name: 'Never deployed',
      configured_props: { serviceUrl: service.url },
    });
    expect(refused.status).toBe(400);
    expect(refused.json.error.code).toBe('HOOK_FAILED');
    expect(refused.json.error.details).toMatchObject({ hook: 'activate', cause_code: 'COMPONENT_ERROR' });
    expect((await server.api('GET', '/v1/sources/never-deployed')).status).toBe(404);

    service.fail = 'none';
    const source = await deploy('lifecycle-source.mjs', {
      name: 'Stubborn',
      configured_props: { serviceUrl: service.url },
    });
    service.fail = 'delete';
    const stuck = await server.api<ErrorBody>('PUT', `/v1/sources/${source.id}`, { active: false });
    expect(stuck.status).toBe(400);
    expect(stuck.json.error.details).toMatchObject({ hook: 'deactivate' });
    expect((await server.api<{ data: Source }>('GET', `/v1/sources/${source.id}`)).json.data.active).toBe(true);
    const kept = await server.api<ErrorBody>('DELETE', `/v1/sources/${source.id}`);
    expect(kept.json.error.code).toBe('HOOK_FAILED');
    expect((await server.api('GET', `/v1/sources/${source.id}`)).status).toBe(200);
    expect((await server.api('DELETE', `/v1/sources/${source.id}?force=true`)).status).toBe(200);
    expect((await server.api('GET', `/v1/sources/${source.id}`)).status).toBe(404);
    service.fail = 'none';
  });

  it('the CLI commands of the page play the same life', async () => {
    const configHome = path.join(scratch, 'config-lifecycle');
    expect((await cli(['login', '--api-url', server.base, '--api-key', server.key], configHome)).code).toBe(0);
    service.calls.length = 0;
    const file = `${EXAMPLES_DIR}/lifecycle-source.mjs`;
    const steps: [string[], string[]][] = [
      [['deploy', file, '--prop', `serviceUrl=${service.url}`, '--no-follow'], ['POST /hooks']],
      [
        ['update', 'lifecycle', '--code', file],
        ['DELETE /hooks/h5', 'POST /hooks'],
      ],
      [['update', 'lifecycle', '--deactivate'], ['DELETE /hooks/h6']],
      [['update', 'lifecycle', '--activate'], ['POST /hooks']],
      [['delete', 'lifecycle'], ['DELETE /hooks/h7']],
    ];
    for (const [args, calls] of steps) {
      const before = service.calls.length;
      const result = await cli(args, configHome);
      expect(result.code, `${args.join(' ')}\n${result.stdout}${result.stderr}`).toBe(0);
      expect(service.calls.slice(before), args.join(' ')).toEqual(calls);
    }
  });
});
