/**
 * An account that needs reconnecting, in Chromium through the web app (issue 12): "Test" on the
 * app's page asks the provider for a new token, which it refuses (`invalid_grant`, from a provider
 * on loopback); the account row then says "Needs reconnect", and the source and the workflow that
 * use the account show a banner naming it, whose link leads to the app's page with "Reconnect".
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackProvider, type LoopbackProvider } from '../../../tools/test-support/loopback-oauth-provider.js';
import { followOAuthSignIn, mockIdpServerEnv } from '../../../tools/test-support/oauth-sign-in.js';
import {
  ensureWebBuilt,
  openSignedInPage,
  REPO,
  screenshotPath,
  startServer,
  type RunningServer,
  type SignedInBrowser,
} from './harness.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'tributary-web-reconnect-'));
const fixture = (name: string): string => readFileSync(path.join(REPO, 'fixtures/components', name), 'utf8');
let provider: LoopbackProvider;
let server: RunningServer;
let browser: SignedInBrowser;
let page: Page;
let accountId: string;
let sourceId: string;
let workflowId: string;

async function api<T>(method: string, route: string, body?: unknown): Promise<T> {
  const answer = await server.api<T>(method, route, body);
  if (answer.status >= 300) throw new Error(`${method} ${route}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/** Connects the account "Team mock" through the server's OAuth start URL, as a browser would. */
async function connectAccount(): Promise<string> {
  const started = await api<{ data: { state: string; start_url: string } }>('POST', '/v1/oauth/connect', {
    app: 'mockidp',
    name: 'Team mock',
  });
  expect(await followOAuthSignIn(started.data.start_url)).toBe(200);
  const attempt = await api<{ data: { account: string } }>('GET', `/v1/oauth/connect/${started.data.state}`);
  return attempt.data.account;
}

beforeAll(async () => {
  ensureWebBuilt();
  provider = await startLoopbackProvider();
  const oauth = { authorize_url: `${provider.url}/authorize`, token_url: `${provider.url}/token` };
  server = await startServer({ env: mockIdpServerEnv(scratch, oauth, { id: 'web-client', secret: 'web-secret' }) });
  provider.script.push({ kind: 'token', accessToken: 'first-access', refreshToken: 'first-refresh' });
  accountId = await connectAccount();
  const configured = { mockidp: { authProvisionId: accountId } };
  sourceId = (
    await api<{ data: { id: string } }>('POST', '/v1/sources', {
      name: 'mock-watch',
      component_code: fixture('server/oauth-whoami-source.mjs'),
      configured_props: configured,
    })
  ).data.id;
  await api('PUT', '/v1/components/oauth-token-length', {
    component_code: fixture('server/oauth-token-length-action.mjs'),
  });
  workflowId = (
    await api<{ data: { id: string } }>('POST', '/v1/workflows', {
      name: 'mock-measure',
      trigger: { type: 'manual' },
      steps: [{ name: 'measure', action: 'oauth-token-length', props: configured }],
    })
  ).data.id;
  browser = await openSignedInPage(server);
  page = browser.page;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await provider?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('an account that needs reconnecting, in the web app', { timeout: 90_000 }, () => {
  it('shows no banner while the account works', async () => {
    await page.goto(`${server.base}/sources/${sourceId}/events`);
    await page.getByRole('heading', { name: 'mock-watch' }).waitFor();
    expect(await page.getByTestId('reconnect-banner').count()).toBe(0);
  });

  it('"Test" on the app page reports the refused refresh and marks the account', async () => {
    provider.script.push({ kind: 'oauth-error', status: 400, error: 'invalid_grant' });
    await page.goto(`${server.base}/apps/mockidp`);
    await page.getByRole('button', { name: 'Test Team mock' }).click();
    const result = page.getByTestId(`account-test-${accountId}`);
    await result.waitFor();
    expect(await result.textContent()).toContain('ACCOUNT_NEEDS_RECONNECT');
    const row = page.getByTestId(`account-${accountId}`);
    await row.getByText('Needs reconnect', { exact: true }).waitFor();
    expect(await row.getByRole('button', { name: /Reconnect/ }).count()).toBe(1);
    expect(await page.content()).not.toContain('first-refresh');
  });

  it("shows a banner on the source's screen naming the account, linking to where it is reconnected", async () => {
    await page.goto(`${server.base}/sources/${sourceId}/events`);
    const banner = page.getByTestId('reconnect-banner');
    await banner.waitFor();
    expect(await banner.getAttribute('role')).toBe('alert');
    expect(await banner.textContent()).toContain('Team mock (mockidp) needs reconnecting');
    expect(await banner.textContent()).toContain('invalid_grant');
    await page.screenshot({ path: screenshotPath('source-reconnect-banner'), fullPage: true });
    await banner.getByRole('link', { name: 'Reconnect Team mock' }).click();
    await page.getByRole('heading', { name: 'Mock IdP' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/apps/mockidp');
    await page
      .getByTestId(`account-${accountId}`)
      .getByRole('button', { name: /Reconnect/ })
      .waitFor();
  });

  it("shows the banner on the workflow's screen too", async () => {
    await page.goto(`${server.base}/workflows/${workflowId}/builder`);
    const banner = page.getByTestId('reconnect-banner');
    await banner.waitFor();
    expect(await banner.textContent()).toContain('Team mock (mockidp) needs reconnecting');
  });
});
