/**
 * Issue 15 items 6 and 1 in a real browser, at 1280x800 and 390x844, with the keyboard only:
 * every invalid field is flagged at once after a refused deploy, and a code edit on the
 * Configuration tab reloads the props form before saving (new fields shown, values kept).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ensureWebBuilt,
  launchBrowser,
  screenshotPath,
  signedInContext,
  startServer,
  tabUntil,
  type RunningServer,
} from './harness.js';

const FIXTURES = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures');
const code = (name: string) => readFileSync(path.join(FIXTURES, name), 'utf8');

let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  ensureWebBuilt();
  server = await startServer();
  const published = await server.api('PUT', '/v1/components/web-test-required', {
    component_code: code('web-required.mjs'),
  });
  expect([200, 201]).toContain(published.status);
  browser = await launchBrowser();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** Tabs to the control whose label starts with `label`. */
const tabToLabel = (page: Page, label: string) =>
  tabUntil(page, label, `(el?.labels?.[0]?.textContent ?? '').trim().startsWith(${JSON.stringify(label)})`);

const tabToButton = (page: Page, name: string) =>
  tabUntil(page, name, `el?.tagName === 'BUTTON' && el.textContent.trim() === ${JSON.stringify(name)}`);

const noSidewaysScroll = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
]) {
  describe(`props form at ${viewport.width}x${viewport.height}`, { timeout: 90_000 }, () => {
    let context: BrowserContext;
    let page: Page;

    beforeAll(async () => {
      ({ context, page } = await signedInContext(browser, server, viewport));
    });

    afterAll(async () => {
      await context?.close();
    });

    it('flags every invalid field at once when a deploy is refused, and deploys once they are fixed', async () => {
      await page.goto(`${server.base}/sources/new?action=create&key=web-test-required`);
      await page.getByLabel('Limit').waitFor();
      await tabToLabel(page, 'Limit');
      await page.keyboard.type('99');
      await tabToButton(page, 'Deploy');
      await page.keyboard.press('Enter');
      const channelError = page.locator('.field[data-prop="channel"] .field-error');
      const limitError = page.locator('.field[data-prop="limit"] .field-error');
      await expect.poll(() => channelError.textContent()).toBe('prop "channel" is required (string)');
      expect(await limitError.textContent()).toBe('prop "limit" must be <= 10, got 99');
      expect(await page.locator('[aria-invalid="true"]').count()).toBe(2);
      expect(await page.locator('.field[data-prop="prefix"] .field-error').textContent()).toBe('');
      expect(await noSidewaysScroll(page)).toBe(true);
      if (viewport.width === 1280) await page.screenshot({ path: screenshotPath('props-every-error') });

      // Fixing one field clears its flag only; the other stays until it is fixed too.
      await tabToLabel(page, 'Channel');
      await page.keyboard.type('#general');
      await expect.poll(() => channelError.textContent()).toBe('');
      expect(await limitError.textContent()).toBe('prop "limit" must be <= 10, got 99');
      await tabToLabel(page, 'Limit');
      await page.keyboard.press('Control+A');
      await page.keyboard.type('5');
      await tabToButton(page, 'Deploy');
      await page.keyboard.press('Enter');
      await page.waitForURL(/\/sources\/dc_[^/]+/);
    });

    it('reloads the form after a code edit on the Configuration tab: new fields before saving, values kept', async () => {
      const deployed = await server.api<{ data: { id: string } }>('POST', '/v1/sources', {
        component_code: code('web-required.mjs'),
        name: `config reload ${viewport.width}`,
        configured_props: { channel: '#ops', limit: 3, prefix: 'old' },
      });
      expect(deployed.status).toBe(200);
      const id = deployed.body.data.id;
      await page.goto(`${server.base}/sources/${id}/configuration`);
      await page.getByLabel('Limit').waitFor();
      // The configuration's own Code toggle: the Subscribers card above the tabs has a summary too.
      await tabUntil(page, 'the Code toggle', `el?.tagName === 'SUMMARY' && el.closest('.code-editor') !== null`);
      await page.keyboard.press('Enter');
      await page.locator('.code-box[data-ready="true"]').waitFor();
      await tabUntil(page, 'the code editor', `el?.classList.contains('cm-content')`);
      // The edit adds a required prop and drops "prefix".
      const edited = code('web-required.mjs').replace(
        'prefix: { type: "string", label: "Prefix", optional: true },',
        'topic: { type: "string", label: "Topic", description: "Added by the edit." },',
      );
      expect(edited).not.toBe(code('web-required.mjs'));
      await page.keyboard.press('Control+A');
      await page.keyboard.insertText(edited);
      await page.getByLabel('Topic').waitFor();
      expect(await page.getByRole('status').filter({ hasText: 'Props reloaded' }).count()).toBe(1);
      expect(await page.getByLabel('Prefix').count()).toBe(0);
      expect(await page.getByLabel('Channel').inputValue()).toBe('#ops');
      expect(await page.getByLabel('Limit').inputValue()).toBe('3');
      expect(await noSidewaysScroll(page)).toBe(true);
      if (viewport.width === 1280) await page.screenshot({ path: screenshotPath('configuration-code-reload') });
      // A syntax error names the author's file and line, never the server's copy, and marks that line.
      await page.keyboard.press('Control+A');
      await page.keyboard.insertText(edited.replace('limit: {', 'limit: {,'));
      const problem = page.getByRole('status').filter({ hasText: 'could not be read' });
      await problem.waitFor();
      const text = (await problem.textContent()) ?? '';
      const line = edited.split('\n').findIndex((row) => row.includes('limit: {')) + 1;
      expect(text).toContain(`component.mjs:${line}:`);
      expect(text).not.toMatch(/\/code\/|[0-9a-f]{32}/);
      const marked = page.locator('.cm-gutter-lint .cm-gutterElement .cm-lint-marker-error');
      await marked.waitFor();
      expect(await page.locator('.cm-lintRange-error').count()).toBeGreaterThan(0);
      const markerTop = (await marked.boundingBox())?.y ?? -1;
      const lineTop =
        (
          await page
            .locator('.cm-line')
            .nth(line - 1)
            .boundingBox()
        )?.y ?? -2;
      expect(Math.abs(markerTop - lineTop)).toBeLessThan(8);
      if (viewport.width === 1280) await page.screenshot({ path: screenshotPath('configuration-code-error') });
      await page.keyboard.press('Control+A');
      await page.keyboard.insertText(edited);
      await page.getByRole('status').filter({ hasText: 'Props reloaded' }).waitFor();
      expect(await page.locator('.cm-lint-marker-error').count()).toBe(0);
      await page.keyboard.press('Shift+Tab');
      await tabToLabel(page, 'Topic');
      await page.keyboard.type('alerts');
      await tabToButton(page, 'Save');
      await page.keyboard.press('Enter');
      await expect
        .poll(async () => {
          const source = await server.api<{ data: { configured_props: Record<string, unknown> } }>(
            'GET',
            `/v1/sources/${id}`,
          );
          return source.body.data.configured_props;
        })
        .toEqual({ http: { endpoint_url: expect.any(String) }, channel: '#ops', limit: 3, topic: 'alerts' });
    });
  });
}
