import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DevProcess, FIXTURES } from './cli-process.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'tributary-dev-test-'));
const running: DevProcess[] = [];
afterEach(() => {
  for (const dev of running.splice(0)) dev.kill();
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function workspace(name: string, files: readonly string[]): string {
  const dir = path.join(scratch, name);
  mkdirSync(dir, { recursive: true });
  for (const file of files) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    copyFileSync(path.join(FIXTURES, 'cli', file), path.join(dir, file));
  }
  return dir;
}

function start(args: readonly string[], cwd: string): DevProcess {
  const dev = DevProcess.start(args, cwd);
  running.push(dev);
  return dev;
}

const isResult = (kind: string, trigger?: string) => (line: Record<string, unknown>) =>
  line['type'] === 'result' &&
  line['kind'] === kind &&
  (trigger === undefined || String(line['trigger']).startsWith(trigger));

function edit(file: string, from: string, to: string): void {
  const text = readFileSync(file, 'utf8');
  if (!text.includes(from)) throw new Error(`${file} does not contain ${from}`);
  writeFileSync(file, text.replace(from, to));
}

describe('tributary dev', () => {
  it('serves the HTTP endpoint, reloads on save keeping the db, survives a broken save and deactivates on Ctrl+C', async () => {
    const dir = workspace('webhook', ['webhook.mjs']);
    const file = path.join(dir, 'webhook.mjs');
    const dev = start(['webhook.mjs', '--port', '0', '--state', 'state'], dir);
    const ready = await dev.waitFor((line) => line['type'] === 'ready');
    const endpoint = String(ready['endpoint_url']);
    expect(endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/e\/[0-9a-f]{16}$/);
    expect(dev.lines.filter((line) => line['type'] === 'result').map((line) => line['kind'])).toEqual([
      'deploy',
      'activate',
    ]);

    const first = await fetch(`${endpoint}/orders?x=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'o1', total: 5 }),
    });
    expect(first.status).toBe(202);
    expect(first.headers.get('x-version')).toBe('1');
    expect(await first.json()).toEqual({ received: { id: 'o1', total: 5 } });
    const run = await dev.waitFor(isResult('run', 'POST /orders'));
    expect(run['emits']).toMatchObject([
      { event: { id: 'o1', total: 5 }, metadata: { id: 'o1', summary: 'POST /orders' } },
    ]);

    edit(file, '"x-version": "1"', '"x-version": "2"');
    const reload = await dev.waitFor((line) => line['type'] === 'reload');
    expect(reload['applied']).toBe(true);
    const deactivateLog = dev.lines.find(
      (line) => line['type'] === 'log' && String(line['message']).startsWith('deactivate'),
    );
    expect(deactivateLog?.['message']).toBe(`deactivate ${endpoint}`);
    const second = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"id":"o1"}',
    });
    expect(second.headers.get('x-version')).toBe('2');
    const dedupedRun = await dev.waitFor((line) => isResult('run')(line) && line !== run);
    expect(dedupedRun['emits']).toEqual([]);
    expect(dedupedRun['deduped']).toHaveLength(1);

    edit(file, 'async run(event) {', 'async run(event) { const = ;');
    const broken = await dev.waitFor((line) => line['type'] === 'error');
    expect(broken['code']).toBe('COMPONENT_SYNTAX_ERROR');
    expect(String(broken['message'])).toContain('still running the previous code');
    const third = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"id":"o2"}',
    });
    expect(third.status).toBe(202);
    expect(third.headers.get('x-version')).toBe('2');

    expect(await dev.interrupt()).toBe(0);
    const stopped = dev.lines.find(isResult('deactivate', 'stop'));
    expect(stopped?.['ok'], JSON.stringify(stopped)).toBe(true);
    expect(dev.lines.at(-1)).toEqual({ type: 'stopped' });
    const state = JSON.parse(readFileSync(path.join(dir, 'state', 'state.json'), 'utf8')) as {
      deployed: boolean;
      db: Record<string, unknown>;
    };
    expect(state.deployed).toBe(true);
    expect(state.db['registered']).toBe(endpoint);
  });

  it('reloads when a file the component imports changes, and a restart runs activate only', async () => {
    const dir = workspace('imports', ['lib/format.mjs']);
    writeFileSync(
      path.join(dir, 'shouter.mjs'),
      [
        'import { shout } from "./lib/format.mjs";',
        'export default {',
        '  name: "Shouter", version: "0.1.0",',
        '  props: { http: "$.interface.http" },',
        '  async run(event) { this.$emit({ said: shout(event.body.word) }); },',
        '};',
        '',
      ].join('\n'),
    );
    const dev = start(['shouter.mjs', '--port', '0', '--state', 'state'], dir);
    const ready = await dev.waitFor((line) => line['type'] === 'ready');
    expect([...(ready['watching'] as string[])].sort()).toEqual([
      path.join(dir, 'lib/format.mjs'),
      path.join(dir, 'shouter.mjs'),
    ]);
    const endpoint = String(ready['endpoint_url']);
    const post = (): Promise<Response> =>
      fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"word":"hi"}' });
    const response = await post();
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('OK');
    expect((await dev.waitFor(isResult('run')))['emits']).toMatchObject([{ event: { said: 'HI!' } }]);

    edit(path.join(dir, 'lib/format.mjs'), '`${text.toUpperCase()}!`', '`${text.toUpperCase()}!!!`');
    expect((await dev.waitFor((line) => line['type'] === 'reload'))['applied']).toBe(true);
    await post();
    const runs = (): Record<string, unknown>[] => dev.lines.filter(isResult('run'));
    await dev.waitFor(() => runs().length >= 2);
    expect(runs()[1]?.['emits']).toMatchObject([{ event: { said: 'HI!!!' } }]);
    expect(await dev.interrupt()).toBe(0);

    const again = start(['shouter.mjs', '--port', '0', '--state', 'state'], dir);
    await again.waitFor((line) => line['type'] === 'ready');
    expect(again.lines.filter((line) => line['type'] === 'result').map((line) => line['kind'])).toEqual(['activate']);
    expect(await again.interrupt()).toBe(0);
  });

  it('a first start whose activate fails cleans up, answers 404 and stays undeployed; the next save deploys', async () => {
    const dir = mkdtempSync(path.join(scratch, 'refused-'));
    const file = path.join(dir, 'refuse-activate.mjs');
    copyFileSync(path.join(FIXTURES, 'lifecycle/refuse-activate.mjs'), file);
    const dev = start(['refuse-activate.mjs', '--port', '0', '--state', 'state', '--prop', 'refuseVersion=1'], dir);
    const ready = await dev.waitFor((line) => line['type'] === 'ready');
    expect(dev.lines.filter((line) => line['type'] === 'result').map((line) => [line['kind'], line['ok']])).toEqual([
      ['deploy', true],
      ['activate', false],
      ['deactivate', true],
    ]);
    const error = dev.lines.find((line) => line['type'] === 'error');
    expect(error?.['code']).toBe('HOOK_FAILED');
    expect(String(error?.['message'])).toContain(
      'the activate hook failed: COMPONENT_ERROR: activate of version 1 refused',
    );
    const endpoint = String(ready['endpoint_url']);
    expect((await fetch(endpoint, { method: 'POST', body: '{}' })).status).toBe(404);
    expect(existsSync(path.join(dir, 'state', 'state.json'))).toBe(false);

    edit(file, 'const VERSION = "1";', 'const VERSION = "2";');
    expect((await dev.waitFor((line) => line['type'] === 'reload'))['applied']).toBe(true);
    expect((await fetch(endpoint, { method: 'POST', body: '{}' })).status).toBe(200);
    const run = await dev.waitFor(isResult('run'));
    // A deploy from scratch: nothing the failed first deploy wrote was kept.
    expect(run['emits']).toMatchObject([
      { event: { version: '2', order: ['deploy v2', 'activate v2'], registration: 'v2#2' } },
    ]);
    expect(await dev.interrupt()).toBe(0);
  });

  it('answers 404 off the endpoint path, 413 over 512 KB and CORS preflight', async () => {
    const dir = workspace('limits', ['webhook.mjs']);
    const dev = start(['webhook.mjs', '--port', '0'], dir);
    const endpoint = String((await dev.waitFor((line) => line['type'] === 'ready'))['endpoint_url']);
    const base = new URL(endpoint).origin;
    expect((await fetch(`${base}/e/not-this-one`)).status).toBe(404);
    const big = await fetch(endpoint, { method: 'POST', body: 'x'.repeat(512 * 1024 + 1) });
    expect(big.status).toBe(413);
    const preflight = await fetch(endpoint, { method: 'OPTIONS' });
    expect(preflight.status).toBe(200);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(dev.lines.filter(isResult('run'))).toEqual([]);
    expect(await dev.interrupt()).toBe(0);
  });

  it('fires a timer source on its schedule', async () => {
    const dir = workspace('ticker', ['ticker.mjs']);
    const dev = start(['ticker.mjs'], dir);
    const ready = await dev.waitFor((line) => line['type'] === 'ready');
    expect(ready['timer']).toBe('every 15s');
    expect(ready['endpoint_url']).toBeNull();
    const tick = await dev.waitFor(isResult('run', 'timer every 15s'), 25_000);
    const emitted = (tick['emits'] as { event: { interval: number; at: number } }[])[0];
    expect(emitted?.event.interval).toBe(15);
    // Epoch seconds of about now (not milliseconds, not 0); a minute leaves a loaded machine room.
    expect(Math.abs((emitted?.event.at ?? 0) - Date.now() / 1000)).toBeLessThan(60);
    expect(await dev.interrupt()).toBe(0);
  }, 40_000);

  it('refuses an action with exit code 2', async () => {
    const dir = workspace('action', ['hello.mjs']);
    const dev = start(['hello.mjs', '--prop', 'name=x'], dir);
    const line = await dev.waitFor((entry) => entry['ok'] === false);
    expect((line['error'] as { code: string }).code).toBe('USAGE_ERROR');
  });
});
