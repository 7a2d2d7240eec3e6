/**
 * The operator's apps file (docs/accounts.md), through the real `tributary start` binary: its
 * entries are in the catalog (and accounts of them can be connected), a bad file stops the start
 * with one error naming the file and the entry, and the web app is served from apps/web/dist or
 * TRIBUTARY_WEB_DIR.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, type AnyJson } from './server-harness.js';

const BIN = path.join(REPO, 'packages/cli/bin/tributary.js');
const ADMIN_KEY = 'trb_apps_file_test_admin_key_0001';
let tmp: string;

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'tributary-apps-file-'));
  // The cache lives in here: a root server refuses a cache its workers (uid 65534) cannot reach.
  chmodSync(tmp, 0o755);
});

afterAll(() => {
  rmSync(tmp, { recursive: true, force: true });
});

interface Started {
  readonly base: string | null;
  readonly code: number | null;
  readonly stderr: string;
  stop(): Promise<void>;
}

/** Starts the binary on an ephemeral port; resolves when it is ready or has exited. */
function start(args: string[], env: Record<string, string> = {}): Promise<Started> {
  const child = spawn(
    process.execPath,
    [BIN, 'start', '--port', '0', '--data-dir', mkdtempSync(path.join(tmp, 'data-')), ...args],
    {
      cwd: REPO,
      env: { ...process.env, TRIBUTARY_ADMIN_KEY: ADMIN_KEY, TRIBUTARY_CACHE_DIR: path.join(tmp, 'cache'), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // 'close', not 'exit': the last lines written before exiting may still be in the pipe at 'exit'.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  };
  return new Promise((resolve) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const match = /ready: API (http:\/\/[^\s]+)\/v1/.exec(line);
      if (match?.[1])
        resolve({
          base: match[1],
          code: null,
          get stderr() {
            return stderr;
          },
          stop,
        });
    });
    void exited.then((code) =>
      resolve({
        base: null,
        code,
        get stderr() {
          return stderr;
        },
        stop,
      }),
    );
  });
}

const api = async (
  base: string,
  method: string,
  url: string,
  body?: unknown,
): Promise<{ status: number; body: AnyJson }> => {
  const response = await fetch(`${base}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${ADMIN_KEY}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: await response.json() };
};

describe('tributary start --apps-file', () => {
  it('puts the file entries in the catalog, beside the built-in ones', async () => {
    const file = path.join(tmp, 'apps.json');
    writeFileSync(
      file,
      JSON.stringify({
        apps: [
          {
            slug: 'acme',
            name: 'Acme (on-prem)',
            auth_type: 'keys',
            fields: [
              { name: 'api_key', label: 'Key', secret: true },
              { name: 'host', label: 'Host' },
            ],
          },
          { slug: 'intranet', name: 'Intranet', description: 'Internal API', auth_type: 'none', fields: [] },
        ],
      }),
    );
    const server = await start(['--apps-file', file]);
    try {
      expect(server.base, server.stderr).not.toBeNull();
      const base = server.base as string;
      expect(server.stderr).toContain(`apps file ${file}: 2 apps stored in the catalog`);
      const apps = await api(base, 'GET', '/v1/apps');
      const slugs = apps.body.data.map((app: { slug: string }) => app.slug);
      expect(slugs).toEqual(expect.arrayContaining(['acme', 'intranet', 'github']));
      expect((await api(base, 'GET', '/v1/apps/acme')).body.data).toEqual({
        slug: 'acme',
        name: 'Acme (on-prem)',
        description: null,
        auth_type: 'keys',
        fields: [
          { name: 'api_key', label: 'Key', secret: true, optional: false, description: null },
          { name: 'host', label: 'Host', secret: false, optional: false, description: null },
        ],
        auth_mode: 'api_key',
        oauth: null,
        base_url: null,
        test_request: null,
        origin: 'operator',
        oauth_client: null,
      });
      const account = await api(base, 'POST', '/v1/accounts', { app: 'acme', fields: { api_key: 'k', host: 'h' } });
      expect(account.status).toBe(201);
      expect(account.body.data.fields).toEqual({ api_key: '[REDACTED]', host: 'h' });
      // The web app: this checkout's apps/web/dist, or the folder TRIBUTARY_WEB_DIR names.
      const page = await fetch(`${base}/sources`, { headers: { accept: 'text/html' } });
      expect([200, 503]).toContain(page.status);
    } finally {
      await server.stop();
    }
  });

  it('also reads TRIBUTARY_APPS_FILE, and serves TRIBUTARY_WEB_DIR', async () => {
    const file = path.join(tmp, 'env-apps.json');
    writeFileSync(
      file,
      JSON.stringify({ apps: [{ slug: 'from-env', name: 'From env', auth_type: 'none', fields: [] }] }),
    );
    const web = mkdtempSync(path.join(tmp, 'web-'));
    writeFileSync(path.join(web, 'index.html'), '<!doctype html><title>from env</title>');
    const server = await start([], { TRIBUTARY_APPS_FILE: file, TRIBUTARY_WEB_DIR: web });
    try {
      const base = server.base as string;
      expect((await api(base, 'GET', '/v1/apps/from-env')).status).toBe(200);
      expect(await (await fetch(`${base}/docs/props`, { headers: { accept: 'text/html' } })).text()).toBe(
        '<!doctype html><title>from env</title>',
      );
    } finally {
      await server.stop();
    }
  });

  it('refuses a bad file with one error naming the file and the entry', async () => {
    const cases: [string, string][] = [
      [
        JSON.stringify({
          apps: [
            { slug: 'ok', name: 'Ok', auth_type: 'none', fields: [] },
            { slug: 'broken', name: 'Broken', auth_type: 'basic', fields: [] },
          ],
        }),
        'entry 1 ("broken"), auth_type',
      ],
      [
        JSON.stringify({ apps: [{ slug: 'Bad Slug', name: 'x', auth_type: 'none', fields: [] }] }),
        'entry 0 ("Bad Slug"), slug',
      ],
      [
        JSON.stringify({ apps: [{ slug: 'x', name: 'x', auth_type: 'keys', fields: [{ label: 'no name' }] }] }),
        'entry 0 ("x"), fields.0.name',
      ],
      ['{ not json', 'is not JSON'],
      [JSON.stringify([]), 'the top level'],
    ];
    for (const [text, named] of cases) {
      const file = path.join(tmp, 'bad.json');
      writeFileSync(file, text);
      const server = await start(['--apps-file', file]);
      expect(server.base, text).toBeNull();
      expect(server.code).toBe(2);
      const lines = server.stderr
        .trim()
        .split('\n')
        .filter((line) => !/sandbox .* is off/.test(line));
      expect(lines.at(-1)).toContain(`apps file ${file}`);
      expect(lines.at(-1)).toContain(named);
    }
    const missing = await start(['--apps-file', path.join(tmp, 'missing.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot be read');
  });
});
