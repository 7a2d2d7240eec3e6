/**
 * `GET /metrics` (docs/operations.md): a real server with Prometheus metrics on, scraped while HTTP
 * endpoints take real load, and its numbers read back the way a scraper reads them.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { parseExposition, valueOf, type Sample } from './prometheus-text.js';
import { fixture, openSqlite, queueIdle, REPO, startHarness, waitFor, type Harness } from './server-harness.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const harnesses: Harness[] = [];

afterAll(async () => {
  for (const harness of harnesses) await harness.close({ remove: true });
});

async function scrape(harness: Harness): Promise<Sample[]> {
  const response = await harness.request('GET', '/metrics');
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(response.text);
}

async function deploy(
  harness: Harness,
  code: string,
  props: Record<string, unknown> = {},
): Promise<{ id: string; endpoint_url: string }> {
  const deployed = await harness.request('POST', '/v1/sources', {
    body: { component_code: code, configured_props: props },
  });
  expect(deployed.status).toBe(200);
  return deployed.body.data as { id: string; endpoint_url: string };
}

function post(harness: Harness, endpointUrl: string, n: number): Promise<number> {
  return fetch(`${harness.base}${harness.endpoint(endpointUrl)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ n }),
  }).then(async (response) => {
    await response.text();
    return response.status;
  });
}

describe('GET /metrics', () => {
  it('counts requests, acknowledgements, queued work and invocations under real load', async () => {
    const harness = await startHarness({ metrics: true, startEngine: false });
    harnesses.push(harness);
    const source = await deploy(harness, fixture('server/http-capture.mjs'));

    // The runner is not started: every acknowledged request waits in the queue.
    const first = await Promise.all(Array.from({ length: 40 }, (_, n) => post(harness, source.endpoint_url, n)));
    expect(first.every((status) => status === 200)).toBe(true);
    const queued = await scrape(harness);
    expect(valueOf(queued, 'tributary_queue_depth', { kind: 'source' })).toBe(40);
    expect(valueOf(queued, 'tributary_queue_depth', { kind: 'workflow' })).toBe(0);
    expect(valueOf(queued, 'tributary_queue_oldest_age_seconds', { kind: 'source' })).toBeGreaterThan(0);
    expect(valueOf(queued, 'tributary_ingress_acknowledgements_total', { status: '200' })).toBe(40);
    expect(
      valueOf(queued, 'tributary_http_request_duration_seconds_count', { route: '/e/:endpointId', status: '200' }),
    ).toBe(40);

    // Now the runner drains while 40 more arrive, and the endpoint is scraped all along. The
    // endpoint's rate limit (bursts of 50) refuses some of them with 429: counted apart.
    await harness.engine.start();
    const scrapes: Promise<Sample[]>[] = [];
    const load: Promise<number>[] = [];
    for (let n = 40; n < 80; n += 1) {
      load.push(post(harness, source.endpoint_url, n));
      if (n % 8 === 0) scrapes.push(scrape(harness));
    }
    const statuses = await Promise.all(load);
    const accepted = statuses.filter((status) => status === 200).length;
    expect(statuses.filter((status) => status !== 200 && status !== 429)).toEqual([]);
    expect(accepted).toBeGreaterThan(0);
    const during = await Promise.all(scrapes);
    // The acknowledgement counter only grows, scrape after scrape.
    const acks = during.map((samples) => valueOf(samples, 'tributary_ingress_acknowledgements_total'));
    expect(acks).toEqual([...acks].sort((a, b) => a - b));

    await queueIdle(harness, source.id);
    const after = await scrape(harness);
    expect(valueOf(after, 'tributary_ingress_acknowledgements_total', { status: '200' })).toBe(40 + accepted);
    expect(valueOf(after, 'tributary_ingress_acknowledgements_total', { status: '429' })).toBe(40 - accepted);
    expect(valueOf(after, 'tributary_invocation_duration_seconds_count', { kind: 'source', outcome: 'success' })).toBe(
      40 + accepted,
    );
    expect(valueOf(after, 'tributary_invocation_duration_seconds_sum', { kind: 'source' })).toBeGreaterThan(0);
    expect(valueOf(after, 'tributary_queue_depth', { kind: 'source' })).toBe(0);
    expect(valueOf(after, 'tributary_queue_oldest_age_seconds', { kind: 'source' })).toBe(0);
    expect(valueOf(after, 'tributary_sandbox_worker_starts_total')).toBeGreaterThanOrEqual(1);
    expect(valueOf(after, 'tributary_sandbox_workers')).toBeGreaterThanOrEqual(1);
    expect(valueOf(after, 'tributary_sandbox_memory_bytes')).toBeGreaterThan(1024 * 1024);
    // The request metric names route patterns, never an endpoint id.
    const endpointId = source.endpoint_url.split('/e/')[1] ?? '';
    expect(after.some((sample) => Object.values(sample.labels).some((value) => value.includes(endpointId)))).toBe(
      false,
    );
    expect(
      valueOf(after, 'tributary_http_request_duration_seconds_count', { route: '/v1/sources', method: 'POST' }),
    ).toBe(1);
    // The event loop's delay, from Node's own monitor.
    expect(after.some((sample) => sample.name === 'tributary_nodejs_eventloop_lag_p99_seconds')).toBe(true);
  });

  it('counts open SSE clients, timer drift and crashed workers', async () => {
    const harness = await startHarness({ metrics: true });
    harnesses.push(harness);
    const source = await deploy(harness, fixture('server/http-capture.mjs'));

    const abort = new AbortController();
    const stream = await fetch(`${harness.base}/sources/${source.id}/sse?token=${harness.key}`, {
      signal: abort.signal,
    });
    expect(stream.status).toBe(200);
    const reader = stream.body?.getReader();
    await reader?.read();
    expect(valueOf(await scrape(harness), 'tributary_sse_clients')).toBe(1);
    abort.abort();
    await waitFor(
      async () => valueOf(await scrape(harness), 'tributary_sse_clients') === 0,
      'the SSE client to be gone',
    );

    // A timer source whose tick is ten minutes overdue (as after a downtime) fires that late.
    const timer = await deploy(harness, fixture('f03-tick.mjs'), { timer: { intervalSeconds: 60 } });
    const sqlite = openSqlite(harness.dbFile);
    try {
      sqlite.prepare('UPDATE sources SET next_fire_at = ? WHERE id = ?').run(Date.now() - 600_000, timer.id);
    } finally {
      sqlite.close();
    }
    harness.engine.scheduler.wake();
    const drift = await waitFor(async () => {
      const samples = await scrape(harness);
      return valueOf(samples, 'tributary_timer_drift_seconds_count') >= 1 ? samples : undefined;
    }, 'the late tick');
    expect(valueOf(drift, 'tributary_timer_drift_seconds_sum')).toBeGreaterThanOrEqual(600);

    // An action that ends its own process: its worker counts as crashed.
    const saved = await harness.request('POST', '/v1/components', {
      body: { component_code: readFileSync(path.join(REPO, 'fixtures/components/hostile/process-exit.mjs'), 'utf8') },
    });
    expect(saved.status).toBe(200);
    const run = await harness.request('POST', '/v1/actions/run', { body: { id: saved.body.data.id } });
    expect(run.status).toBe(200);
    expect(run.body.data.ok).toBe(false);
    await waitFor(
      async () => valueOf(await scrape(harness), 'tributary_sandbox_worker_exits_total', { reason: 'crashed' }) >= 1,
      'the crash to be counted',
    );
  });

  it('takes the API key unless the operator opens it, and is absent when metrics are off', async () => {
    const closed = await startHarness({ metrics: true, startEngine: false });
    harnesses.push(closed);
    const refused = await closed.request('GET', '/metrics', { key: null });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('UNAUTHORIZED');
    expect((await closed.request('GET', '/metrics', { key: 'trb_not_a_key_at_all_0000' })).status).toBe(401);

    const open = await startHarness({ metrics: true, metricsPublic: true, startEngine: false });
    harnesses.push(open);
    const scraped = await open.request('GET', '/metrics', { key: null });
    expect(scraped.status).toBe(200);
    expect(valueOf(parseExposition(scraped.text), 'tributary_queue_depth', { kind: 'source' })).toBe(0);

    const off = await startHarness({ startEngine: false });
    harnesses.push(off);
    const absent = await off.request('GET', '/metrics');
    expect(absent.status).toBe(404);
    expect(absent.body.error).toEqual({ code: 'NOT_FOUND', message: expect.stringContaining('metrics are off') });
  });
});
