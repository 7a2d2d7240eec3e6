/**
 * npm install progress in the web app (issue 15, "progress on long work"), at 1280x800 and
 * 390x844: code pasted on New source imports a package that the server installs from a loopback
 * npm registry holding its tarball, so the "Installing …" line is seen while the save waits; once
 * released, the line says it was installed, and the source deploys. A code edit on the
 * Configuration tab that adds a package shows its install before Save. A package the registry
 * does not have shows the failure with its code.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackRegistry, type LoopbackRegistry } from '../../../tools/test-support/loopback-npm-registry.js';
import { editJson, packFixturePackage } from '../../../tools/test-support/pack-fixture-package.js';
import {
  ensureWebBuilt,
  launchBrowser,
  REPO,
  screenshotPath,
  signedInContext,
  startServer,
  type RunningServer,
} from './harness.js';

const COMPONENTS = path.join(REPO, 'fixtures/components/packages');
const scratch = mkdtempSync(path.join(os.tmpdir(), 'tributary-web-installs-'));
const greetingSource = readFileSync(path.join(COMPONENTS, 'tiny-greeting-source.mjs'), 'utf8');
const missingSource = readFileSync(path.join(COMPONENTS, 'missing-package.mjs'), 'utf8');

let registry: LoopbackRegistry;
let server: RunningServer;
let browser: Browser;

/** The fixture package under another name: each viewport installs a package of its own (no cache hit). */
function publishGreeting(name: string): void {
  const tarball = packFixturePackage('tiny-greeting', mkdtempSync(path.join(scratch, 'pack-')), (dir) =>
    editJson(path.join(dir, 'package.json'), (json) => (json['name'] = name)),
  );
  registry.publish(name, '1.0.0', tarball);
}

beforeAll(async () => {
  ensureWebBuilt();
  registry = await startLoopbackRegistry();
  publishGreeting('tiny-greeting-wide');
  publishGreeting('tiny-greeting-narrow');
  publishGreeting('tiny-greeting-wide-edit');
  publishGreeting('tiny-greeting-narrow-edit');
  server = await startServer({
    // npm's own cache is fresh, so every tarball is downloaded, and held while the test looks.
    env: { npm_config_registry: registry.url, npm_config_cache: path.join(scratch, 'npm-cache') },
  });
  browser = await launchBrowser();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await registry?.close();
  rmSync(scratch, { recursive: true, force: true });
});

const noSidewaysScroll = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);

/** Whether the element is inside the viewport's width: not cut on either side. */
const withinWidth = (page: Page, selector: string) =>
  page.evaluate((css) => {
    const box = document.querySelector(css)?.getBoundingClientRect();
    return box !== undefined && box.left >= 0 && box.right <= document.documentElement.clientWidth;
  }, selector);

async function pasteCode(page: Page, code: string): Promise<void> {
  await page.goto(`${server.base}/sources/new`);
  await page.getByRole('button', { name: 'Paste code' }).click();
  await page.locator('.code-box[data-ready="true"]').waitFor();
  await page.getByRole('textbox', { name: /Component code/ }).fill(code);
}

for (const viewport of [
  { width: 1280, height: 800, tag: 'wide' },
  { width: 390, height: 844, tag: 'narrow' },
]) {
  describe(`install progress at ${viewport.width}x${viewport.height}`, { timeout: 90_000 }, () => {
    let context: BrowserContext;
    let page: Page;
    let sourceId = '';

    beforeAll(async () => {
      ({ context, page } = await signedInContext(browser, server, viewport));
    });

    afterAll(async () => {
      await context?.close();
    });

    it('shows the package installing while the code is saved, then installed, then deploys the source', async () => {
      const pkg = `tiny-greeting-${viewport.tag}`;
      await pasteCode(page, greetingSource.replaceAll('"tiny-greeting"', `"${pkg}"`));
      const release = registry.hold();
      try {
        await page.getByRole('button', { name: 'Load props' }).click();
        const installing = page.locator('.install-line', { hasText: `Installing ${pkg}@latest …` });
        await installing.waitFor();
        await page.getByRole('button', { name: 'Loading…' }).waitFor();
        expect(await noSidewaysScroll(page)).toBe(true);
        expect(await withinWidth(page, '.install-line')).toBe(true);
        await page.screenshot({ path: screenshotPath(`install-progress-${viewport.tag}`), fullPage: true });
      } finally {
        release();
      }
      // The picker gives way to the props form; the toast keeps what was installed.
      await page
        .getByRole('status')
        .filter({ hasText: new RegExp(`Loaded Tiny Greeting: installed ${pkg}@1\\.0\\.0 in \\d+\\.\\d s`) })
        .waitFor();
      await page.getByRole('heading', { name: /Tiny Greeting/ }).waitFor();
      const name = `greeting ${viewport.tag}`;
      await page.getByLabel(/Source name/).fill(name);
      await page.getByRole('button', { name: 'Deploy', exact: true }).click();
      await page.waitForURL(/\/sources\/dc_\w+\/events$/);
      await page
        .getByRole('status')
        .filter({ hasText: `Deployed ${name}` })
        .waitFor();
      sourceId = /\/sources\/(dc_\w+)\/events$/.exec(page.url())?.[1] ?? '';
      const source = await server.api<{ data: { name: string } }>('GET', `/v1/sources/${sourceId}`);
      expect(source.body.data.name).toBe(name);
      expect(await noSidewaysScroll(page)).toBe(true);
    });

    it('shows the install of a package a code edit on the Configuration tab adds, then saves it', async () => {
      const pkg = `tiny-greeting-${viewport.tag}-edit`;
      await page.goto(`${server.base}/sources/${sourceId}/configuration`);
      await page.locator('summary', { hasText: 'Code' }).click();
      await page.locator('.code-box[data-ready="true"]').waitFor();
      await page.locator('.cm-content').click();
      await page.keyboard.press('Control+A');
      const release = registry.hold();
      try {
        await page.keyboard.insertText(greetingSource.replaceAll('"tiny-greeting"', `"${pkg}"`));
        // Reading the edited code's props installs the package, before any Save.
        await page.locator('.install-line', { hasText: `Installing ${pkg}@latest …` }).waitFor();
        expect(await noSidewaysScroll(page)).toBe(true);
        expect(await withinWidth(page, '.install-line')).toBe(true);
      } finally {
        release();
      }
      await page
        .locator('.install-installed', { hasText: new RegExp(`^Installed ${pkg}@1\\.0\\.0 in \\d+\\.\\d s$`) })
        .waitFor();
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `Saved greeting ${viewport.tag}` })
        .waitFor();
      const source = await server.api<{ data: { component_id: string } }>('GET', `/v1/sources/${sourceId}`);
      const component = await server.api<{ data: { code: string } }>(
        'GET',
        `/v1/components/${source.body.data.component_id}`,
      );
      expect(component.body.data.code).toContain(`"${pkg}"`);
      await server.api('DELETE', `/v1/sources/${sourceId}`);
    });

    it('shows a failed install with its code, and the error the save answered', async () => {
      await pasteCode(page, missingSource);
      await page.getByRole('button', { name: 'Load props' }).click();
      const failed = page.locator('.install-failed');
      await failed.waitFor();
      expect(await failed.textContent()).toMatch(
        /^Installing tributary-no-such-package-zz@latest failed after \d+\.\d s: PACKAGE_NOT_FOUND$/,
      );
      // One line per install: the failure took the place of its "Installing …" line.
      expect(await page.locator('.install-line').count()).toBe(1);
      await page
        .getByRole('alert')
        .filter({ hasText: 'package "tributary-no-such-package-zz" does not exist in the npm registry' })
        .waitFor();
      expect(await noSidewaysScroll(page)).toBe(true);
      expect(await withinWidth(page, '.install-failed')).toBe(true);
      await page.screenshot({ path: screenshotPath(`install-failed-${viewport.tag}`), fullPage: true });
    });
  });
}
