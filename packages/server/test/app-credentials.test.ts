/**
 * App props without a connected account on the server (issue 11): an app the catalog says takes no
 * credentials runs with an empty `$auth`, one the catalog does not know runs the same way with a
 * warning in the run's and the source's logs, and one that needs credentials is refused (400).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, queueIdle, snapshot, startHarness, waitFor, type Harness } from './server-harness.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.close({ remove: true });
});

async function save(name: string): Promise<string> {
  const saved = await h.request('POST', '/v1/components', { body: { component_code: fixture(`compat/${name}`) } });
  expect(saved.status).toBeLessThan(300);
  return saved.body.data.id as string;
}

describe('app props without a connected account', () => {
  it('runs an action of a no-credential app with an empty $auth and no warning', async () => {
    const id = await save('no-credential-app.mjs');
    const run = await h.request('POST', '/v1/actions/run', { body: { id, configured_props: { text: 'abc' } } });
    expect(run.status).toBe(200);
    expect(run.body.data).toMatchObject({ ok: true, return_value: { upper: 'ABC', authKeys: [] }, logs: [] });
  });

  it('runs an action of an unknown app with a warning naming the app and how to give credentials', async () => {
    const id = await save('unknown-app.mjs');
    const run = await h.request('POST', '/v1/actions/run', { body: { id } });
    expect(run.status).toBe(200);
    expect(run.body.data.return_value).toEqual({ auth: {} });
    expect(run.body.data.logs).toEqual([
      expect.objectContaining({ level: 'warn', message: expect.stringContaining('app "weather_widget"') }),
    ]);
    expect(run.body.data.logs[0].message).toContain('connect an account of "weather_widget"');
  });

  it('deploys a source of an unknown app: its runs get an empty $auth and its logs the warning', async () => {
    const deployed = await h.request('POST', '/v1/sources', {
      body: { component_code: fixture('compat/unknown-app-source.mjs') },
    });
    expect(deployed.status).toBe(200);
    const sourceId = deployed.body.data.id as string;
    expect((await h.request('POST', `/v1/sources/${sourceId}/run`, { body: {} })).status).toBe(202);
    const event = await waitFor(async () => {
      const events = await h.request('GET', `/v1/sources/${sourceId}/event_summaries?expand=event`);
      return events.body.data[0]?.event;
    }, 'the run to emit');
    expect(event).toEqual({ auth: {} });
    await queueIdle(h, sourceId);
    const logs = await h.request('GET', `/v1/sources/${sourceId}/logs?limit=100`);
    expect(logs.body.data.map((entry: { message: string }) => entry.message).join('\n')).toContain(
      'app "weather_widget" (prop "weather") is not in the app catalog',
    );
  });

  it('refuses an app that needs credentials without an account (400 PROP_REQUIRED), changing nothing', async () => {
    const id = await save('needs-credentials.mjs');
    const before = await snapshot(h);
    const run = await h.request('POST', '/v1/actions/run', { body: { id } });
    expect(run.status).toBe(400);
    expect(run.body.error.code).toBe('PROP_REQUIRED');
    expect(run.body.error.message).toContain('app prop "github" needs a connected account for app "github"');
    expect(await snapshot(h)).toEqual(before);
  });
});
