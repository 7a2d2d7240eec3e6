/**
 * `GET /v1/installs/sse` shows a client its own npm installs only (docs/sse.md#install-progress):
 * by the progress id its save sent, or by the key it signed in with. Two saves install at once
 * from a loopback npm registry that holds the tarballs, so both installs are in flight together.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackRegistry, type LoopbackRegistry } from '../../../tools/test-support/loopback-npm-registry.js';
import { editJson, packFixturePackage } from '../../../tools/test-support/pack-fixture-package.js';
import { SseStream } from './ingress-harness.js';
import { FIXTURES, startHarness, type Harness } from './server-harness.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'tributary-install-scope-'));
const saved = { registry: process.env['npm_config_registry'], cache: process.env['npm_config_cache'] };
const code = readFileSync(path.join(FIXTURES, 'packages/tiny-greeting-source.mjs'), 'utf8');
// Another user's component: the same, importing a package of another name.
const otherCode = code.replaceAll('"tiny-greeting"', '"tiny-greeting-other"');
let registry: LoopbackRegistry;
let h: Harness;
let otherKey: string;
const streams: SseStream[] = [];

async function watch(key: string, progress?: string): Promise<SseStream> {
  const query = progress === undefined ? '' : `?progress=${progress}`;
  const stream = await SseStream.open(`${h.base}/v1/installs/sse${query}`, { authorization: `Bearer ${key}` });
  expect(stream.response.status).toBe(200);
  streams.push(stream);
  return stream;
}

beforeAll(async () => {
  registry = await startLoopbackRegistry();
  registry.publish('tiny-greeting', '1.0.0', packFixturePackage('tiny-greeting', scratch));
  const other = packFixturePackage('tiny-greeting', scratch, (dir) =>
    editJson(path.join(dir, 'package.json'), (json) => (json['name'] = 'tiny-greeting-other')),
  );
  registry.publish('tiny-greeting-other', '1.0.0', other);
  // The server's npm reads these; its own cache is fresh so every tarball is fetched, and held.
  process.env['npm_config_registry'] = registry.url;
  process.env['npm_config_cache'] = path.join(scratch, 'npm-cache');
  h = await startHarness({ startEngine: false });
  otherKey = (await h.engine.apiKeys.create('other user')).key;
}, 60_000);

afterAll(async () => {
  await Promise.all(streams.map((stream) => stream.close()));
  await h?.close({ remove: true });
  await registry?.close();
  for (const [name, value] of [
    ['npm_config_registry', saved.registry],
    ['npm_config_cache', saved.cache],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  rmSync(scratch, { recursive: true, force: true });
});

describe('install progress scoping', () => {
  it('shows the installs of my progress id or my key, not a concurrent install of another user', async () => {
    const mine = randomUUID();
    const theirs = randomUUID();
    const byProgress = await watch(h.key, mine);
    const byOtherKey = await watch(otherKey);
    const release = registry.hold();
    const saveMine = h.request('POST', '/v1/components', {
      body: { component_code: code },
      headers: { 'x-tributary-progress': mine },
    });
    const saveTheirs = h.request('POST', '/v1/components', {
      key: otherKey,
      body: { component_code: otherCode },
      headers: { 'x-tributary-progress': theirs },
    });
    // Both installs are under way (their tarballs held) before either may finish.
    expect((await byProgress.nextMessage()).data).toEqual({ phase: 'installing', packages: ['tiny-greeting@latest'] });
    expect((await byOtherKey.nextMessage()).data).toEqual({
      phase: 'installing',
      packages: ['tiny-greeting-other@latest'],
    });
    release();
    expect((await saveMine).status).toBeLessThan(300);
    expect((await saveTheirs).status).toBeLessThan(300);
    expect((await byProgress.nextMessage()).data).toEqual({
      phase: 'installed',
      packages: ['tiny-greeting@1.0.0'],
      duration_ms: expect.any(Number),
    });
    expect((await byOtherKey.nextMessage()).data).toMatchObject({
      phase: 'installed',
      packages: ['tiny-greeting-other@1.0.0'],
    });
    // Each saw its own two lines, nothing of the other's.
    expect(byProgress.messages.filter((message) => message.data.includes('tiny-greeting-other'))).toEqual([]);
    expect(byProgress.messages).toHaveLength(2);
    expect(byOtherKey.messages).toHaveLength(2);
  });

  it('reports a failed install with the code and message the save fails with', async () => {
    const progress = randomUUID();
    const stream = await watch(h.key, progress);
    const missing = readFileSync(path.join(FIXTURES, 'packages/missing-package.mjs'), 'utf8');
    const save = await h.request('POST', '/v1/components', {
      body: { component_code: missing },
      headers: { 'x-tributary-progress': progress },
    });
    expect(save.status).toBe(400);
    expect((await stream.nextMessage()).data).toMatchObject({ phase: 'installing' });
    expect((await stream.nextMessage()).data).toEqual({
      phase: 'failed',
      packages: ['tributary-no-such-package-zz@latest'],
      duration_ms: expect.any(Number),
      code: save.body.error.code,
      message: expect.stringContaining('tributary-no-such-package-zz'),
    });
    expect(save.body.error.code).toBe('PACKAGE_NOT_FOUND');
  });

  it('refuses a progress id that is not 16 to 100 safe characters, on the stream and on a request', async () => {
    const stream = await fetch(`${h.base}/v1/installs/sse?progress=short`, {
      headers: { authorization: `Bearer ${h.key}` },
    });
    expect(stream.status).toBe(400);
    expect(((await stream.json()) as { error: { code: string } }).error.code).toBe('VALIDATION_FAILED');
    const save = await h.request('POST', '/v1/components', {
      body: { component_code: code },
      headers: { 'x-tributary-progress': 'has spaces and is long enough' },
    });
    expect(save.status).toBe(400);
    expect(save.body.error).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'X-Tributary-Progress' } });
  });
});
