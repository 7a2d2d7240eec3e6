/**
 * `$.send.*` delivered for real over POST /v1/actions/run (issue 10): each kind against a real
 * server the test starts on loopback (an HTTP receiver, smtp-server, s3rver, the SSE route),
 * retries with backoff, a restart in the middle of the retries, and bad destinations refused
 * with DESTINATION_INVALID and nothing stored.
 */
import { gunzipSync } from 'node:zlib';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3_BUCKET, startReceiver, startS3, startSmtp } from './delivery-servers.js';
import { fixture, readRows, startHarness, waitFor, type AnyJson, type Harness } from './server-harness.js';

const OWNER = 'owner@tributary.test';
const FAST_RETRY = { maxAttempts: 4, baseDelayMs: 150, maxDelayMs: 600 };

let h: Harness;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let s3: Awaited<ReturnType<typeof startS3>>;
const ids: Record<string, string> = {};

async function save(harness: Harness, name: string): Promise<string> {
  const saved = await harness.request('POST', '/v1/components', { body: { component_code: fixture(name) } });
  expect(saved.status).toBe(200);
  return saved.body.data.id as string;
}

async function delivery(harness: Harness, id: string): Promise<AnyJson> {
  const response = await harness.request('GET', `/v1/deliveries/${id}`);
  expect(response.status).toBe(200);
  return response.body.data;
}

const settled = (harness: Harness, id: string, status: string) =>
  waitFor(async () => {
    const record = await delivery(harness, id);
    return record.status === status ? record : undefined;
  }, `delivery ${id} to be ${status}`);

beforeAll(async () => {
  [smtp, s3] = await Promise.all([startSmtp(), startS3()]);
  h = await startHarness({
    allowPrivateUrls: true,
    delivery: {
      email: { smtpUrl: smtp.url, from: 'tributary@tributary.test', ownerEmail: OWNER },
      s3: {
        endpoint: s3.endpoint,
        region: 'us-east-1',
        accessKeyId: 'S3RVER',
        secretAccessKey: 'S3RVER',
        forcePathStyle: true,
      },
      retry: FAST_RETRY,
      maxSleepMs: 100,
    },
  });
  for (const name of ['send-http', 'send-email', 'send-s3', 'send-sse'])
    ids[name] = await save(h, `delivery/${name}.mjs`);
});

afterAll(async () => {
  await h?.close({ remove: true });
  await Promise.all([smtp?.close(), s3?.close()]);
});

describe('$.send.http', () => {
  it('is retried with backoff while the receiver answers 503, then delivered; the log keeps every attempt', async () => {
    const receiver = await startReceiver([503, 503, 200]);
    try {
      const run = await h.request('POST', '/v1/actions/run', {
        body: { id: ids['send-http'], configured_props: { url: `${receiver.url}/orders` } },
      });
      expect(run.status).toBe(200);
      const [send] = run.body.data.sends;
      // The answer waited for the first attempt: it failed and the next one is scheduled.
      expect(send.delivery).toMatchObject({ status: 'pending', attempts: 1, last_error: 'HTTP 503' });
      expect(send.config.headers).toEqual({ 'X-Api-Key': '[REDACTED]' });
      const done = await settled(h, send.delivery.id, 'delivered');
      expect(done.attempts).toBe(3);
      expect(done.log.map((entry: AnyJson) => [entry.ok, entry.detail])).toEqual([
        [false, 'HTTP 503'],
        [false, 'HTTP 503'],
        [true, 'HTTP 200'],
      ]);
      // Backoff: the second wait is at least the doubled base delay.
      expect(done.log[2].at - done.log[1].at).toBeGreaterThanOrEqual(FAST_RETRY.baseDelayMs * 2 - 20);
      expect(receiver.requests).toHaveLength(3);
      const last = receiver.requests[2];
      expect(last).toMatchObject({ method: 'POST', url: '/orders' });
      expect(last?.headers['x-api-key']).toBe('not-shown-in-the-report');
      expect(receiver.requests.map((request) => request.headers['x-tributary-delivery'])).toEqual(
        Array(3).fill(send.delivery.id),
      );
      expect(JSON.parse(last?.body ?? '')).toEqual({ order: 42, status: 'shipped' });
      // The secret header is sealed at rest, never stored in clear.
      const rows = readRows<{ config_sealed: string; config_shown: string }>(
        h.dbFile,
        'SELECT config_sealed, config_shown FROM deliveries WHERE id = ?',
        send.delivery.id,
      );
      expect(rows[0]?.config_sealed).not.toContain('not-shown-in-the-report');
      expect(rows[0]?.config_shown).not.toContain('not-shown-in-the-report');
    } finally {
      await receiver.close();
    }
  });

  it('fails at once on a 4xx the same request would get again', async () => {
    const receiver = await startReceiver([404]);
    try {
      const run = await h.request('POST', '/v1/actions/run', {
        body: { id: ids['send-http'], configured_props: { url: receiver.url } },
      });
      expect(run.body.data.sends[0].delivery).toMatchObject({ status: 'failed', attempts: 1, last_error: 'HTTP 404' });
      expect(receiver.requests).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });
});

describe('$.send.email', () => {
  it("is sent over SMTP to the owner's address from the operator's sender", async () => {
    const run = await h.request('POST', '/v1/actions/run', { body: { id: ids['send-email'] } });
    expect(run.status).toBe(200);
    expect(run.body.data.sends[0].delivery).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(smtp.mails).toHaveLength(1);
    const mail = smtp.mails[0];
    expect(mail?.from).toBe('tributary@tributary.test');
    expect(mail?.to).toEqual([OWNER]);
    expect(mail?.raw).toContain('Subject: Order 42 shipped');
    expect(mail?.raw).toContain('Order 42 left the warehouse.');
    expect(mail?.raw).toContain('<p>Order <b>42</b> left the warehouse.</p>');
    expect(mail?.raw).toContain(`X-Tributary-Delivery: ${run.body.data.sends[0].delivery.id}`);
  });
});

describe('$.send.email refused by the SMTP server', () => {
  it('retries a 451 (try later) and then sends; a 550 fails at once', async () => {
    const before = smtp.mails.length;
    smtp.refuse([451]);
    const retried = await h.request('POST', '/v1/actions/run', { body: { id: ids['send-email'] } });
    const { delivery: first } = retried.body.data.sends[0];
    expect(first).toMatchObject({ status: 'pending', attempts: 1 });
    expect(first.last_error).toContain('451');
    const done = await settled(h, first.id, 'delivered');
    expect(done.attempts).toBe(2);
    expect(smtp.mails).toHaveLength(before + 1);

    smtp.refuse([550]);
    const refused = await h.request('POST', '/v1/actions/run', { body: { id: ids['send-email'] } });
    const { delivery: second } = refused.body.data.sends[0];
    expect(second).toMatchObject({ status: 'failed', attempts: 1 });
    expect(second.last_error).toContain('550');
    expect(smtp.mails).toHaveLength(before + 1);
  });
});

describe('$.send.s3', () => {
  it('writes one gzip JSON-lines object under the prefix, named by time and delivery id', async () => {
    const run = await h.request('POST', '/v1/actions/run', {
      body: { id: ids['send-s3'], configured_props: { bucket: S3_BUCKET } },
    });
    expect(run.status).toBe(200);
    const send = run.body.data.sends[0];
    expect(send.delivery).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(send.config.key).toMatch(
      new RegExp(
        `^orders/\\d{4}/\\d{2}/\\d{2}/\\d{2}/\\d{4}-\\d{2}-\\d{2}-\\d{2}-\\d{2}-\\d{2}-${send.delivery.id}\\.gz$`,
      ),
    );
    const client = new S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    const listed = await client.send(new ListObjectsV2Command({ Bucket: S3_BUCKET, Prefix: 'orders/' }));
    expect(listed.Contents?.map((entry) => entry.Key)).toEqual([send.config.key]);
    const object = await client.send(new GetObjectCommand({ Bucket: S3_BUCKET, Key: send.config.key }));
    const bytes = Buffer.from(await object.Body!.transformToByteArray());
    expect(gunzipSync(bytes).toString('utf8')).toBe('{"order":42,"status":"shipped"}\n');
  });

  it('fails at once, naming the bucket, when the bucket does not exist', async () => {
    const run = await h.request('POST', '/v1/actions/run', {
      body: { id: ids['send-s3'], configured_props: { bucket: 'no-such-bucket' } },
    });
    const { delivery: record } = run.body.data.sends[0];
    expect(record).toMatchObject({ status: 'failed', attempts: 1 });
    expect(record.last_error).toContain('NoSuchBucket');
    expect(record.last_error).toContain('no-such-bucket');
  });
});

/** Reads an SSE response until `until` shows up in what arrived. */
async function readUntil(response: Response, until: string, timeoutMs = 10_000): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const deadline = Date.now() + timeoutMs;
  while (!text.includes(until)) {
    if (Date.now() > deadline) throw new Error(`no "${until}" in ${text}`);
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  reader.releaseLock();
  return text;
}

describe('$.send.sse and $.send.emit', () => {
  it('streams on GET /v1/sse/{channel} as `event: <channel>` frames and replays them to a later client', async () => {
    const controller = new AbortController();
    const live = await fetch(`${h.base}/v1/sse/orders`, {
      headers: { authorization: `Bearer ${h.key}` },
      signal: controller.signal,
    });
    expect(live.status).toBe(200);
    expect(live.headers.get('content-type')).toContain('text/event-stream');
    await readUntil(live, ':keepalive');
    const run = await h.request('POST', '/v1/actions/run', { body: { id: ids['send-sse'] } });
    const [sse, emit] = run.body.data.sends;
    expect(sse.delivery.status).toBe('delivered');
    // A standalone run has no subscribers: its emit is delivered to nobody, and says so.
    const emitted = await delivery(h, emit.delivery.id);
    expect(emitted.status).toBe('delivered');
    expect(emitted.log[0].detail).toContain('no subscribers');
    const frames = await readUntil(live, '"shipped"');
    expect(frames).toContain(`event: orders\nid: ${sse.delivery.id}\ndata: `);
    const data = JSON.parse(frames.slice(frames.indexOf('data: ') + 6).split('\n')[0] ?? '');
    expect(data).toMatchObject({
      id: sse.delivery.id,
      event: { order: 42, status: 'shipped' },
      metadata: { channel: 'orders' },
    });
    controller.abort();

    const later = new AbortController();
    const replay = await fetch(`${h.base}/sse/orders?token=${encodeURIComponent(h.key)}`, { signal: later.signal });
    expect(await readUntil(replay, sse.delivery.id)).toContain('"shipped"');
    later.abort();
  });

  it('needs an API key and a valid channel name', async () => {
    expect((await fetch(`${h.base}/v1/sse/orders`)).status).toBe(401);
    // Under /v1 the key never goes in the query string; the browser alias outside /v1 takes it.
    expect((await fetch(`${h.base}/v1/sse/orders?token=${encodeURIComponent(h.key)}`)).status).toBe(401);
    const bad = await fetch(`${h.base}/v1/sse/${encodeURIComponent('a b')}`, {
      headers: { authorization: `Bearer ${h.key}` },
    });
    expect(bad.status).toBe(400);
  });
});

describe('the example of docs/destinations.md', () => {
  it('delivers its POST (the API key header redacted in the report) and its SSE message', async () => {
    const receiver = await startReceiver([502, 200]);
    try {
      const id = await save(h, 'docs/destinations-action.mjs');
      const run = await h.request('POST', '/v1/actions/run', {
        body: { id, configured_props: { webhookUrl: `${receiver.url}/hooks/orders` } },
      });
      expect(run.status).toBe(200);
      expect(run.body.data.return_value).toBe('A-100');
      const [post, sse] = run.body.data.sends;
      expect(post).toMatchObject({
        kind: 'http',
        config: { headers: { 'X-Api-Key': '[REDACTED]' } },
        delivery: { status: 'pending', attempts: 1, last_error: 'HTTP 502' },
      });
      expect(sse).toMatchObject({ kind: 'sse', delivery: { status: 'delivered', attempts: 1 } });
      await settled(h, post.delivery.id, 'delivered');
      expect(receiver.requests.map((request) => request.answered)).toEqual([502, 200]);
      expect(post.delivery.run_id).toMatch(/^arun_/);
      const byRun = await h.request('GET', `/v1/deliveries?run_id=${post.delivery.run_id}`);
      expect(byRun.body.data.map((record: AnyJson) => [record.id, record.kind, record.status])).toEqual([
        [post.delivery.id, 'http', 'delivered'],
        [sse.delivery.id, 'sse', 'delivered'],
      ]);
      expect(JSON.parse(receiver.requests[1]?.body ?? '')).toEqual({ id: 'A-100', status: 'shipped' });
    } finally {
      await receiver.close();
    }
  });
});

describe('a bad destination', () => {
  let plain: Harness;
  beforeAll(async () => {
    // No SMTP or S3 settings, private addresses refused: the defaults of a fresh install.
    plain = await startHarness();
    for (const name of ['send-http', 'send-email', 'send-s3'])
      ids[`plain-${name}`] = await save(plain, `delivery/${name}.mjs`);
  });
  afterAll(async () => {
    await plain?.close({ remove: true });
  });

  const cases: [string, string, Record<string, unknown>, string, string][] = [
    ['a URL that is not http(s)', 'send-http', { url: 'ftp://example.com/x' }, 'sends.0.url', 'must be http or https'],
    ['a URL that is not a URL', 'send-http', { url: 'not a url' }, 'sends.0.url', 'is not a valid URL'],
    ['a loopback address', 'send-http', { url: 'http://127.0.0.1:9/x' }, 'sends.0.url', 'private or loopback'],
    ['email without SMTP settings', 'send-email', {}, 'sends.0.kind', 'TRIBUTARY_SMTP_URL'],
    ['s3 without an endpoint', 'send-s3', { bucket: S3_BUCKET }, 'sends.0.kind', 'TRIBUTARY_S3_ENDPOINT'],
  ];
  it.each(cases)(
    '%s: 400 DESTINATION_INVALID naming the field, nothing stored',
    async (_what, name, props, field, text) => {
      const run = await plain.request('POST', '/v1/actions/run', {
        body: { id: ids[`plain-${name}`], configured_props: props },
      });
      expect(run.status).toBe(400);
      expect(run.body.error.code).toBe('DESTINATION_INVALID');
      expect(run.body.error.details.field).toBe(field);
      expect(run.body.error.message).toContain(text);
      expect(readRows(plain.dbFile, 'SELECT id FROM deliveries')).toEqual([]);
    },
  );

  it('an s3 bucket name S3 refuses: 400 DESTINATION_INVALID', async () => {
    const run = await h.request('POST', '/v1/actions/run', {
      body: { id: ids['send-s3'], configured_props: { bucket: 'Bad_Bucket' } },
    });
    expect(run.status).toBe(400);
    expect(run.body.error).toMatchObject({ code: 'DESTINATION_INVALID', details: { field: 'sends.0.bucket' } });
  });
});

describe('a restart in the middle of the retries', () => {
  it('resumes the delivery from the table: the next attempt runs in the new process', async () => {
    const receiver = await startReceiver([503]);
    const first = await startHarness({
      allowPrivateUrls: true,
      delivery: { retry: { maxAttempts: 5, baseDelayMs: 400, maxDelayMs: 400 }, maxSleepMs: 100 },
    });
    let second: Harness | undefined;
    try {
      const id = await save(first, 'delivery/send-http.mjs');
      const run = await first.request('POST', '/v1/actions/run', {
        body: { id, configured_props: { url: receiver.url } },
      });
      const deliveryId = run.body.data.sends[0].delivery.id as string;
      expect(run.body.data.sends[0].delivery).toMatchObject({ status: 'pending', attempts: 1 });
      await first.close();
      const attemptsBefore = receiver.requests.length;
      receiver.answer([200]);
      second = await startHarness({
        dataDir: first.dataDir,
        cacheDir: first.cacheDir,
        apiKey: first.key,
        allowPrivateUrls: true,
        delivery: { retry: { maxAttempts: 5, baseDelayMs: 400, maxDelayMs: 400 }, maxSleepMs: 100 },
      });
      const done = await settled(second, deliveryId, 'delivered');
      expect(done.attempts).toBe(attemptsBefore + 1);
      expect(done.log.at(-1)).toMatchObject({ ok: true, detail: 'HTTP 200' });
      expect(receiver.requests.at(-1)?.answered).toBe(200);
    } finally {
      await second?.close({ remove: true });
      await first.close({ remove: !second });
      await receiver.close();
    }
  });
});
