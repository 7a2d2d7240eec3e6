/**
 * Subscriptions in Pipedream's REST shapes (issue 10): a deployed source's committed events go to
 * webhook listeners, signed, retried with backoff and logged; a subscription per channel gets only
 * that channel; bad subscriptions are refused with a stable code and change nothing.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver } from './delivery-servers.js';
import { FIXTURES, fixture, openSqlite, startHarness, waitFor, type AnyJson, type Harness } from './server-harness.js';

type Verify = (
  header: string,
  body: string,
  secret: string,
  options?: { nowS?: number; toleranceS?: number },
) => boolean;

let h: Harness;
let verifySignature: Verify;
let emitter: { id: string; endpoint_url: string };
let other: { id: string };
let main: Awaited<ReturnType<typeof startReceiver>>;
let audit: Awaited<ReturnType<typeof startReceiver>>;

async function deploy(name: string): Promise<AnyJson> {
  const response = await h.request('POST', '/v1/sources', {
    body: { component_code: fixture('delivery/emitter.mjs'), name },
  });
  expect(response.status).toBe(200);
  return response.body.data;
}

const subscribe = (query: Record<string, string>) =>
  h.request('POST', `/v1/subscriptions?${new URLSearchParams(query).toString()}`);

beforeAll(async () => {
  ({ verifySignature } = (await import(
    pathToFileURL(path.join(FIXTURES, 'docs/verify-webhook-signature.mjs')).href
  )) as {
    verifySignature: Verify;
  });
  [main, audit] = await Promise.all([startReceiver([500, 200]), startReceiver([200])]);
  h = await startHarness({
    allowPrivateUrls: true,
    delivery: { retry: { maxAttempts: 4, baseDelayMs: 150, maxDelayMs: 600 }, maxSleepMs: 100 },
  });
  const source = await deploy('orders');
  emitter = { id: source.id, endpoint_url: source.configured_props.http.endpoint_url };
  other = await deploy('other');
});

afterAll(async () => {
  await h?.close({ remove: true });
  await Promise.all([main?.close(), audit?.close()]);
});

describe('POST /v1/subscriptions with listener_url', () => {
  let subscriptionId: string;
  let secret: string;

  it('creates a webhook subscription and shows its signing secret once', async () => {
    const created = await subscribe({ emitter_id: emitter.id, listener_url: `${main.url}/hook` });
    expect(created.status).toBe(200);
    expect(created.body.data).toMatchObject({
      emitter_id: emitter.id,
      listener_id: null,
      listener_url: `${main.url}/hook`,
      event_name: '',
    });
    expect(created.body.data.id).toMatch(/^sub_/);
    expect(created.body.data.secret).toMatch(/^whsec_/);
    subscriptionId = created.body.data.id;
    secret = created.body.data.secret;
    const again = await subscribe({ emitter_id: emitter.id, listener_url: `${main.url}/hook`, event_name: '' });
    expect(again.body.data.id).toBe(subscriptionId);
    expect(again.body.data.secret).toBeUndefined();
    const onAudit = await subscribe({ emitter_id: emitter.id, listener_url: audit.url, event_name: 'audit' });
    expect(onAudit.body.data.event_name).toBe('audit');
  });

  it('POSTs each committed event, signed, retrying a 500; a channel subscription gets only its channel', async () => {
    const ingress = await fetch(`${h.base}${h.endpoint(emitter.endpoint_url)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ order: 7, audit: 'ann' }),
    });
    expect(ingress.status).toBe(200);
    await waitFor(async () => main.requests.length >= 2 && audit.requests.length >= 1, 'both listeners');
    const [failed, delivered] = main.requests;
    expect([failed?.answered, delivered?.answered]).toEqual([500, 200]);
    const record = JSON.parse(delivered?.body ?? '');
    expect(record).toMatchObject({ event: { order: 7 }, metadata: { emitter_id: emitter.id, name: 'default' } });
    expect(delivered?.headers['x-tributary-subscription']).toBe(subscriptionId);
    expect(delivered?.headers['x-tributary-attempt']).toBe('2');
    expect(verifySignature(String(delivered?.headers['x-tributary-signature']), delivered?.body ?? '', secret)).toBe(
      true,
    );
    expect(
      verifySignature(String(delivered?.headers['x-tributary-signature']), `${delivered?.body ?? ''} `, secret),
    ).toBe(false);
    expect(
      verifySignature(String(delivered?.headers['x-tributary-signature']), delivered?.body ?? '', 'whsec_wrong'),
    ).toBe(false);
    expect(audit.requests).toHaveLength(1);
    expect(JSON.parse(audit.requests[0]?.body ?? '')).toMatchObject({
      event: { who: 'ann' },
      metadata: { name: 'audit' },
    });
  });

  it('keeps a delivery log per subscription: status, attempts and each attempt', async () => {
    const log = await waitFor(async () => {
      const response = await h.request('GET', `/v1/subscriptions/${subscriptionId}/deliveries`);
      return response.body.data[0]?.status === 'delivered' ? response.body : undefined;
    }, 'the delivery to be recorded');
    expect(log.page_info).toMatchObject({ total_count: 1, count: 1 });
    const [entry] = log.data;
    expect(entry).toMatchObject({ kind: 'webhook', subscription_id: subscriptionId, attempts: 2, last_error: null });
    expect(entry.config).toEqual({ url: `${main.url}/hook`, event_id: expect.any(String) });
    expect(entry.log.map((attempt: AnyJson) => attempt.detail)).toEqual(['HTTP 500', 'HTTP 200']);
    expect(JSON.stringify(log)).not.toContain(secret);
  });

  it('lists subscriptions and removes one by emitter, listener and channel', async () => {
    const listed = await h.request('GET', '/v1/users/me/subscriptions');
    expect(listed.body.data).toHaveLength(2);
    const removed = await h.request(
      'DELETE',
      `/v1/subscriptions?${new URLSearchParams({ emitter_id: emitter.id, listener_url: audit.url, event_name: 'audit' }).toString()}`,
    );
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({});
    expect((await h.request('GET', '/v1/subscriptions')).body.data).toHaveLength(1);
    const again = await h.request(
      'DELETE',
      `/v1/subscriptions?${new URLSearchParams({ emitter_id: emitter.id, listener_url: audit.url, event_name: 'audit' }).toString()}`,
    );
    expect(again.status).toBe(404);
  });
});

describe('listener_id: another deployed source', () => {
  it('runs the listener with each event of the emitter', async () => {
    const created = await subscribe({ emitter_id: emitter.id, listener_id: other.id });
    expect(created.status).toBe(200);
    expect(created.body.data.secret).toBeUndefined();
    await fetch(`${h.base}${h.endpoint(emitter.endpoint_url)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ order: 8 }),
    });
    // The listener's run(event) gets the emitter's payload, as a subscription-triggered source does.
    const events = await waitFor(async () => {
      const response = await h.request('GET', `/v1/sources/${other.id}/event_summaries`);
      return response.body.data.length > 0 ? response.body.data : undefined;
    }, 'the listener to run');
    expect(events[0].event).toEqual({ order: 8 });
    expect((await h.request('DELETE', `/v1/subscriptions/${created.body.data.id}`)).status).toBe(200);
  });
});

describe('workflows (wf_…) as emitters and listeners', () => {
  it("starts a listening workflow's run for each $.send.emit of a workflow and each event of a source", async () => {
    const workflow = async (name: string, step: string): Promise<string> => {
      const created = await h.request('POST', '/v1/workflows', {
        body: { name, trigger: { type: 'manual' }, steps: [{ name: 'only', code: fixture(`workflows/${step}`) }] },
      });
      expect(created.status).toBe(201);
      return created.body.data.id;
    };
    const [emitting, listening] = [
      await workflow('emits', 'emit-step.mjs'),
      await workflow('listens', 'echo-step.mjs'),
    ];
    expect((await subscribe({ emitter_id: emitting, listener_id: listening })).status).toBe(200);
    const fromSource = await subscribe({ emitter_id: emitter.id, listener_id: listening });
    expect(fromSource.status).toBe(200);

    const runsOf = async (count: number): Promise<AnyJson[]> =>
      waitFor(async () => {
        const { body } = await h.request('GET', `/v1/workflows/${listening}/runs`);
        const done = body.data.filter((run: AnyJson) => run.status === 'succeeded');
        return done.length === count ? done : undefined;
      }, `${count} runs of the listening workflow`);
    await h.request('POST', `/v1/workflows/${emitting}/run`, { body: { event: { who: 'Ada' } } });
    const emitted = await runsOf(2);
    expect(emitted.map((run) => [run.trigger, run.steps[0].return_value]).reverse()).toEqual([
      ['emit', { hello: 'Ada' }],
      ['emit', { hello: 'Ada again' }],
    ]);
    await fetch(`${h.base}${h.endpoint(emitter.endpoint_url)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ order: 9 }),
    });
    expect((await runsOf(3))[0].steps[0].return_value).toEqual({ order: 9 });

    // A deleted workflow leaves no subscription behind.
    expect((await h.request('DELETE', `/v1/workflows/${listening}`)).status).toBe(204);
    const left = (await h.request('GET', '/v1/subscriptions')).body.data;
    expect(left.filter((row: AnyJson) => row.listener_id === listening)).toEqual([]);
  });
});

describe('bad subscriptions: a stable code, nothing stored', () => {
  const cases: [string, Record<string, string>, number, string, string][] = [
    [
      'both listeners',
      { listener_id: 'dc_x', listener_url: 'http://example.com' },
      400,
      'SUBSCRIPTION_INVALID',
      'not both',
    ],
    ['neither listener', {}, 400, 'SUBSCRIPTION_INVALID', 'listener_id'],
    [
      'a listener URL that is not http(s)',
      { listener_url: 'ftp://example.com/x' },
      400,
      'SUBSCRIPTION_INVALID',
      'http or https',
    ],
    ['a listener URL that is not a URL', { listener_url: 'nope' }, 400, 'SUBSCRIPTION_INVALID', 'not a valid URL'],
    ['an unknown listener source', { listener_id: 'dc_doesnotexist' }, 404, 'NOT_FOUND', 'dc_doesnotexist'],
    [
      'a listener id of no known kind',
      { listener_id: 'p_1234' },
      400,
      'SUBSCRIPTION_INVALID',
      'not a listener id (dc_…, wf_…)',
    ],
    [
      'a reserved channel',
      { listener_url: 'http://example.com', event_name: '$errors' },
      400,
      'SUBSCRIPTION_INVALID',
      '$errors',
    ],
  ];
  it.each(cases)('%s', async (_what, query, status, code, text) => {
    const before = (await h.request('GET', '/v1/subscriptions')).body.data.length;
    const response = await subscribe({ emitter_id: emitter.id, ...query });
    expect(response.status).toBe(status);
    expect(response.body.error.code).toBe(code);
    expect(response.body.error.message).toContain(text);
    expect((await h.request('GET', '/v1/subscriptions')).body.data).toHaveLength(before);
  });

  it('an emitter id of no known kind: 400 naming emitter_id', async () => {
    const response = await subscribe({ emitter_id: 'p_1234', listener_url: 'http://example.com' });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'SUBSCRIPTION_INVALID', details: { field: 'query.emitter_id' } });
  });

  it('an unknown emitter: 404 naming emitter_id', async () => {
    const response = await subscribe({ emitter_id: 'dc_doesnotexist', listener_url: 'http://example.com' });
    expect(response.status).toBe(404);
    expect(response.body.error).toMatchObject({ code: 'NOT_FOUND', details: { field: 'query.emitter_id' } });
  });

  it('a private listener URL when the server keeps to public addresses', async () => {
    const plain = await startHarness();
    try {
      const source = await plain.request('POST', '/v1/sources', {
        body: { component_code: fixture('delivery/emitter.mjs') },
      });
      const response = await plain.request(
        'POST',
        `/v1/subscriptions?emitter_id=${source.body.data.id}&listener_url=${encodeURIComponent('http://127.0.0.1:9/x')}`,
      );
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({
        code: 'SUBSCRIPTION_INVALID',
        details: { field: 'query.listener_url' },
      });
    } finally {
      await plain.close({ remove: true });
    }
  });

  it('a missing emitter_id: 400 VALIDATION_FAILED', async () => {
    const response = await h.request('POST', '/v1/subscriptions?listener_url=http://example.com');
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_FAILED');
  });
});

describe('the documented signature sample', () => {
  it('verifies the fixture delivery and refuses a changed body or an old timestamp', () => {
    const sample = JSON.parse(readFileSync(path.join(FIXTURES, 'delivery/verify-signature.fixture.json'), 'utf8')) as {
      secret: string;
      header: string;
      body: string;
    };
    expect(verifySignature(sample.header, sample.body, sample.secret, { nowS: 1_700_000_100 })).toBe(true);
    expect(
      verifySignature(sample.header, sample.body.replace('42', '43'), sample.secret, { nowS: 1_700_000_100 }),
    ).toBe(false);
    expect(verifySignature(sample.header, sample.body, sample.secret, { nowS: 1_700_001_000 })).toBe(false);
  });

  it('is in the OpenAPI document with the other subscription routes', async () => {
    const openapi = await h.request('GET', '/v1/openapi.json');
    expect(Object.keys(openapi.body.paths)).toEqual(
      expect.arrayContaining(['/v1/subscriptions', '/v1/subscriptions/{id}/deliveries', '/v1/sse/{channel}']),
    );
  });
});

describe('a crash between a commit and its hand-off to the listeners', () => {
  it('is made good at the next start from the emitter cursor, once per event and subscription', async () => {
    const receiver = await startReceiver([200]);
    const delivery = { retry: { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 100 }, maxSleepMs: 100 };
    const first = await startHarness({ allowPrivateUrls: true, delivery });
    let second: Harness | undefined;
    try {
      const source = await first.request('POST', '/v1/sources', {
        body: { component_code: fixture('delivery/emitter.mjs') },
      });
      const id = source.body.data.id as string;
      const endpoint = first.endpoint(source.body.data.configured_props.http.endpoint_url as string);
      // An event before the subscription is not the subscription's.
      await fetch(`${first.base}${endpoint}`, { method: 'POST', body: JSON.stringify({ order: 1 }) });
      await waitFor(
        async () => (await first.request('GET', `/v1/sources/${id}/event_summaries`)).body.data.length === 1,
        'the first event',
      );
      const created = await first.request(
        'POST',
        `/v1/subscriptions?emitter_id=${id}&listener_url=${encodeURIComponent(receiver.url)}`,
      );
      await fetch(`${first.base}${endpoint}`, { method: 'POST', body: JSON.stringify({ order: 2 }) });
      await waitFor(async () => receiver.requests.length === 1, 'the delivery of order 2');
      await first.close();
      // As if the process had died after the commit of order 2, before handing it over.
      const sqlite = openSqlite(first.dbFile);
      sqlite.prepare('DELETE FROM deliveries').run();
      const cursor = sqlite.prepare('SELECT last_event_id FROM emitter_cursors WHERE emitter_id = ?').get(id) as {
        last_event_id: string;
      };
      const [, before] = readRowsOf(sqlite, id);
      sqlite.prepare('UPDATE emitter_cursors SET last_event_id = ? WHERE emitter_id = ?').run(before, id);
      sqlite.close();
      expect(cursor.last_event_id).not.toBe(before);
      second = await startHarness({
        dataDir: first.dataDir,
        cacheDir: first.cacheDir,
        apiKey: first.key,
        allowPrivateUrls: true,
        delivery,
      });
      await waitFor(async () => receiver.requests.length === 2, 'the delivery handed over again');
      expect(JSON.parse(receiver.requests[1]?.body ?? '').event).toEqual({ order: 2 });
      const log = await second.request('GET', `/v1/subscriptions/${created.body.data.id}/deliveries`);
      expect(log.body.data).toHaveLength(1);
      // Another start hands nothing over twice.
      await second.close();
      second = await startHarness({
        dataDir: first.dataDir,
        cacheDir: first.cacheDir,
        apiKey: first.key,
        allowPrivateUrls: true,
        delivery,
      });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(receiver.requests).toHaveLength(2);
    } finally {
      await second?.close({ remove: true });
      await first.close({ remove: !second });
      await receiver.close();
    }
  });
});

describe('subscribing again after a gap', () => {
  it('hands over nothing committed while nobody listened, even across a restart', async () => {
    const receiver = await startReceiver([200]);
    const delivery = { maxSleepMs: 100 };
    const first = await startHarness({ allowPrivateUrls: true, delivery });
    let second: Harness | undefined;
    try {
      const source = await first.request('POST', '/v1/sources', {
        body: { component_code: fixture('delivery/emitter.mjs') },
      });
      const id = source.body.data.id as string;
      const endpoint = first.endpoint(source.body.data.configured_props.http.endpoint_url as string);
      const post = async (order: number) => {
        await fetch(`${first.base}${endpoint}`, { method: 'POST', body: JSON.stringify({ order }) });
        await waitFor(
          async () =>
            (await first.request('GET', `/v1/sources/${id}/event_summaries`)).body.data.some(
              (event: AnyJson) => event.event.order === order,
            ),
          `order ${order} to be committed`,
        );
      };
      const query = `emitter_id=${id}&listener_url=${encodeURIComponent(receiver.url)}`;
      await first.request('POST', `/v1/subscriptions?${query}`);
      await post(1);
      await waitFor(async () => receiver.requests.length === 1, 'order 1');
      await first.request('DELETE', `/v1/subscriptions?${query}`);
      await post(2);
      await post(3);
      await first.request('POST', `/v1/subscriptions?${query}`);
      await first.close();
      second = await startHarness({
        dataDir: first.dataDir,
        cacheDir: first.cacheDir,
        apiKey: first.key,
        allowPrivateUrls: true,
        delivery,
      });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(receiver.requests.map((request) => JSON.parse(request.body).event.order)).toEqual([1]);
    } finally {
      await second?.close({ remove: true });
      await first.close({ remove: !second });
      await receiver.close();
    }
  });
});

/** The source's event ids, newest first (order 2's, then order 1's). */
function readRowsOf(sqlite: ReturnType<typeof openSqlite>, sourceId: string): string[] {
  return (
    sqlite.prepare('SELECT id FROM events WHERE source_id = ? ORDER BY id DESC').all(sourceId) as { id: string }[]
  ).map((row) => row.id);
}
