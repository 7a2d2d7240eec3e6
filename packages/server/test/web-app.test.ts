/**
 * The web app served by the server (issue 6): files of the built folder as they are, index.html for
 * client-side routes that accept HTML, JSON 404s kept for API paths, and a 503 saying how to build
 * the app when the folder has no index.html.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './server-harness.js';

const INDEX = '<!doctype html><title>Tributary</title><div id="root"></div>';
const HTML = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };
let h: Harness;
let webDir: string;

beforeAll(async () => {
  webDir = mkdtempSync(path.join(os.tmpdir(), 'tributary-web-'));
  mkdirSync(path.join(webDir, 'assets'));
  writeFileSync(path.join(webDir, 'index.html'), INDEX);
  writeFileSync(path.join(webDir, 'assets', 'app-1234.js'), 'console.log("app");');
  writeFileSync(path.join(webDir, 'favicon.svg'), '<svg/>');
  h = await startHarness({ webDir });
});

afterAll(async () => {
  await h?.close({ remove: true });
  rmSync(webDir, { recursive: true, force: true });
});

const get = (url: string, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(`${h.base}${url}`, { headers });

describe('serving the web app', () => {
  it('serves index.html at / and its files with their types', async () => {
    const root = await get('/', HTML);
    expect(root.status).toBe(200);
    expect(root.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await root.text()).toBe(INDEX);
    const script = await get('/assets/app-1234.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/javascript/);
    expect(script.headers.get('cache-control')).toContain('immutable');
    expect(await script.text()).toBe('console.log("app");');
    expect((await get('/favicon.svg')).headers.get('content-type')).toMatch(/^image\/svg\+xml/);
  });

  it('answers client-side routes that accept HTML with index.html, and no sign-in is needed', async () => {
    for (const url of [
      '/sources',
      '/sources/dc_abc/events',
      '/sources/new?action=create&key=x',
      '/docs',
      '/docs/props',
      '/settings',
    ]) {
      const response = await get(url, HTML);
      expect(response.status, url).toBe(200);
      expect(await response.text()).toBe(INDEX);
    }
    const json = await get('/sources/dc_abc/events', { accept: 'application/json' });
    expect(json.status).toBe(404);
    expect((await get('/assets/missing.js')).status).toBe(404);
  });

  it('keeps API, stream, ingress and health paths out of the fallback', async () => {
    const api = await get('/v1/nope', HTML);
    expect(api.status).toBe(404);
    expect(await api.json()).toEqual({ error: { code: 'NOT_FOUND', message: 'no route GET /v1/nope' } });
    expect((await get('/v1/users/me', HTML)).status).toBe(401);
    expect((await get('/healthz', HTML)).headers.get('content-type')).toMatch(/json/);
    expect((await get('/e/unknown-endpoint', HTML)).status).toBe(404);
    const sse = await get('/sources/dc_nope/sse', HTML);
    expect(sse.status).toBe(401);
    expect((await get('/sse/dc/dc_nope/emits', HTML)).status).toBe(401);
    expect(await (await get('/v1/nope', HTML)).text()).not.toContain('<title>');
  });

  it('never serves files outside the folder', async () => {
    for (const url of [
      '/../package.json',
      '/%2e%2e/package.json',
      '/assets/..%2f..%2fpackage.json',
      '/%00index.html',
    ]) {
      const response = await get(url, { accept: 'application/json' });
      expect(response.status, url).toBe(404);
    }
    const html = await get('/%2e%2e/%2e%2e/etc/passwd', HTML);
    expect(await html.text()).toBe(INDEX);
  });
});

describe('a web folder without index.html', () => {
  it('answers 503 with how to build it, and the API still works', async () => {
    const empty = mkdtempSync(path.join(os.tmpdir(), 'tributary-web-empty-'));
    const other = await startHarness({ webDir: empty });
    try {
      const response = await fetch(`${other.base}/`, { headers: HTML });
      expect(response.status).toBe(503);
      expect(await response.text()).toBe('the web app is not built: run npm run build\n');
      expect((await fetch(`${other.base}/sources`, { headers: HTML })).status).toBe(503);
      expect((await other.request('GET', '/v1/users/me')).status).toBe(200);
      // Building it later needs no restart.
      writeFileSync(path.join(empty, 'index.html'), INDEX);
      expect(await (await fetch(`${other.base}/`, { headers: HTML })).text()).toBe(INDEX);
    } finally {
      await other.close({ remove: true });
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
