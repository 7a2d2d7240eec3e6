/**
 * Issue 15 item 3 in a real browser: signing in with the keyboard trades the API key for an
 * HttpOnly session cookie, so a new tab and a reload stay signed in, live events arrive over SSE
 * on the cookie alone, and signing out in one tab signs every tab out. At 1280x800 and 390x844.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureWebBuilt, launchBrowser, startServer, type RunningServer } from './harness.js';

const FIXTURES = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures');

let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  ensureWebBuilt();
  server = await startServer();
  browser = await launchBrowser();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** Presses Tab until the focus is on `selector` (at most 30 times). */
async function tabTo(page: Page, selector: string): Promise<void> {
  for (let presses = 0; presses < 30; presses += 1) {
    if (await page.evaluate((wanted) => document.activeElement?.matches(wanted) ?? false, selector)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${selector}`);
}

async function signInWithKeyboard(page: Page): Promise<void> {
  await page.goto(`${server.base}/sources`);
  await page.waitForURL(/\/sign-in\?next=%2Fsources$/);
  await tabTo(page, '#api-key');
  await page.keyboard.type(server.key);
  await page.keyboard.press('Enter');
  await page.waitForURL(`${server.base}/sources`);
}

const noSidewaysScroll = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
]) {
  describe(`browser session at ${viewport.width}x${viewport.height}`, { timeout: 90_000 }, () => {
    let context: BrowserContext;

    beforeAll(async () => {
      context = await browser.newContext({ viewport });
      context.setDefaultTimeout(20_000);
    });

    afterAll(async () => {
      await context?.close();
    });

    it('signs in with the keyboard into an HttpOnly SameSite=Strict cookie, never keeping the key in the page', async () => {
      const page = await context.newPage();
      await signInWithKeyboard(page);
      const cookies = await context.cookies();
      expect(
        cookies.map(({ name, httpOnly, sameSite, path: cookiePath }) => ({ name, httpOnly, sameSite, cookiePath })),
      ).toEqual([{ name: 'tributary_session', httpOnly: true, sameSite: 'Strict', cookiePath: '/' }]);
      expect(cookies[0]!.value).not.toContain(server.key);
      expect(cookies[0]!.expires * 1000 - Date.now()).toBeGreaterThan(6 * 24 * 3600 * 1000);
      expect(await page.evaluate(() => document.cookie)).toBe('');
      const stored = await page.evaluate(() => JSON.stringify({ ...sessionStorage, ...localStorage }));
      expect(stored).not.toContain(server.key);
      expect(await noSidewaysScroll(page)).toBe(true);
      await page.close();
    });

    it('stays signed in in a new tab and after a reload, and gets live events over SSE with the cookie', async () => {
      const deployed = await server.api<{ data: { id: string; endpoint_url: string } }>('POST', '/v1/sources', {
        component_code: readFileSync(path.join(FIXTURES, 'web-greeter.mjs'), 'utf8'),
        name: `session greeter ${viewport.width}`,
      });
      expect(deployed.status).toBe(200);
      const { id, endpoint_url: endpointUrl } = deployed.body.data;
      const tab = await context.newPage();
      await tab.goto(`${server.base}/sources/${id}/events`);
      await tab.getByText('Live', { exact: true }).waitFor();
      expect(tab.url()).toBe(`${server.base}/sources/${id}/events`);
      await tab.reload();
      await tab.getByText('Live', { exact: true }).waitFor();
      expect(tab.url()).toBe(`${server.base}/sources/${id}/events`);
      const name = `tab${viewport.width}`;
      const response = await fetch(endpointUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name }),
      });
      expect(response.status).toBe(200);
      await tab.getByRole('button', { name: new RegExp(`Hello, ${name}`) }).waitFor({ timeout: 15_000 });
      expect(await noSidewaysScroll(tab)).toBe(true);
      await tab.close();
    });

    it('signs out from the keyboard in one tab, and the other tab is signed out too', async () => {
      const first = await context.newPage();
      const second = await context.newPage();
      await first.goto(`${server.base}/sources`);
      await second.goto(`${server.base}/sources`);
      await second.getByRole('button', { name: 'Sign out' }).waitFor();
      await first.bringToFront();
      await tabTo(first, '.topbar-end button');
      await first.keyboard.press('Enter');
      await first.getByRole('heading', { name: 'Sign in' }).waitFor();
      expect((await context.cookies()).filter((cookie) => cookie.name === 'tributary_session')).toEqual([]);
      await second.bringToFront();
      await second.reload();
      await second.waitForURL(/\/sign-in\?next=%2Fsources$/);
      await first.close();
      await second.close();
    });
  });
}
