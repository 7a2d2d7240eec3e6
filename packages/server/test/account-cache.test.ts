/**
 * What runs read of accounts and the app catalog is kept in memory on SQLite (AccountCache): each
 * run here comes after a write that changes what the previous run saw, so a run that got the
 * earlier answer from memory fails the test. Real server, real SQLite file, real sandbox workers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, logMessages, queueIdle, startHarness, type Harness } from './server-harness.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.close({ remove: true });
});

async function deploy(code: string, configured: Record<string, unknown>): Promise<string> {
  const deployed = await h.request('POST', '/v1/sources', {
    body: { component_code: code, configured_props: configured },
  });
  expect(deployed.status, deployed.text).toBe(200);
  return deployed.body.data.id as string;
}

/** Runs the source once and waits for the run to commit; returns the events of its runs so far, oldest first. */
async function run(sourceId: string): Promise<{ auth: Record<string, unknown> | null }[]> {
  expect((await h.request('POST', `/v1/sources/${sourceId}/run`, { body: {} })).status).toBe(202);
  await queueIdle(h, sourceId);
  const events = await h.request('GET', `/v1/sources/${sourceId}/event_summaries?expand=event&limit=100`);
  return (events.body.data as { event: { auth: Record<string, unknown> | null } }[])
    .map((entry) => entry.event)
    .reverse();
}

describe('accounts kept in memory between runs', () => {
  it('gives a run no account once the account it ran with was deleted', async () => {
    const created = await h.request('POST', '/v1/accounts', {
      body: { app: 'acme', fields: { api_key: 'cached-token-0123456789' } },
    });
    expect(created.status, created.text).toBe(201);
    const accountId = created.body.data.id as string;
    const sourceId = await deploy(fixture('server/acme-auth-source.mjs'), { acme: { authProvisionId: accountId } });
    expect((await run(sourceId)).at(-1)?.auth).toMatchObject({ api_key: 'cached-token-0123456789' });
    expect((await run(sourceId)).at(-1)?.auth).toMatchObject({ api_key: 'cached-token-0123456789' });

    // It ran with the account twice, so the account was in memory; the run after the delete lacks it.
    expect((await h.request('DELETE', `/v1/accounts/${accountId}`)).status).toBe(200);
    expect(await run(sourceId)).toHaveLength(2);
    expect((await logMessages(h, sourceId)).join('\n')).toContain('app prop "acme" needs a connected account');
  });
});

describe('app auth modes kept in memory between runs', () => {
  it('follows the catalog entry of an app as it is changed between runs', async () => {
    const sourceId = await deploy(fixture('server/catalog-app-source.mjs'), {});
    const notice = 'app "cachewidgets" (prop "widgets") is not in the app catalog';
    const notices = async (): Promise<number> =>
      (await logMessages(h, sourceId)).filter((line) => line.includes(notice)).length;
    // Not in the catalog: the deploy and activate hooks and each run go with an empty $auth, and say so.
    expect(await run(sourceId)).toEqual([{ auth: {} }]);
    expect(await run(sourceId)).toHaveLength(2);
    expect(await notices()).toBe(4);

    // Added with credentials: a run now needs an account, which the source has not got.
    const keys = await h.request('PUT', '/v1/apps/cachewidgets', {
      body: { name: 'Cache widgets', auth_type: 'keys', fields: [{ name: 'token', label: 'Token', secret: true }] },
    });
    expect(keys.status, keys.text).toBe(201);
    expect(await run(sourceId)).toHaveLength(2);
    const afterKeys = await logMessages(h, sourceId);
    expect(afterKeys.join('\n')).toContain('app prop "widgets" needs a connected account for app "cachewidgets"');

    // Replaced by an entry without credentials: runs go on without an account, and without the notice.
    const none = await h.request('PUT', '/v1/apps/cachewidgets', {
      body: { name: 'Cache widgets', auth_type: 'none', fields: [] },
    });
    expect(none.status, none.text).toBe(200);
    expect(await run(sourceId)).toHaveLength(3);
    expect(await notices()).toBe(4);
  });
});
