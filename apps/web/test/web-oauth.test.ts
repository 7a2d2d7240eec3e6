/**
 * Connecting an OAuth account in Chromium through the web app (issue 12): the catalog screen finds
 * the app and shows the redirect URI; "Connect account" opens the provider's sign-in (a real
 * OAuth 2 / OpenID provider on loopback, oauth2-mock-server) in a new window, which comes back to
 * the server's callback page; the app's page then lists the account. A refused sign-in shows its
 * error code on both pages and adds no account.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OAuth2Server } from 'oauth2-mock-server';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mockIdpServerEnv } from '../../../tools/test-support/oauth-sign-in.js';
import {
  ensureWebBuilt,
  openSignedInPage,
  screenshotPath,
  startServer,
  type RunningServer,
  type SignedInBrowser,
} from './harness.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'tributary-web-oauth-'));
let provider: OAuth2Server;
let server: RunningServer;
let browser: SignedInBrowser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  ensureWebBuilt();
  provider = new OAuth2Server();
  await provider.issuer.keys.generate('RS256');
  await provider.start(0, '127.0.0.1');
  const issuer = provider.issuer.url ?? '';
  const oauth = {
    authorize_url: `${issuer}/authorize`,
    token_url: `${issuer}/token`,
    userinfo_url: `${issuer}/userinfo`,
  };
  server = await startServer({ env: mockIdpServerEnv(scratch, oauth, { id: 'web-client', secret: 'web-secret' }) });
  browser = await openSignedInPage(server);
  ({ context, page } = browser);
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await provider?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

async function accounts(): Promise<number> {
  const listed = await server.api<{ page_info: { total_count: number } }>('GET', '/v1/accounts?limit=100');
  return listed.body.page_info.total_count;
}

describe('connecting an OAuth account in the web app', { timeout: 90_000 }, () => {
  it('finds the app in the catalog and shows the redirect URI to copy', async () => {
    await page.goto(`${server.base}/apps`);
    await page.getByLabel(/Search \d+ apps/).fill('mock');
    await page.getByRole('link', { name: 'Mock IdP' }).click();
    await page.getByRole('heading', { name: 'Mock IdP' }).waitFor();
    expect(await page.getByTestId('redirect-uri').textContent()).toBe(`${server.base}/v1/oauth/callback`);
    // The client line comes from a query of its own that may answer after the heading: wait for it.
    await page.getByText('Client web-client, set in environment.').waitFor();
    expect(await page.getByText('Client web-client, set in environment.').count()).toBe(1);
  });

  it('signs in at the provider in a new window and lists the account', async () => {
    const popupOpened = context.waitForEvent('page');
    await page.getByRole('button', { name: 'Connect Mock IdP account' }).click();
    const popup = await popupOpened;
    await popup.getByTestId('oauth-result').waitFor();
    expect(await popup.getByTestId('oauth-result').textContent()).toBe('Account connected');
    await popup.screenshot({ path: screenshotPath('oauth-connected') });
    await popup.close();
    const row = page.getByRole('row', { name: /johndoe/ });
    await row.waitFor();
    expect(await row.textContent()).toContain('OK');
    await page.screenshot({ path: screenshotPath('app-accounts'), fullPage: true });
    const shown = await page.content();
    expect(shown).not.toContain('web-secret');
  });

  it('shows a refused sign-in with its code on both pages and adds no account', async () => {
    const before = await accounts();
    provider.service.once('beforeAuthorizeRedirect', (redirect: { url: URL }) => {
      redirect.url.searchParams.delete('code');
      redirect.url.searchParams.set('error', 'access_denied');
      redirect.url.searchParams.set('error_description', 'The user said no');
    });
    const popupOpened = context.waitForEvent('page');
    await page.getByRole('button', { name: 'Connect Mock IdP account' }).click();
    const popup = await popupOpened;
    await popup.getByTestId('oauth-error-code').waitFor();
    expect(await popup.getByTestId('oauth-error-code').textContent()).toBe('OAUTH_ACCESS_DENIED');
    await popup.close();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('OAUTH_ACCESS_DENIED');
    expect(await alert.textContent()).toContain('The user said no');
    expect(await accounts()).toBe(before);
  });
});
