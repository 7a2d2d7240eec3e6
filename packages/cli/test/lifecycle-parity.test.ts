/**
 * The same fixture through the server and through `tributary dev` / `tributary run` must run the
 * same hooks in the same order, from the same state, and roll back to the same place: both sides
 * use the runtime's lifecycle module, and this test fails if either stops doing so.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { logMessages, startHarness, waitFor, type Harness } from '../../server/test/server-harness.js';
import { DevProcess, FIXTURES, tributaryJson } from './cli-process.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'tributary-parity-test-'));
const running: DevProcess[] = [];
let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterEach(() => {
  for (const dev of running.splice(0)) dev.kill();
});
afterAll(async () => {
  await h?.close({ remove: true });
  rmSync(scratch, { recursive: true, force: true });
});

/** What the fixtures' run() emits: the hooks recorded in db and the live registration. */
interface Recorded {
  version: string;
  order: string[];
  registration: string | null;
}

const code = (name: string, version = '1'): string =>
  readFileSync(path.join(FIXTURES, 'lifecycle', name), 'utf8').replace(
    'const VERSION = "1";',
    `const VERSION = "${version}";`,
  );

const HOOK_LINE = /^(deploy|activate|deactivate) v\d+$/;

/** Deploys on the server, updates to version 2, and reads what the source recorded. */
async function throughServer(
  name: string,
  props: Record<string, string>,
): Promise<{ update: { status: number; hook: unknown }; recorded: Recorded; hookLogs: string[] }> {
  const deployed = await h.request('POST', '/v1/sources', {
    body: { component_code: code(name), configured_props: props },
  });
  expect(deployed.status).toBe(200);
  const source = deployed.body.data;
  const updated = await h.request('PUT', `/v1/sources/${source.id}`, { body: { component_code: code(name, '2') } });
  const delivered = await fetch(`${h.base}${h.endpoint(source.endpoint_url)}`, { method: 'POST', body: '{}' });
  expect(delivered.status).toBe(200);
  const [latest] = await waitFor(async () => {
    const list = await h.request('GET', `/v1/sources/${source.id}/event_summaries?limit=1&expand=event`);
    return list.body.data.length > 0 ? list.body.data : undefined;
  }, 'the delivery');
  return {
    update: { status: updated.status, hook: updated.body.error?.details?.hook ?? null },
    recorded: latest.event as Recorded,
    hookLogs: (await logMessages(h, source.id)).filter((line) => HOOK_LINE.test(line)),
  };
}

/** Starts `tributary dev` on a fresh state, saves version 2, and reads what the source recorded. */
async function throughDev(
  name: string,
  props: Record<string, string>,
): Promise<{ update: { applied: unknown; hook: unknown }; recorded: Recorded; hookLogs: string[] }> {
  const dir = mkdtempSync(path.join(scratch, 'dev-'));
  const file = path.join(dir, name);
  writeFileSync(file, code(name));
  const propFlags = Object.entries(props).flatMap(([prop, value]) => ['--prop', `${prop}=${value}`]);
  const dev = DevProcess.start([name, '--port', '0', '--state', 'state', ...propFlags], dir);
  running.push(dev);
  const ready = await dev.waitFor((line) => line['type'] === 'ready');
  writeFileSync(file, code(name, '2'));
  const reload = await dev.waitFor((line) => line['type'] === 'reload');
  const error = dev.lines.find((line) => line['type'] === 'error');
  const delivered = await fetch(String(ready['endpoint_url']), { method: 'POST', body: '{}' });
  expect(delivered.status).toBe(200);
  const run = await dev.waitFor((line) => line['type'] === 'result' && line['kind'] === 'run');
  const emits = run['emits'] as { event: Recorded }[];
  expect(await dev.interrupt()).toBe(0);
  return {
    update: {
      applied: reload['applied'],
      hook: error ? (/^the (\w+) hook failed/.exec(String(error['message']))?.[1] ?? null) : null,
    },
    recorded: emits[0]?.event as Recorded,
    hookLogs: dev.lines
      .filter((line) => line['type'] === 'log' && HOOK_LINE.test(String(line['message'])))
      .map((line) => String(line['message'])),
  };
}

describe('one lifecycle on the server and in tributary dev', () => {
  it('deploy, then an update with new code: the same hooks, in the same order, from the same state', async () => {
    const [server, dev] = await Promise.all([throughServer('hook-order.mjs', {}), throughDev('hook-order.mjs', {})]);
    const expected: Recorded = {
      version: '2',
      order: ['deploy v1', 'activate v1', 'deactivate v1', 'activate v2'],
      registration: 'v2#4',
    };
    expect(server.update).toEqual({ status: 200, hook: null });
    expect(dev.update).toEqual({ applied: true, hook: null });
    expect(server.recorded).toEqual(expected);
    expect(dev.recorded).toEqual(expected);
    expect(dev.hookLogs.slice(0, 4)).toEqual(server.hookLogs);
  });

  it('an update whose activate fails rolls back to the same code and the same stored state', async () => {
    const props = { refuseVersion: '2' };
    const [server, dev] = await Promise.all([
      throughServer('refuse-activate.mjs', props),
      throughDev('refuse-activate.mjs', props),
    ]);
    const expected: Recorded = {
      version: '1',
      order: ['deploy v1', 'activate v1', 'deactivate v1', 'activate v1'],
      registration: 'v1#4',
    };
    expect(server.update).toEqual({ status: 400, hook: 'activate' });
    expect(dev.update).toEqual({ applied: false, hook: 'activate' });
    expect(server.recorded).toEqual(expected);
    expect(dev.recorded).toEqual(expected);
    const hooks = ['deploy v1', 'activate v1', 'deactivate v1', 'activate v2', 'activate v1'];
    expect(server.hookLogs).toEqual(hooks);
    expect(dev.hookLogs.slice(0, 5)).toEqual(hooks);
  });
});

describe('one lifecycle on the server and in tributary run', () => {
  it('a fresh --state runs deploy then activate, and a failing activate cleans up with deactivate, as a server deploy does', async () => {
    const state = path.join(scratch, 'run-state');
    const ran = await tributaryJson<{ hooks: { name: string; ok: boolean }[]; emits: { event: Recorded }[] }>([
      'run',
      path.join(FIXTURES, 'lifecycle/hook-order.mjs'),
      '--state',
      state,
      '--json',
    ]);
    expect(ran.code).toBe(0);
    expect(ran.json.hooks).toEqual([
      { name: 'deploy', ok: true },
      { name: 'activate', ok: true },
    ]);
    const deployed = await h.request('POST', '/v1/sources', { body: { component_code: code('hook-order.mjs') } });
    const delivered = await fetch(`${h.base}${h.endpoint(deployed.body.data.endpoint_url)}`, {
      method: 'POST',
      body: '{}',
    });
    expect(delivered.status).toBe(200);
    const [latest] = await waitFor(async () => {
      const list = await h.request('GET', `/v1/sources/${deployed.body.data.id}/event_summaries?expand=event`);
      return list.body.data.length > 0 ? list.body.data : undefined;
    }, 'the delivery');
    expect(ran.json.emits[0]?.event).toEqual(latest.event);

    const refused = await tributaryJson<{ hooks: { name: string; ok: boolean }[] }>([
      'run',
      path.join(FIXTURES, 'lifecycle/refuse-hook.mjs'),
      '--prop',
      'refuse=activate',
      '--json',
    ]);
    expect(refused.code).toBe(1);
    expect(refused.json.hooks).toEqual([
      { name: 'deploy', ok: true },
      { name: 'activate', ok: false },
      { name: 'deactivate', ok: true },
    ]);
    const onServer = await h.request('POST', '/v1/sources', {
      body: { component_code: code('refuse-hook.mjs'), configured_props: { refuse: 'activate' } },
    });
    expect(onServer.status).toBe(400);
    expect(onServer.body.error).toMatchObject({ code: 'HOOK_FAILED', details: { hook: 'activate' } });
  });
});
