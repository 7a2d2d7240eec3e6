/**
 * Replay of an event from the events tab (issue 15), with the keyboard, at 1280x800 and 390x844:
 * the source runs again with the event's payload as its input, and the new event arrives live.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureWebBuilt, launchBrowser, signInPage, startServer, tabUntil, type RunningServer } from './harness.js';

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

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
]) {
  describe(`event replay at ${viewport.width}x${viewport.height}`, { timeout: 90_000 }, () => {
    let context: BrowserContext;

    beforeAll(async () => {
      context = await browser.newContext({ viewport });
      context.setDefaultTimeout(20_000);
    });

    afterAll(async () => {
      await context?.close();
    });

    it("re-runs the source with an event's payload from the keyboard, and the new event arrives live", async () => {
      const page = await context.newPage();
      await signInPage(page, server);
      const deployed = await server.api<{ data: { id: string; endpoint_url: string } }>('POST', '/v1/sources', {
        component_code: readFileSync(path.join(FIXTURES, 'web-greeter.mjs'), 'utf8'),
        name: `replay ${viewport.width}`,
      });
      expect(deployed.status).toBe(200);
      const { id, endpoint_url: endpointUrl } = deployed.body.data;
      const name = `Ada${viewport.width}`;
      const sent = await fetch(endpointUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name }),
      });
      expect(sent.status).toBe(200);
      await page.goto(`${server.base}/sources/${id}/events`);
      const events = page.getByRole('button', { name: new RegExp(`Hello, ${name}`) });
      await events.first().waitFor();
      await tabUntil(page, 'the event', `el?.textContent?.includes(${JSON.stringify(`Hello, ${name}`)})`);
      await page.keyboard.press('Enter');
      await tabUntil(page, 'Replay', `el?.tagName === 'BUTTON' && el.textContent.trim() === 'Replay'`);
      await page.keyboard.press('Enter');
      await page.locator('.toasts', { hasText: /Replaying event .*: run queued as inv_/ }).waitFor();
      await expect.poll(() => events.count(), { timeout: 20_000 }).toBe(2);
      const listed = await server.api<{ data: { event: { body: unknown } }[] }>(
        'GET',
        `/v1/sources/${id}/event_summaries?expand=event`,
      );
      expect(listed.body.data.map((event) => event.event.body)).toEqual([{ name }, { name }]);
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth),
      ).toBe(true);
      await page.close();
    });
  });
}
