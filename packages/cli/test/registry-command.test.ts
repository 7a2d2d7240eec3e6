/**
 * `tributary registry …` against a real `tributary start`: the curated set published at first
 * start, a package imported from an npm tarball packed from fixtures/packages/ (no network), its
 * report and exit codes, list, outdated and remove, and the REST routes behind them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packFixturePackage } from '../../../tools/test-support/pack-fixture-package.js';
import { startTributary, type TributaryServer } from '../../../tools/test-support/tributary-server.js';
import { tributary } from './cli-process.js';

const KEY = 'trb_registrycommandtest01';
let server: TributaryServer;
let tarball: string;
const packs = mkdtempSync(path.join(os.tmpdir(), 'tributary-registry-cli-'));

const cli = (...args: string[]) => tributary(['registry', ...args, '--api-url', server.base, '--api-key', KEY]);

beforeAll(async () => {
  tarball = packFixturePackage('acme-components', packs);
  server = await startTributary({ key: KEY });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  rmSync(packs, { recursive: true, force: true });
});

describe('tributary registry', () => {
  it('has the curated components published at first start', async () => {
    let names: string[] = [];
    for (let attempt = 0; attempt < 200 && !names.includes('@tributary/curated'); attempt++) {
      const listed = await server.api<{ data: { name: string }[] }>('GET', '/v1/registry/packages');
      names = listed.body.data.map((entry) => entry.name);
      if (!names.includes('@tributary/curated')) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const result = await cli('list');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('@tributary/curated@1.0.1 (5 components)');
    expect(result.stdout).toMatch(/tributary-http-webhook\s+1\.0\.0\s+source\s+HTTP Webhook/);
    const published = await server.api<{ data: { key: string }[] }>('GET', '/v1/components/registry');
    expect(published.body.data.map((row) => row.key)).toContain('tributary-schedule');
  });

  it('runs the curated components: the webhook source answers and emits, the actions return', async () => {
    const deployed = await server.api<{ data: { id: string; endpoint_url: string } }>('POST', '/v1/sources', {
      component_key: 'tributary-http-webhook',
      name: 'inbox',
      configured_props: { responseStatus: 202 },
    });
    expect(deployed.status).toBe(200);
    const answer = await fetch(`${deployed.body.data.endpoint_url}/hooks?x=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ order: 7 }),
    });
    expect(answer.status).toBe(202);
    expect(await answer.json()).toEqual({ ok: true });
    // The reply goes out before the invocation commits its event: wait for the event bin.
    let events = { body: { data: [] as { event: { body: unknown; method: string } }[] } };
    for (let attempt = 0; attempt < 100 && events.body.data.length === 0; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 100));
      events = await server.api('GET', `/v1/sources/${deployed.body.data.id}/event_summaries?expand=event`);
    }
    const logs = await server.api('GET', `/v1/sources/${deployed.body.data.id}/logs`);
    expect(events.body.data[0]?.event, JSON.stringify(logs.body)).toMatchObject({ method: 'POST', body: { order: 7 } });

    const picked = await server.api<{ data: { return_value: unknown } }>('POST', '/v1/actions/run', {
      id: 'tributary-pick-fields',
      configured_props: {
        data: '{"user":{"email":"a@b.c","name":"A"},"items":[{"id":3}]}',
        paths: ['user.email', 'items.0.id', 'nope'],
      },
    });
    expect(picked.body.data.return_value).toEqual({ 'user.email': 'a@b.c', 'items.0.id': 3 });

    // The HTTP request action calls the server's own health check.
    const requested = await server.api<{ data: { return_value: { status: number; body: unknown } } }>(
      'POST',
      '/v1/actions/run',
      { id: 'tributary-http-request', configured_props: { url: `${server.base}/healthz` } },
    );
    expect(requested.body.data.return_value.status).toBe(200);
  });

  it('imports a package with progress on stderr and a report on stdout; a skipped component exits 1', async () => {
    const result = await cli('add', tarball);
    expect(result.stderr).toContain('fetched @fixtures/acme-components@1.0.0');
    expect(result.stderr).toContain('found 4 components');
    expect(result.stdout).toContain('@fixtures/acme-components@1.0.0');
    expect(result.stdout).toContain('3 published, 0 unchanged, 1 skipped');
    expect(result.stdout).toContain('published acme-create-card@0.1.0');
    expect(result.stdout).toContain(
      'skipped   actions/broken/broken.mjs: COMPONENT_INVALID: C2: "type" must be "source" or "action", got "trigger"',
    );
    expect(result.code).toBe(1);
  });

  it("answers a propDefinition's options from the package's app file (options --remote)", async () => {
    const account = await server.api<{ data: { id: string } }>('POST', '/v1/accounts', {
      app: 'acme',
      fields: { api_key: 'k-123456' },
    });
    expect(account.status).toBe(201);
    const result = await tributary([
      'options',
      '--remote',
      'acme-create-card',
      'board',
      '--prop',
      `acme=${account.body.data.id}`,
      '--json',
      '--api-url',
      server.base,
      '--api-key',
      KEY,
    ]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      options: [
        { label: 'Roadmap', value: 'b1' },
        { label: 'Support', value: 'b2' },
      ],
    });
  });

  it('reports a re-import as unchanged and exits 0; a tarball path is relative to the CLI', async () => {
    const result = await tributary(
      ['registry', 'add', `./${path.basename(tarball)}`, '--api-url', server.base, '--api-key', KEY],
      { cwd: packs },
    );
    expect(result.stdout).toContain('0 published, 3 unchanged, 0 skipped');
    expect(result.code).toBe(0);
  });

  it('refuses a package that does not exist with exit 1 and its code', async () => {
    const result = await cli('add', path.join(packs, 'missing-1.0.0.tgz'));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/error PACKAGE_NOT_FOUND: npm package ".*missing-1\.0\.0\.tgz" does not exist/);
  });

  it('refuses a malformed request body with 400 naming the field', async () => {
    const response = await server.api<{ error: { code: string; message: string } }>('POST', '/v1/registry/packages', {
      spec: '',
    });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_FAILED');
    expect(response.body.error.message).toContain('spec');
  });

  it('lists, compares with npm and removes packages', async () => {
    const listed = await cli('list', '--json');
    const packages = JSON.parse(listed.stdout) as { name: string; components: { key: string }[] }[];
    expect(packages.find((entry) => entry.name === '@fixtures/acme-components')?.components.map((c) => c.key)).toEqual([
      'acme-create-card',
      'acme-list-boards',
      'acme-new-card',
    ]);
    // Both packages came from files: there is no newer version on npm to compare with.
    const outdated = await cli('outdated');
    expect(outdated.code).toBe(0);
    expect(outdated.stdout).toMatch(/@fixtures\/acme-components\s+1\.0\.0\s+\(local file\)\s+up to date/);
    const upgrade = await cli('upgrade');
    expect(upgrade.stdout).toContain('Nothing to upgrade');
    expect(upgrade.code).toBe(0);

    const removed = await cli('remove', '@fixtures/acme-components');
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain('Removed @fixtures/acme-components: 3 components left the registry');
    const again = await cli('remove', '@fixtures/acme-components');
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('error NOT_FOUND: no package "@fixtures/acme-components" in the registry');
  });
});
