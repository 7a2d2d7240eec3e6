/**
 * Saved components (`sc_`) and the registry over the REST API: code, URL and key sources, the URL
 * fetch limits, publishing with semver (C6) and version conflicts (C7), deploying by key.
 */
import { createHash } from 'node:crypto';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, snapshot, startHarness, type Harness } from './server-harness.js';

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

let h: Harness;
let privileged: Harness;
let codeServer: Server;
let codeBase: string;

beforeAll(async () => {
  h = await startHarness();
  privileged = await startHarness({ allowPrivateUrls: true });
  codeServer = createHttpServer((request, response) => {
    switch (request.url) {
      case '/f02-counter.mjs':
        response.writeHead(200, { 'content-type': 'text/javascript' }).end(fixture('f02-counter.mjs'));
        return;
      case '/f17-sum.mjs':
        response.writeHead(200, { 'content-type': 'text/javascript' }).end(fixture('f17-sum.mjs'));
        return;
      case '/redirect':
        response.writeHead(302, { location: '/f02-counter.mjs' }).end();
        return;
      case '/huge.mjs':
        response
          .writeHead(200, { 'content-type': 'text/javascript' })
          .end(`// ${'x'.repeat(6 * 1024 * 1024)}\n${fixture('f02-counter.mjs')}`);
        return;
      case '/not-code':
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"token": "INTERNAL-SECRET-7f3a"}');
        return;
      case '/not-code-2':
        response.writeHead(200, { 'content-type': 'text/plain' }).end('token INTERNAL_SECRET_7f3a');
        return;
      case '/not-code-3':
        response.writeHead(200, { 'content-type': 'text/plain' }).end('INTERNAL_SECRET_7f3a');
        return;
      default:
        response.writeHead(404).end('not here');
    }
  });
  await new Promise<void>((resolve) => codeServer.listen(0, '127.0.0.1', resolve));
  codeBase = `http://127.0.0.1:${(codeServer.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await h?.close({ remove: true });
  await privileged?.close({ remove: true });
  await new Promise((resolve) => codeServer?.close(resolve));
});

describe('POST /v1/components (save)', () => {
  it('saves code as an sc_ component with its hash, type and configurable props', async () => {
    const code = fixture('f14-inputs.mjs');
    const response = await h.request('POST', '/v1/components', { body: { component_code: code } });
    expect(response.status).toBe(200);
    const saved = response.body.data;
    expect(saved.id).toMatch(/^sc_[0-9A-Za-z]{10}$/);
    expect(saved).toMatchObject({
      key: 'fx-inputs',
      name: 'Inputs',
      version: '0.0.1',
      component_type: 'action',
      code,
      code_hash: sha256(code),
    });
    expect(typeof saved.created_at).toBe('number');
    expect(saved.created_at).toBeLessThan(10_000_000_000); // epoch seconds, not ms
    const props = saved.configurable_props as { name: string; type: string; secret?: boolean }[];
    expect(props.map((prop) => prop.name)).toEqual([
      'note',
      'greeting',
      'apiKey',
      'repeat',
      'loud',
      'colors',
      'size',
      'meta',
      'extra',
    ]);
    expect(props.find((prop) => prop.name === 'apiKey')).toMatchObject({ type: 'string', secret: true });
    expect(props.find((prop) => prop.name === 'repeat')).toMatchObject({ type: 'integer', min: 1, max: 5, default: 2 });
    // snake_case only: no camelCase keys at the top level of the object.
    expect(Object.keys(saved).filter((name) => /[A-Z]/.test(name))).toEqual([]);

    const again = await h.request('POST', '/v1/components', { body: { component_code: code } });
    expect(again.status).toBe(200);
    expect(again.body.data.id).toBe(saved.id);

    const byId = await h.request('GET', `/v1/components/${saved.id}`);
    expect(byId.status).toBe(200);
    expect(byId.body.data).toEqual(saved);
    const byKey = await h.request('GET', '/v1/components/fx-inputs');
    expect(byKey.status).toBe(200);
    expect(byKey.body.data.id).toBe(saved.id);
  });

  it('saves a source component and reports it as a source', async () => {
    const response = await h.request('POST', '/v1/components', { body: { component_code: fixture('f13-hooks.mjs') } });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ key: 'fx-hooks', component_type: 'source' });
    // Interface props are listed, $.service.db is not (contract §2.11).
    expect(response.body.data.configurable_props).toEqual([{ name: 'http', type: '$.interface.http' }]);
  });

  it('refuses invalid code with COMPONENT_INVALID and stores nothing', async () => {
    const before = await snapshot(h);
    const invalid = await h.request('POST', '/v1/components', {
      body: { component_code: fixture('x01-bad-type.mjs') },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.code).toBe('COMPONENT_INVALID');
    expect(typeof invalid.body.error.details.rule).toBe('string');
    const syntax = await h.request('POST', '/v1/components', { body: { component_code: 'export default {' } });
    expect(syntax.status).toBe(400);
    expect(syntax.body.error.code).toBe('COMPONENT_SYNTAX_ERROR');
    expect(await snapshot(h)).toEqual(before);
  });

  it('takes the code when both code and URL are given (the URL is not fetched)', async () => {
    const code = fixture('f01-ping.mjs');
    const response = await h.request('POST', '/v1/components', {
      body: { component_code: code, component_url: 'http://127.0.0.1:1/never-fetched.mjs' },
    });
    expect(response.status).toBe(200);
    expect(response.body.data.code).toBe(code);
  });

  it('refuses URLs that are not http(s), do not parse, or reach loopback, private or link-local addresses', async () => {
    const before = await snapshot(h);
    const urls = [
      'file:///etc/passwd',
      'ftp://example.com/x.mjs',
      'data:text/javascript,export default {}',
      'not a url',
      `${codeBase}/f02-counter.mjs`,
      'http://localhost:1/x.mjs',
      'http://[::1]:1/x.mjs',
      'http://169.254.169.254/latest/meta-data',
      'http://10.0.0.1/x.mjs',
      'http://192.168.1.1/x.mjs',
      'http://2130706433/x.mjs', // 127.0.0.1 written as a number
      `${codeBase.replace('127.0.0.1', '[::ffff:127.0.0.1]')}/f02-counter.mjs`,
      `${codeBase.replace('127.0.0.1', '[::ffff:7f00:1]')}/f02-counter.mjs`,
      `${codeBase.replace('127.0.0.1', '0x7f.1')}/f02-counter.mjs`,
      `${codeBase.replace('127.0.0.1', '[64:ff9b::7f00:1]')}/f02-counter.mjs`,
      'http://0.0.0.0/x.mjs',
      'http://[::]/x.mjs',
      'http://[fd00::1]/x.mjs',
    ];
    for (const url of urls) {
      const response = await h.request('POST', '/v1/components', { body: { component_url: url } });
      expect(response.status, url).toBe(400);
      expect(response.body.error.code, url).toBe('URL_REFUSED');
      expect(response.body.error.details.field).toBe('component_url');
      const deploy = await h.request('POST', '/v1/sources', { body: { component_url: url } });
      expect(deploy.status, url).toBe(400);
      expect(deploy.body.error.code, url).toBe('URL_REFUSED');
    }
    expect(await snapshot(h)).toEqual(before);
  });

  it('fetches a URL on a private address when the operator allows it, and deploys from a URL', async () => {
    const saved = await privileged.request('POST', '/v1/components', {
      body: { component_url: `${codeBase}/f02-counter.mjs` },
    });
    expect(saved.status).toBe(200);
    expect(saved.body.data).toMatchObject({
      key: 'fx-counter',
      component_type: 'source',
      code: fixture('f02-counter.mjs'),
      code_hash: sha256(fixture('f02-counter.mjs')),
    });

    const deployed = await privileged.request('POST', '/v1/sources', {
      body: { component_url: `${codeBase}/f02-counter.mjs` },
    });
    expect(deployed.status).toBe(200);
    expect(deployed.body.data.component_id).toBe(saved.body.data.id);
    expect(deployed.body.data.component_key).toBe('fx-counter');
  });

  it('follows a redirect and refuses error statuses and code over the 5 MB component code limit', async () => {
    const redirected = await privileged.request('POST', '/v1/components', {
      body: { component_url: `${codeBase}/redirect` },
    });
    expect(redirected.status).toBe(200);
    expect(redirected.body.data.key).toBe('fx-counter');
    const before = await snapshot(privileged);
    for (const url of [`${codeBase}/missing.mjs`, `${codeBase}/huge.mjs`]) {
      const response = await privileged.request('POST', '/v1/components', { body: { component_url: url } });
      expect(response.status, url).toBe(400);
      expect(response.body.error.code, url).toBe('URL_REFUSED');
    }
    expect(await snapshot(privileged)).toEqual(before);
  });

  it('never echoes the content behind a URL that is not a component', async () => {
    const before = await snapshot(privileged);
    for (const url of [`${codeBase}/not-code`, `${codeBase}/not-code-2`, `${codeBase}/not-code-3`]) {
      const response = await privileged.request('POST', '/v1/components', { body: { component_url: url } });
      expect(response.status, url).toBeGreaterThanOrEqual(400);
      expect(response.status, url).toBeLessThan(500);
      expect(response.text, url).not.toContain('INTERNAL');
      const deploy = await privileged.request('POST', '/v1/sources', { body: { component_url: url } });
      expect(deploy.status, url).toBeLessThan(500);
      expect(deploy.text, url).not.toContain('INTERNAL');
    }
    expect(privileged.logLines.join('\n')).not.toContain('INTERNAL');
    expect(await snapshot(privileged)).toEqual(before);
  });

  it('answers 404 for unknown component ids and keys', async () => {
    for (const ref of ['sc_doesnotexi', 'no-such-key', 'registry-nope']) {
      const response = await h.request('GET', `/v1/components/${ref}`);
      expect(response.status, ref).toBe(404);
      expect(response.body.error.code).toBe('NOT_FOUND');
    }
    const registry = await h.request('GET', '/v1/components/registry/no-such-key');
    expect(registry.status).toBe(404);
  });
});

describe('PUT /v1/components/{key} (publish) and deploy by key', () => {
  it('publishes, republishes the same code idempotently, refuses other code at the same version, accepts a new version', async () => {
    const v1 = fixture('x16-sum-v1.mjs');
    const first = await h.request('PUT', '/v1/components/fx-sum', { body: { component_code: v1 } });
    expect(first.status).toBe(201);
    expect(first.body.data).toMatchObject({
      key: 'fx-sum',
      version: '0.0.1',
      code_hash: sha256(v1),
      component_type: 'action',
    });

    const same = await h.request('PUT', '/v1/components/fx-sum', { body: { component_code: v1 } });
    expect(same.status).toBe(200);
    expect(same.body.data.id).toBe(first.body.data.id);

    const before = await snapshot(h);
    const conflict = await h.request('PUT', '/v1/components/fx-sum', {
      body: { component_code: fixture('x16-sum-v1-changed.mjs') },
    });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error).toMatchObject({ code: 'VERSION_CONFLICT', details: { rule: 'C7', field: 'version' } });
    expect(conflict.body.error.message).toContain('0.0.1');
    // Refused: nothing stored, not even the saved component of the refused code.
    expect(await snapshot(h)).toEqual(before);
    const published = await h.request('GET', '/v1/components/registry/fx-sum');
    expect(published.status).toBe(200);
    expect(published.body.data.code_hash).toBe(sha256(v1));

    const v2 = fixture('x16-sum-v1-changed.mjs').replace('version: "0.0.1"', 'version: "0.0.2"');
    const bumped = await h.request('PUT', '/v1/components/fx-sum', { body: { component_code: v2 } });
    expect(bumped.status).toBe(200);
    expect(bumped.body.data).toMatchObject({ key: 'fx-sum', version: '0.0.2', code_hash: sha256(v2) });
    const after = await h.request('GET', '/v1/components/registry/fx-sum');
    expect(after.body.data.id).toBe(bumped.body.data.id);
    expect(after.body.data.version).toBe('0.0.2');
    const list = await h.request('GET', '/v1/components/registry');
    expect(list.status).toBe(200);
    expect(list.body.page_info).toMatchObject({ total_count: list.body.data.length, count: list.body.data.length });
    expect(
      list.body.data
        .filter((row: { key: string }) => row.key === 'fx-sum')
        .map((row: { version: string }) => row.version),
    ).toEqual(['0.0.2']);
    // GET by key prefers the registry entry.
    const byKey = await h.request('GET', '/v1/components/fx-sum');
    expect(byKey.body.data.version).toBe('0.0.2');
  });

  it('requires a semver version to publish (C6 → 400 COMPONENT_INVALID) though saving accepts it', async () => {
    const code = fixture('w-c6-non-semver.mjs');
    const before = await snapshot(h);
    const refused = await h.request('PUT', '/v1/components/fx-w-c6', { body: { component_code: code } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('COMPONENT_INVALID');
    expect(refused.body.error.details.rule).toBe('C6');
    expect(await snapshot(h)).toEqual(before);
    expect((await h.request('GET', '/v1/components/registry/fx-w-c6')).status).toBe(404);

    const saved = await h.request('POST', '/v1/components', { body: { component_code: code } });
    expect(saved.status).toBe(200);
    expect(saved.body.data.version).toBe('v2-beta');
  });

  it('refuses publishing code under a key other than its own, and stores nothing', async () => {
    const before = await snapshot(h);
    const response = await h.request('PUT', '/v1/components/some-other-key', {
      body: { component_code: fixture('f02-counter.mjs').replace('0.0.1', '0.0.9') },
    });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_FAILED');
    expect(response.body.error.details.field).toBe('key');
    expect(await snapshot(h)).toEqual(before);
  });

  it('deploys a source by component_key, following the registry to the newest published version', async () => {
    const v1 = fixture('f02-counter.mjs');
    const published = await h.request('PUT', '/v1/components/fx-counter', { body: { component_code: v1 } });
    expect(published.status).toBe(201);
    const first = await h.request('POST', '/v1/sources', { body: { component_key: 'fx-counter', name: 'by key' } });
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({
      component_id: published.body.data.id,
      component_key: 'fx-counter',
      active: true,
    });

    const v2 = v1.replace('version: "0.0.1"', 'version: "0.0.2"');
    const bumped = await h.request('PUT', '/v1/components/fx-counter', { body: { component_code: v2 } });
    expect(bumped.status).toBe(200);
    const second = await h.request('POST', '/v1/sources', { body: { component_key: 'fx-counter', name: 'by key' } });
    expect(second.status).toBe(200);
    expect(second.body.data.component_id).toBe(bumped.body.data.id);
    expect(second.body.data.name_slug).toBe('by-key-2');

    // Updating the first source by key moves it to the new version too; its id stays.
    const updated = await h.request('PUT', `/v1/sources/${first.body.data.id}`, {
      body: { component_key: 'fx-counter' },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ id: first.body.data.id, component_id: bumped.body.data.id });
  });

  it('refuses deploying an action, or an unknown key, and creates no source', async () => {
    // A refused deploy stores nothing, not even code never saved before.
    const before = await snapshot(h);
    const action = await h.request('POST', '/v1/sources', { body: { component_key: 'fx-sum' } });
    expect(action.status).toBe(400);
    expect(action.body.error.code).toBe('WRONG_COMPONENT_TYPE');
    const actionCode = await h.request('POST', '/v1/sources', { body: { component_code: fixture('f17-sum.mjs') } });
    expect(actionCode.status).toBe(400);
    expect(actionCode.body.error.code).toBe('WRONG_COMPONENT_TYPE');
    const unknown = await h.request('POST', '/v1/sources', { body: { component_key: 'no-such-component' } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: 'NOT_FOUND', details: { field: 'component_key' } });
    const unknownId = await h.request('POST', '/v1/sources', { body: { component_id: 'sc_doesnotexi' } });
    expect(unknownId.status).toBe(404);
    expect(await snapshot(h)).toEqual(before);
  });

  it('takes component_id over component_code (precedence id > code > key > url)', async () => {
    const counter = await h.request('POST', '/v1/components', { body: { component_code: fixture('f02-counter.mjs') } });
    const response = await h.request('POST', '/v1/sources', {
      body: { component_id: counter.body.data.id, component_code: fixture('f13-hooks.mjs'), name: 'precedence' },
    });
    expect(response.status).toBe(200);
    expect(response.body.data.component_id).toBe(counter.body.data.id);
    const byCode = await h.request('POST', '/v1/sources', {
      body: { component_code: fixture('f01-ping.mjs'), component_key: 'fx-counter', name: 'precedence' },
    });
    expect(byCode.status).toBe(200);
    expect(byCode.body.data.component_key).toBeNull(); // F01 has no key: the code won over fx-counter
    const component = await h.request('GET', `/v1/components/${byCode.body.data.component_id}`);
    expect(component.body.data.code).toBe(fixture('f01-ping.mjs'));
    expect(byCode.body.data.name_slug).toBe('precedence-2');
  });

  it('unpublishes a key; the saved component stays reachable by id', async () => {
    const published = await h.request('PUT', '/v1/components/fx-tick', {
      body: { component_code: fixture('f03-tick.mjs') },
    });
    expect(published.status).toBe(201);
    const removed = await h.request('DELETE', '/v1/components/fx-tick');
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({});
    expect((await h.request('GET', '/v1/components/registry/fx-tick')).status).toBe(404);
    expect((await h.request('GET', `/v1/components/${published.body.data.id}`)).status).toBe(200);
    const again = await h.request('DELETE', '/v1/components/fx-tick');
    expect(again.status).toBe(404);
  });
});
