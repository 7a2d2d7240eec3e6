/**
 * An action run and a workflow step whose account needs reconnecting (the provider refused its
 * refresh with `invalid_grant`) fail with ACCOUNT_NEEDS_RECONNECT naming the account, before the
 * component gets control (the action run answers 409, the workflow run records the step's error); the account lists the workflow in `used_by`. The provider is on loopback.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startLoopbackProvider, type LoopbackProvider } from '../../../tools/test-support/loopback-oauth-provider.js';
import { fixture, startHarness, waitFor, type AnyJson, type Harness } from './server-harness.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

let provider: LoopbackProvider;
let h: Harness;
let accountId: string;
let actionId: string;

beforeAll(async () => {
  provider = await startLoopbackProvider();
  h = await startHarness({
    env: { TRIBUTARY_OAUTH_MOCKIDP_CLIENT_ID: 'runs-client', TRIBUTARY_OAUTH_MOCKIDP_CLIENT_SECRET: 'runs-secret' },
  });
  const put = await h.request('PUT', '/v1/apps/mockidp', {
    body: {
      name: 'Mock IdP',
      auth_type: 'oauth2',
      fields: [],
      oauth: { authorize_url: `${provider.url}/authorize`, token_url: `${provider.url}/token` },
    },
  });
  expect(put.status).toBe(201);
  const published = await h.request('PUT', '/v1/components/oauth-token-length', {
    body: { component_code: fixture('server/oauth-token-length-action.mjs') },
  });
  expect(published.status).toBeLessThan(300);
  actionId = published.body.data.id as string;
  // A token that expired; the provider no longer accepts its refresh token.
  const row = await h.engine.accounts.saveOAuth({
    app: 'mockidp',
    name: 'Revoked account',
    tokens: {
      accessToken: 'expired',
      refreshToken: 'revoked',
      expiresAt: Date.now() - 1000,
      scopes: [],
      subject: null,
    },
    uid: null,
    reconnect: null,
  });
  accountId = row.id;
  provider.script.push({ kind: 'oauth-error', status: 400, error: 'invalid_grant' });
});

afterAll(async () => {
  await h?.close({ remove: true });
  await provider?.close();
});

const named = (message: string): void => {
  expect(message).toContain(`account ${accountId} ("Revoked account", app mockidp) needs reconnecting`);
  expect(message).toContain(`tributary accounts connect mockidp --account ${accountId}`);
};

describe('runs on an account that needs reconnecting', () => {
  it('refuses an action run with 409 ACCOUNT_NEEDS_RECONNECT naming the account', async () => {
    const run = await h.request('POST', '/v1/actions/run', {
      body: { id: actionId, configured_props: { mockidp: { authProvisionId: accountId } } },
    });
    // The run cannot start: the answer is the account's error (409), not a run report.
    expect(run.status).toBe(409);
    expect(run.body.error).toMatchObject({
      code: 'ACCOUNT_NEEDS_RECONNECT',
      details: { account: accountId, app: 'mockidp' },
    });
    named(run.body.error.message);
    expect((await h.request('GET', `/v1/accounts/${accountId}`)).body.data.status).toBe('needs_reconnect');
  });

  it('fails the workflow step with ACCOUNT_NEEDS_RECONNECT naming the account, without asking the provider', async () => {
    const created = await h.request('POST', '/v1/workflows', {
      body: {
        name: 'token length',
        trigger: { type: 'manual' },
        steps: [{ name: 'measure', action: 'oauth-token-length', props: { mockidp: { authProvisionId: accountId } } }],
      },
    });
    expect(created.status).toBe(201);
    const workflowId = created.body.data.id as string;
    const asked = provider.tokenRequests.length;
    const started = await h.request('POST', `/v1/workflows/${workflowId}/run`, { body: { event: {} } });
    expect(started.status).toBe(202);
    const run: AnyJson = await waitFor(
      async () => {
        const { body } = await h.request('GET', `/v1/workflow-runs/${started.body.data.run_id}`);
        return ['succeeded', 'exited', 'failed', 'cancelled'].includes(body?.data?.status) ? body.data : undefined;
      },
      'the workflow run to finish',
      60_000,
    );
    expect(run.status).toBe('failed');
    expect(run.steps[0]).toMatchObject({ name: 'measure', error: { code: 'ACCOUNT_NEEDS_RECONNECT' } });
    named(run.steps[0].error.message);
    expect(provider.tokenRequests.length).toBe(asked);
    const account = await h.request('GET', `/v1/accounts/${accountId}`);
    expect(account.body.data.used_by).toEqual([{ id: workflowId, name: 'token length' }]);
  });
});
