/**
 * Deployed sources over the REST API and the lifecycle of contract §5.3: deploy = create, deploy
 * hook, activate hook; update = deactivate (old code), apply, activate (new code) with the same id
 * and endpoint; active:false = deactivate and the endpoint answers 404; delete = deactivate, then
 * the source goes with its events, logs and state. A hook that throws fails the operation
 * (HOOK_FAILED) and leaves the previous state live.
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fixture,
  logMessages,
  queueIdle,
  readRows,
  snapshot,
  startHarness,
  waitFor,
  type Harness,
} from './server-harness.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.close({ remove: true });
});

/** Log lines written by the component itself (the `--- kind started/finished` markers left out). */
async function ownLogs(sourceId: string): Promise<string[]> {
  return (await logMessages(h, sourceId)).filter((message) => !message.startsWith('--- '));
}

async function events(sourceId: string): Promise<{ id: string; event: unknown; metadata: Record<string, unknown> }[]> {
  const response = await h.request('GET', `/v1/sources/${sourceId}/event_summaries?limit=100&expand=event`);
  expect(response.status).toBe(200);
  return response.body.data;
}

/** POSTs to a source's HTTP endpoint (through this server). */
function post(endpointUrl: string, body: unknown): Promise<Response> {
  return fetch(`${h.base}${h.endpoint(endpointUrl)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** A variant of F13 whose hooks and run say which code version they are. */
const FLAKY = (version: string, extra = ''): string => `
export default {
  key: "t-flaky", name: "Flaky", version: "${version}", type: "source",
  props: {
    http: "$.interface.http",
    db: "$.service.db",
    failOn: { type: "string", optional: true, default: "none" },
  },
  hooks: {
    async deploy() { if (this.failOn === "deploy") throw new Error("deploy refused"); },
    async activate() {
      ${extra}
      if (this.failOn === "activate") throw new Error("activate refused");
      this.db.set("live", "${version}");
      console.log("activate ${version}");
    },
    async deactivate() {
      if (this.failOn === "deactivate") throw new Error("deactivate refused");
      console.log("deactivate ${version}");
    },
  },
  async run(req) { this.$emit({ code: "${version}", live: this.db.get("live"), body: req.body ?? null }); },
};
`;

describe('F13 lifecycle over the API', () => {
  it('deploy → activate; update → deactivate (old), activate (new), same id and endpoint; active:false → deactivate, 404; delete → gone', async () => {
    const deployed = await h.request('POST', '/v1/sources', { body: { component_code: fixture('f13-hooks.mjs') } });
    expect(deployed.status).toBe(200);
    const source = deployed.body.data;
    expect(source.id).toMatch(/^dc_[0-9A-Za-z]{10}$/);
    expect(source).toMatchObject({
      owner_id: 'u_local',
      component_key: 'fx-hooks',
      active: true,
      name: 'Hooks',
      name_slug: 'hooks',
    });
    expect(source.endpoint_url).toMatch(/^http:\/\/tributary\.test\/e\/[0-9A-Za-z]{24}$/);
    expect(source.configured_props).toEqual({ http: { endpoint_url: source.endpoint_url } });
    expect(Object.keys(source).sort()).toEqual(
      [
        'active',
        'component_id',
        'component_key',
        'configured_props',
        'created_at',
        'endpoint_url',
        'id',
        'name',
        'name_slug',
        'next_run_at',
        'owner_id',
        'updated_at',
      ].sort(),
    );
    expect(source.next_run_at).toBeNull(); // no timer
    expect(Math.abs(source.created_at - Date.now() / 1000)).toBeLessThan(60); // epoch seconds

    // deploy() ran before activate(); activate() logged; the deploy hook's one history event is in the bin.
    expect(await logMessages(h, source.id)).toEqual([
      '--- deploy started',
      expect.stringMatching(/^--- deploy finished in \d+ ms$/),
      '--- activate started',
      'activate',
      expect.stringMatching(/^--- activate finished in \d+ ms$/),
    ]);
    const history = await events(source.id);
    expect(history).toHaveLength(1);
    expect(Object.keys(history[0] ?? {}).sort()).toEqual(['event', 'id', 'indexed_at_ms', 'metadata']);
    expect(Object.keys(history[0]?.metadata ?? {}).every((key) => /^[a-z0-9_]+$/.test(key))).toBe(true);
    const logPage = await h.request('GET', `/v1/sources/${source.id}/logs?limit=1`);
    expect(Object.keys(logPage.body).sort()).toEqual(['data', 'page_info']);
    expect(Object.keys(logPage.body.page_info).sort()).toEqual(['count', 'end_cursor', 'start_cursor', 'total_count']);
    expect(Object.keys(logPage.body.data[0]).sort()).toEqual(['id', 'invocation_id', 'level', 'message', 'ts']);
    expect(history[0]).toMatchObject({
      event: { seed: true },
      metadata: { summary: 'history', emitter_id: source.id, name: 'default' },
    });

    // The endpoint delivers to run().
    const delivered = await post(source.endpoint_url, { n: 1 });
    expect(delivered.status).toBe(200);
    await waitFor(async () => (await events(source.id)).length === 2, 'the delivery event');
    expect((await events(source.id))[0]).toMatchObject({ event: { n: 1 }, metadata: { summary: 'delivery' } });

    // Update with new code: deactivate of the old code (it reads what activate stored), then activate.
    const newCode = fixture('f13-hooks.mjs').replace('// F13', '// F13 (updated)');
    const updated = await h.request('PUT', `/v1/sources/${source.id}`, { body: { component_code: newCode } });
    expect(updated.status).toBe(200);
    expect(updated.body.data.id).toBe(source.id);
    expect(updated.body.data.endpoint_url).toBe(source.endpoint_url);
    expect(updated.body.data.component_id).not.toBe(source.component_id);
    expect(await ownLogs(source.id)).toEqual(['activate', `deactivate reg:${source.endpoint_url}`, 'activate']);
    // No second deploy hook: still one history event (plus the delivery).
    expect((await events(source.id)).filter((record) => record.metadata['summary'] === 'history')).toHaveLength(1);
    const afterUpdate = await post(source.endpoint_url, { n: 2 });
    expect(afterUpdate.status).toBe(200);
    await waitFor(async () => (await events(source.id)).length === 3, 'the delivery after the update');

    // Deactivate: the hook runs and the endpoint answers 404; GET shows active:false.
    const inactive = await h.request('PUT', `/v1/sources/${source.id}`, { body: { active: false } });
    expect(inactive.status).toBe(200);
    expect(inactive.body.data).toMatchObject({ id: source.id, active: false, endpoint_url: source.endpoint_url });
    expect((await ownLogs(source.id)).slice(-1)).toEqual([`deactivate reg:${source.endpoint_url}`]);
    const refused = await post(source.endpoint_url, { n: 3 });
    expect(refused.status).toBe(404);
    expect((await refused.json()) as unknown).toMatchObject({ error: { code: 'NOT_FOUND' } });
    expect((await h.request('GET', `/v1/sources/${source.id}`)).body.data.active).toBe(false);
    // Deactivating what is inactive runs no hook.
    const twice = await h.request('PUT', `/v1/sources/${source.id}`, { body: { active: false } });
    expect(twice.status).toBe(200);
    expect((await ownLogs(source.id)).filter((line) => line.startsWith('deactivate'))).toHaveLength(2);

    // Reactivate: activate runs, the same endpoint serves again.
    const active = await h.request('PUT', `/v1/sources/${source.id}`, { body: { active: true } });
    expect(active.status).toBe(200);
    expect(active.body.data.active).toBe(true);
    expect((await ownLogs(source.id)).slice(-1)).toEqual(['activate']);
    const back = await post(source.endpoint_url, { n: 4 });
    expect(back.status).toBe(200);
    await waitFor(
      async () =>
        (await events(source.id))[0]?.event !== undefined &&
        JSON.stringify((await events(source.id))[0]?.event) === '{"n":4}',
      'the delivery after reactivation',
    );

    // Delete: gone with its events, logs, state and queue rows; the endpoint answers 404.
    await queueIdle(h, source.id);
    const deleted = await h.request('DELETE', `/v1/sources/${source.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({});
    for (const url of [
      `/v1/sources/${source.id}`,
      `/v1/sources/${source.id}/event_summaries`,
      `/v1/sources/${source.id}/logs`,
    ]) {
      const response = await h.request('GET', url);
      expect(response.status, url).toBe(404);
      expect(response.body.error.code).toBe('NOT_FOUND');
    }
    expect((await post(source.endpoint_url, { n: 5 })).status).toBe(404);
    for (const table of ['events', 'logs', 'invocations', 'source_state', 'dead_letters'] as const) {
      const rows = readRows(h.dbFile, `SELECT source_id FROM ${table} WHERE source_id = ?`, source.id);
      expect(rows, table).toHaveLength(0);
    }
    expect((await h.request('DELETE', `/v1/sources/${source.id}`)).status).toBe(404);
  });

  it('runs deactivate on delete (observed by a webhook receiver the hooks call)', async () => {
    const calls: { op: string; url: string }[] = [];
    const receiver: Server = createHttpServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        calls.push(JSON.parse(body) as { op: string; url: string });
        response.writeHead(200).end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
      const code = `
export default {
  key: "t-webhook", name: "Webhook", version: "0.0.1", type: "source",
  props: { http: "$.interface.http", db: "$.service.db" },
  hooks: {
    async activate() { await fetch(${JSON.stringify(hookUrl)}, { method: "POST", body: JSON.stringify({ op: "register", url: this.http.endpoint }) }); },
    async deactivate() { await fetch(${JSON.stringify(hookUrl)}, { method: "POST", body: JSON.stringify({ op: "unregister", url: this.http.endpoint }) }); },
  },
  async run(req) { this.$emit(req.body ?? {}); },
};`;
      const deployed = await h.request('POST', '/v1/sources', { body: { component_code: code } });
      expect(deployed.status).toBe(200);
      const url = deployed.body.data.endpoint_url as string;
      expect(calls).toEqual([{ op: 'register', url }]);
      const updated = await h.request('PUT', `/v1/sources/${deployed.body.data.id}`, {
        body: { component_code: code.replace('"0.0.1"', '"0.0.2"') },
      });
      expect(updated.status).toBe(200);
      expect(calls).toEqual([
        { op: 'register', url },
        { op: 'unregister', url },
        { op: 'register', url },
      ]);
      const deleted = await h.request('DELETE', `/v1/sources/${deployed.body.data.id}`);
      expect(deleted.status).toBe(200);
      expect(calls.slice(3)).toEqual([{ op: 'unregister', url }]);
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});

describe('hooks that throw fail the operation and change nothing', () => {
  it('a deploy or activate hook that throws fails the deploy with HOOK_FAILED and stores nothing, not even the code', async () => {
    const before = await snapshot(h);
    const savedBefore = (await h.request('GET', '/v1/users/me/components?limit=100')).body;
    for (const hook of ['deploy', 'activate']) {
      // Code never saved before: a refused deploy must not leave it as a saved component.
      const response = await h.request('POST', '/v1/sources', {
        body: { component_code: FLAKY(`1.0.1-${hook}`), configured_props: { failOn: hook } },
      });
      expect(response.status, hook).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'HOOK_FAILED', details: { hook } });
      expect(response.body.error.message).toContain(`${hook} refused`);
    }
    expect(await snapshot(h)).toEqual(before);
    expect((await h.request('GET', '/v1/users/me/components?limit=100')).body).toEqual(savedBefore);
  });

  it('an activate that throws on update rolls back: the old code and props still serve, same endpoint', async () => {
    const deployed = await h.request('POST', '/v1/sources', {
      body: { component_code: FLAKY('1.0.0'), name: 'rollback' },
    });
    expect(deployed.status).toBe(200);
    const source = deployed.body.data;
    const stored = async () => (await h.request('GET', `/v1/sources/${source.id}`)).body.data;
    const before = await stored();
    const snapshotBefore = await snapshot(h);

    // New code whose activate always throws.
    const broken = await h.request('PUT', `/v1/sources/${source.id}`, {
      body: { component_code: FLAKY('2.0.0', 'throw new Error("v2 cannot activate");') },
    });
    expect(broken.status).toBe(400);
    expect(broken.body.error).toMatchObject({ code: 'HOOK_FAILED', details: { hook: 'activate' } });
    expect(broken.body.error.message).toContain('v2 cannot activate');
    expect(await stored()).toEqual(before);
    // The rolled-back code is not kept as a saved component either.
    expect(await snapshot(h)).toEqual(snapshotBefore);

    // New props that make activate throw.
    const badProps = await h.request('PUT', `/v1/sources/${source.id}`, {
      body: { configured_props: { failOn: 'activate' } },
    });
    expect(badProps.status).toBe(400);
    expect(badProps.body.error.code).toBe('HOOK_FAILED');
    expect(await stored()).toEqual(before);
    expect(before.configured_props).toEqual({ http: { endpoint_url: source.endpoint_url } }); // failOn: its default, not stored

    // The endpoint still runs version 1.0.0, whose activate state is still the stored one.
    const delivered = await post(source.endpoint_url, { hello: 'after rollback' });
    expect(delivered.status).toBe(200);
    const [latest] = await waitFor(async () => {
      const list = await events(source.id);
      return list.length > 0 ? list : undefined;
    }, 'the delivery after the rollback');
    expect(latest?.event).toEqual({ code: '1.0.0', live: '1.0.0', body: { hello: 'after rollback' } });

    // An update that works afterwards goes through normally.
    const fixed = await h.request('PUT', `/v1/sources/${source.id}`, { body: { component_code: FLAKY('3.0.0') } });
    expect(fixed.status).toBe(200);
    expect(fixed.body.data).toMatchObject({ id: source.id, endpoint_url: source.endpoint_url });
    expect((await ownLogs(source.id)).slice(-2)).toEqual(['deactivate 1.0.0', 'activate 3.0.0']);
  });

  it('a deactivate that throws refuses deactivation and deletion (the source stays active); ?force=true deletes', async () => {
    const deployed = await h.request('POST', '/v1/sources', {
      body: { component_code: FLAKY('1.0.0'), name: 'stubborn' },
    });
    expect(deployed.status).toBe(200);
    const id = deployed.body.data.id as string;
    // This update runs the old deactivate (fine) and the new activate (fine); from now on deactivate throws.
    const armed = await h.request('PUT', `/v1/sources/${id}`, { body: { configured_props: { failOn: 'deactivate' } } });
    expect(armed.status).toBe(200);
    expect(armed.body.data.configured_props.failOn).toBe('deactivate');

    const before = await snapshot(h);
    const off = await h.request('PUT', `/v1/sources/${id}`, { body: { active: false } });
    expect(off.status).toBe(400);
    expect(off.body.error).toMatchObject({ code: 'HOOK_FAILED', details: { hook: 'deactivate' } });
    const removal = await h.request('DELETE', `/v1/sources/${id}`);
    expect(removal.status).toBe(400);
    expect(removal.body.error).toMatchObject({ code: 'HOOK_FAILED', details: { hook: 'deactivate' } });
    expect(removal.body.error.message).toContain('force=true');
    expect(await snapshot(h)).toEqual(before);
    expect((await h.request('GET', `/v1/sources/${id}`)).body.data.active).toBe(true);

    const forced = await h.request('DELETE', `/v1/sources/${id}?force=true`);
    expect(forced.status).toBe(200);
    expect((await h.request('GET', `/v1/sources/${id}`)).status).toBe(404);
  });
});

describe('names, slugs, lookups and the source list', () => {
  it('slugs names uniquely (-2, -3), resolves sources by id, slug or name, and reuses a freed slug', async () => {
    const ids: string[] = [];
    for (const expected of ['counter', 'counter-2', 'counter-3']) {
      const response = await h.request('POST', '/v1/sources', { body: { component_code: fixture('f02-counter.mjs') } });
      expect(response.status).toBe(200);
      expect(response.body.data).toMatchObject({ name: 'Counter', name_slug: expected });
      ids.push(response.body.data.id);
    }
    const named = await h.request('POST', '/v1/sources', {
      body: { component_code: fixture('f02-counter.mjs'), name: 'Ünïcode Name / with Spaces!' },
    });
    expect(named.body.data).toMatchObject({
      name: 'Ünïcode Name / with Spaces!',
      name_slug: 'unicode-name-with-spaces',
    });

    const bySlug = await h.request('GET', '/v1/sources/counter-2');
    expect(bySlug.status).toBe(200);
    expect(bySlug.body.data.id).toBe(ids[1]);
    const byName = await h.request('GET', `/v1/sources/${encodeURIComponent('Ünïcode Name / with Spaces!')}`);
    expect(byName.status).toBe(200);
    expect(byName.body.data.id).toBe(named.body.data.id);
    // "Counter" names three sources: ambiguous unless a slug matches; the slug "counter" does not equal "Counter".
    const ambiguous = await h.request('GET', '/v1/sources/Counter');
    expect(ambiguous.status).toBe(409);
    expect(ambiguous.body.error.code).toBe('NAME_CONFLICT');
    expect(ambiguous.body.error.details.matches).toHaveLength(3);

    // Renaming re-slugs (no hooks needed); a freed slug is given out again.
    const renamed = await h.request('PUT', `/v1/sources/${ids[1]}`, { body: { name: 'Renamed' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ id: ids[1], name: 'Renamed', name_slug: 'renamed' });
    const reused = await h.request('POST', '/v1/sources', { body: { component_code: fixture('f02-counter.mjs') } });
    expect(reused.body.data.name_slug).toBe('counter-2');
    const clash = await h.request('PUT', `/v1/sources/${ids[2]}`, { body: { name: 'Renamed' } });
    expect(clash.body.data.name_slug).toBe('renamed-2');
  });

  it('lists sources with page_info and base64 cursors', async () => {
    const all = await h.request('GET', '/v1/users/me/sources?limit=100');
    expect(all.status).toBe(200);
    const total = all.body.page_info.total_count as number;
    expect(total).toBeGreaterThanOrEqual(5);
    expect(all.body.data).toHaveLength(total);
    const idsInOrder = all.body.data.map((row: { id: string }) => row.id) as string[];
    expect([...idsInOrder].sort()).toEqual(idsInOrder);

    const first = await h.request('GET', '/v1/users/me/sources?limit=2');
    expect(first.body.page_info).toMatchObject({ total_count: total, count: 2 });
    expect(first.body.page_info.start_cursor).toBe(Buffer.from(idsInOrder[0] ?? '').toString('base64url'));
    expect(first.body.page_info.end_cursor).toBe(Buffer.from(idsInOrder[1] ?? '').toString('base64url'));
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 20; page += 1) {
      const response = await h.request('GET', `/v1/users/me/sources?limit=2${cursor ? `&after=${cursor}` : ''}`);
      expect(response.status).toBe(200);
      seen.push(...response.body.data.map((row: { id: string }) => row.id));
      if (response.body.data.length < 2) break;
      cursor = response.body.page_info.end_cursor;
    }
    expect(seen).toEqual(idsInOrder);
    const backwards = await h.request(
      'GET',
      `/v1/users/me/sources?limit=2&before=${Buffer.from(idsInOrder[3] ?? '').toString('base64url')}`,
    );
    expect(backwards.body.data.map((row: { id: string }) => row.id)).toEqual(idsInOrder.slice(1, 3));
  });

  it('answers GET /v1/users/me', async () => {
    const me = await h.request('GET', '/v1/users/me');
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ data: { id: 'u_local', username: 'admin', email: null } });
  });
});
