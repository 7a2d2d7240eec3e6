import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { REPO, tributary } from './cli-process.js';
import { killStartedProcesses, startProcess, type StartedProcess } from './start-process.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'tributary-start-test-'));
// With bubblewrap and a root server, workers run as uid 65534 and must be able to enter the cache.
chmodSync(scratch, 0o755);
const cacheDir = path.join(scratch, 'cache');
afterEach(killStartedProcesses);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const start = (dataDir: string, env: Record<string, string> = {}): Promise<StartedProcess> =>
  startProcess(dataDir, { TRIBUTARY_CACHE_DIR: cacheDir, ...env });

describe('tributary start', () => {
  it('creates the data directory, prints an admin key once, answers /healthz, and stops cleanly on SIGTERM', async () => {
    const dataDir = path.join(scratch, 'first');
    const first = await start(dataDir);
    const keyLine = first.lines.find((line) => line.startsWith('Admin API key'));
    const key = /(trb_\S+)/.exec(keyLine ?? '')?.[1] ?? '';
    expect(key).toMatch(/^trb_[0-9A-Za-z]{48}$/);
    expect(existsSync(path.join(dataDir, 'tributary.db'))).toBe(true);
    expect(statSync(path.join(dataDir, 'master.key')).mode & 0o777).toBe(0o600);
    expect(await (await fetch(`${first.base}/healthz`)).json()).toEqual({ status: 'ok' });
    // The ready line names where a person goes next: the web app and the docs.
    const ready = first.lines.find((line) => line.includes(' ready: ')) ?? '';
    expect(ready).toContain(`web app ${first.base}/,`);
    expect(ready).toContain(`docs ${first.base}/docs,`);
    const me = await fetch(`${first.base}/v1/users/me`, { headers: { authorization: `Bearer ${key}` } });
    expect(me.status).toBe(200);
    expect((await fetch(`${first.base}/v1/users/me`)).status).toBe(401);
    first.child.kill('SIGTERM');
    expect(await first.exit).toBe(0);
    expect(first.lines.some((line) => line.includes('SIGTERM: stopping'))).toBe(true);

    const second = await start(dataDir);
    expect(second.lines.some((line) => line.startsWith('Admin API key'))).toBe(false);
    const again = await fetch(`${second.base}/v1/users/me`, { headers: { authorization: `Bearer ${key}` } });
    expect(again.status).toBe(200);
    second.child.kill('SIGINT');
    expect(await second.exit).toBe(0);
  });

  it('with --port 0 publishes endpoint URLs under the port it really listens on', async () => {
    const key = 'trb_port_zero_key_0123456789';
    const started = await start(path.join(scratch, 'port-zero'), { TRIBUTARY_ADMIN_KEY: key });
    const code = readFileSync(path.join(REPO, 'fixtures/components/server/http-capture.mjs'), 'utf8');
    const deployed = await fetch(`${started.base}/v1/sources`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ component_code: code }),
    });
    const body = (await deployed.json()) as { data: { endpoint_url: string } };
    expect(deployed.status, JSON.stringify(body)).toBe(200);
    const { data } = body;
    expect(new URL(data.endpoint_url).port).toBe(new URL(started.base).port);
    expect(new URL(started.base).port).not.toBe('0');
    expect((await fetch(data.endpoint_url, { method: 'POST', body: 'hi' })).status).toBe(200);
    started.child.kill('SIGTERM');
    expect(await started.exit).toBe(0);
  });

  it('takes the admin key from TRIBUTARY_ADMIN_KEY without printing one', async () => {
    const dataDir = path.join(scratch, 'keyed');
    const key = 'trb_automation_key_0123456789';
    const started = await start(dataDir, { TRIBUTARY_ADMIN_KEY: key });
    expect(started.lines.some((line) => line.startsWith('Admin API key'))).toBe(false);
    const me = await fetch(`${started.base}/v1/users/me`, { headers: { authorization: `Bearer ${key}` } });
    expect(await me.json()).toEqual({ data: { id: 'u_local', username: 'admin', email: null } });
    started.child.kill('SIGTERM');
    expect(await started.exit).toBe(0);
  });

  it('refuses an invalid configuration with one line naming it and exit code 2', async () => {
    const result = await tributary(['start', '--port', 'nope', '--data-dir', path.join(scratch, 'bad')]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/USAGE_ERROR: invalid configuration: port: /);
  });

  it('refuses a busy port with one line naming it and how to choose another, creating nothing', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as AddressInfo;
    const dataDir = path.join(scratch, 'busy');
    try {
      const result = await tributary(['start', '--port', String(port), '--data-dir', dataDir]);
      expect(result.code).toBe(2);
      expect(result.stderr.trim().split('\n')).toEqual([
        `error USAGE_ERROR: port ${port} on 127.0.0.1 is in use by another process; choose another with --port N or TRIBUTARY_PORT (0 picks a free one)`,
      ]);
      expect(result.stdout).not.toContain('Admin API key');
      expect(existsSync(dataDir)).toBe(false);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it('refuses a PostgreSQL database it cannot reach with one line naming the host, never the password, and exit code 2', async () => {
    const { freePort } = await import('../../../tools/test-support/tributary-server.js');
    const port = await freePort();
    const result = await tributary([
      'start',
      '--port',
      '0',
      '--data-dir',
      path.join(scratch, 'no-database'),
      '--database-url',
      `postgres://tributary:hunter2-secret@127.0.0.1:${port}/tributary`,
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(
      new RegExp(`DATABASE_UNREACHABLE: cannot reach PostgreSQL at 127\\.0\\.0\\.1:${port}/tributary: `),
    );
    expect(result.stderr).not.toContain('hunter2');
  });

  it('documents its settings in --help', async () => {
    const { code, stdout } = await tributary(['start', '--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('--data-dir <DIR>');
    expect(stdout).toContain('TRIBUTARY_ADMIN_KEY');
    expect(stdout).toContain('--database-url <URL>');
  });
});
