/**
 * The sources list beyond the API's first page of 100 (issue 15): every source is listed and
 * found by search, with the keyboard, at 1280x800 and 390x844.
 */
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureWebBuilt, launchBrowser, signInPage, startServer, tabUntil, type RunningServer } from './harness.js';

const SOURCES = 105;
// An HTTP source with nothing to configure: the quickest deploy there is.
const CODE = `export default {
  key: "paging-test", name: "Paging", version: "0.0.1", type: "source",
  props: { http: { type: "$.interface.http" } },
  async run(event) { this.$emit(event.body ?? null); },
};
`;

let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  ensureWebBuilt();
  server = await startServer();
  for (let index = 0; index < SOURCES; index += 1) {
    const deployed = await server.api('POST', '/v1/sources', {
      component_code: CODE,
      // One word: the search matches each word anywhere in the name, id or endpoint URL, and a
      // random id or URL holds "000" often enough to find a second source.
      name: `paged-${String(index).padStart(3, '0')}`,
    });
    expect(deployed.status).toBe(200);
  }
  browser = await launchBrowser();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
]) {
  describe(`sources list at ${viewport.width}x${viewport.height}`, { timeout: 90_000 }, () => {
    let context: BrowserContext;

    beforeAll(async () => {
      context = await browser.newContext({ viewport });
      context.setDefaultTimeout(20_000);
    });

    afterAll(async () => {
      await context?.close();
    });

    it('lists all 105 sources, past the first page of 100, and finds the oldest by search', async () => {
      const page = await context.newPage();
      await signInPage(page, server);
      await page.goto(`${server.base}/sources`);
      const rows = page.locator('tr', { hasText: /paged-\d{3}/ });
      await expect.poll(() => rows.count()).toBe(SOURCES);
      await tabUntil(page, 'the search box', `el?.getAttribute('aria-label') === 'Search sources'`);
      await page.keyboard.type('paged-000');
      await expect.poll(() => rows.count()).toBe(1);
      expect(await rows.first().textContent()).toContain('paged-000');
      await page.close();
    });
  });
}
