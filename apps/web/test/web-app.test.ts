/**
 * The web app in a real browser against a real server (issue 6, "Done means"): sign in, create an
 * HTTP source from a deep link, watch a request's event arrive live, read its logs, change a prop
 * on the Configuration tab, run an action and read its exports, open docs pages by their anchors.
 * Each screen is saved to test-results/screenshots/ (docs/screenshots/ with UPDATE_SCREENSHOTS=1).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { gzipSync } from 'node:zlib';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packFixturePackage } from '../../../tools/test-support/pack-fixture-package.js';
import {
  ensureWebBuilt,
  launchBrowser,
  REPO,
  screenshotPath,
  signInPage,
  startServer,
  WEB_DIST,
  type RunningServer,
} from './harness.js';

/** better-sqlite3 (a dependency of the engine), to alter the server's database from the test. */
const openSqlite = (() => {
  const require = createRequire(path.join(REPO, 'packages/engine/package.json'));
  const Database = require('better-sqlite3') as new (file: string) => {
    prepare(sql: string): { run(): unknown };
    close(): void;
  };
  return (file: string) => new Database(file);
})();
const FIXTURES = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures');
const code = (name: string) => readFileSync(path.join(FIXTURES, name), 'utf8');

let server: RunningServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let sourceId = '';
let endpointUrl = '';

/** A screenshot of the screen; toasts of earlier steps are left out unless they are the subject. */
async function shot(name: string, target: Page = page, options: { readonly toasts?: boolean } = {}): Promise<void> {
  await target.screenshot({
    path: screenshotPath(name),
    fullPage: false,
    ...(options.toasts ? {} : { style: '.toasts { visibility: hidden; }' }),
  });
}

/** Form controls on the page that have no accessible name (should be none). */
async function unlabeled(target: Page = page): Promise<string[]> {
  return target.evaluate(() =>
    [
      ...document.querySelectorAll<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>(
        'input, select, textarea',
      ),
    ]
      .filter(
        (control) =>
          control.type !== 'hidden' &&
          control.labels?.length === 0 &&
          !control.getAttribute('aria-label') &&
          !control.getAttribute('aria-labelledby'),
      )
      .map((control) => control.outerHTML.slice(0, 120)),
  );
}

/** Signs the browser in as the sign-in form does, so a test run alone with -t does not depend on the sign-in test. */
async function signIn(target: Page = page): Promise<void> {
  await signInPage(target, server);
}

async function post(url: string, body: unknown): Promise<number> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await response.arrayBuffer();
  return response.status;
}

beforeAll(async () => {
  ensureWebBuilt();
  // The url deep link fetches code from a loopback server of the test.
  server = await startServer({ env: { TRIBUTARY_ALLOW_PRIVATE_URLS: '1' } });
  for (const [key, file] of [
    ['web-test-greeter', 'web-greeter.mjs'],
    ['web-test-shout', 'web-shout.mjs'],
    ['web-test-acme', 'web-acme.mjs'],
    ['fx-dynamic', '../../../../fixtures/components/f21-dynamic.mjs'],
  ] as const) {
    const published = await server.api('PUT', `/v1/components/${key}`, { component_code: code(file) });
    expect([200, 201], `${JSON.stringify(published.body)}\n${server.lines.join('\n')}`).toContain(published.status);
  }
  browser = await launchBrowser();
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  context.setDefaultTimeout(20_000);
  page = await context.newPage();
}, 90_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.stop();
});

// Generous waits: the whole suite shares two cores with this browser and server.
describe('web app', { timeout: 90_000 }, () => {
  it('asks for an API key, refuses a wrong one, and keeps the right one out of the URL', async () => {
    await page.goto(`${server.base}/sources`);
    await page.waitForURL(/\/sign-in\?next=%2Fsources$/);
    await shot('sign-in');
    await page.getByLabel('API key').fill('trb_wrong');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('#sign-in-error').textContent()).toMatch(/\S/);
    await page.getByLabel('API key').fill(server.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'No sources yet' }).waitFor();
    expect(page.url()).toBe(`${server.base}/sources`);
    expect(await page.title()).toBe('Sources · Tributary');
    expect(page.url()).not.toContain(server.key);
    // The key is traded for an HttpOnly session cookie: nothing of it is left in page storage.
    expect(await page.evaluate(() => JSON.stringify({ ...sessionStorage, ...localStorage }))).not.toContain(server.key);
    expect(await page.evaluate(() => document.cookie)).toBe('');
    await shot('sources-empty');
  });

  it('creates an HTTP source from the deep link /sources?action=create&key=KEY', async () => {
    await page.goto(`${server.base}/sources?action=create&key=web-test-greeter`);
    await page.waitForURL(/\/sources\/new\?action=create&key=web-test-greeter/);
    const greeting = page.getByLabel('Greeting');
    await greeting.waitFor();
    expect(await greeting.inputValue()).toBe('Hello');
    // The description is Markdown, rendered.
    expect(await page.locator('.field-help em', { hasText: 'name' }).count()).toBe(1);
    // A value the server refuses comes back on its field.
    await page.getByLabel('Repeat').fill('9');
    await page.getByRole('button', { name: 'Deploy' }).click();
    const repeatError = page.locator('[data-prop="repeat"] .field-error');
    await repeatError.waitFor();
    expect(await repeatError.textContent()).toMatch(/3/);
    await shot('new-source');
    expect(await unlabeled()).toEqual([]);
    await page.getByLabel('Repeat').fill('1');
    await greeting.fill('Howdy');
    await page.getByLabel('Source name').fill('web greeter');
    await page.getByRole('button', { name: 'Deploy' }).click();
    await page.waitForURL(/\/sources\/dc_[^/]+\/events$/);
    sourceId = /\/sources\/(dc_[^/]+)\/events/.exec(page.url())?.[1] ?? '';
    await page.getByRole('status').filter({ hasText: 'Deployed web greeter' }).waitFor();
    await expect.poll(() => page.title()).toBe('web greeter · Events · Tributary');
    const source = await server.api<{ data: { endpoint_url: string; configured_props: Record<string, unknown> } }>(
      'GET',
      `/v1/sources/${sourceId}`,
    );
    expect(source.body.data.configured_props['greeting']).toBe('Howdy');
    endpointUrl = source.body.data.endpoint_url;
    await page.getByRole('heading', { name: 'No events yet' }).waitFor();
  });

  it('shows an event live, without reloading, when the endpoint gets a request', async () => {
    await page.locator('[data-stream-status="open"]').waitFor();
    const marker = await page.evaluate(() => ((window as unknown as { marker: number }).marker = Math.random()));
    expect(await post(endpointUrl, { name: 'Ada' })).toBe(200);
    await page.getByRole('button', { name: /Howdy, Ada/ }).waitFor({ timeout: 15_000 });
    // Same document: the event arrived over SSE, not by a navigation.
    expect(await page.evaluate(() => (window as unknown as { marker: number }).marker)).toBe(marker);
    const boxes = () =>
      page.evaluate(() =>
        ['.tab-toolbar', '.event-list', '.event-detail', '.tabs'].map((selector) => {
          const box = document.querySelector(selector)?.getBoundingClientRect();
          return box ? [box.x, box.y, box.width, box.height] : null;
        }),
      );
    const before = await boxes();
    expect(await post(endpointUrl, { name: 'Grace' })).toBe(200);
    const rows = page.locator('.event-list .event-summary');
    await expect.poll(() => rows.first().textContent(), { timeout: 15_000 }).toBe('Howdy, Grace');
    // No layout shift: the live event went into the list's own scroll box.
    expect(await boxes()).toEqual(before);
    expect(await rows.nth(1).textContent()).toBe('Howdy, Ada');
    await page.getByRole('button', { name: /Howdy, Ada/ }).click();
    const detail = page.getByLabel('Selected event');
    await detail.getByText('"Ada"').first().waitFor();
    // The JSON viewer folds: closing the body object hides its keys.
    const body = detail.locator('details', { hasText: 'body:' }).last();
    await body.locator('summary').click();
    expect(await body.getAttribute('open')).toBeNull();
    await body.locator('summary').click();
    expect(await body.getAttribute('open')).toBe('');
    await shot('source-events');
  });

  it('says when the live connection is lost and catches up after it comes back', async () => {
    await page.locator('[data-stream-status="open"]').waitFor();
    await page.evaluate(() => {
      const seen: string[] = ((window as unknown as { streamStates: string[] }).streamStates = []);
      const badge = document.querySelector('[data-stream-status]');
      if (!badge) throw new Error('no stream badge');
      new MutationObserver(() => seen.push(badge.getAttribute('data-stream-status') ?? '')).observe(badge, {
        attributes: true,
      });
    });
    await server.restart({ pauseMs: 1000 });
    // The badge said "open" before the restart too: wait for the loss to be seen, then the return.
    await expect
      .poll(() => page.evaluate(() => (window as unknown as { streamStates: string[] }).streamStates), {
        timeout: 20_000,
      })
      .toContain('reconnecting');
    await page.locator('[data-stream-status="open"]').waitFor({ timeout: 20_000 });
    // The server went away and came back: the tab said so, then reconnected by itself.
    const states = await page.evaluate(() => (window as unknown as { streamStates: string[] }).streamStates);
    expect(states).toContain('reconnecting');
    expect(states.at(-1)).toBe('open');
    expect(await page.getByText('Connection lost — reconnecting…').count()).toBe(0);
    expect(await post(endpointUrl, { name: 'Edsger' })).toBe(200);
    await page.getByRole('button', { name: /Howdy, Edsger/ }).waitFor({ timeout: 15_000 });
  });

  it('opens the logs tab and shows each invocation, errors highlighted', async () => {
    await page.getByRole('link', { name: 'Logs' }).click();
    await page.waitForURL(/\/logs$/);
    await page.getByText('greeting Ada with Howdy').waitFor();
    await page.locator('[data-stream-status="open"]').waitFor();
    expect(await post(endpointUrl, { name: 'boom' })).toBe(200);
    const error = page.locator('.log-error', { hasText: 'asked to fail' }).first();
    await error.waitFor({ timeout: 15_000 });
    await shot('source-logs');
  });

  it('changes a prop on the Configuration tab (an update with the same id)', async () => {
    await page.getByRole('link', { name: 'Configuration' }).click();
    await page.waitForURL(/\/configuration$/);
    const greeting = page.getByLabel('Greeting');
    await greeting.waitFor();
    expect(await greeting.inputValue()).toBe('Howdy');
    await greeting.fill('Ahoy');
    await page.getByLabel('Tone').selectOption({ label: 'loud' });
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved: the source was updated').waitFor();
    await shot('source-configuration');
    const source = await server.api<{ data: { id: string; configured_props: Record<string, unknown> } }>(
      'GET',
      `/v1/sources/${sourceId}`,
    );
    expect(source.body.data.id).toBe(sourceId);
    expect(source.body.data.configured_props['greeting']).toBe('Ahoy');
    expect(source.body.data.configured_props['tone']).toBe('loud');
    await page.getByRole('link', { name: 'Events' }).click();
    await page.locator('[data-stream-status="open"]').waitFor();
    expect(await post(endpointUrl, { name: 'Linus' })).toBe(200);
    await page.getByRole('button', { name: /AHOY, LINUS/ }).waitFor({ timeout: 15_000 });
  });

  it('edits the code on the Configuration tab in a highlighting editor, and saves it with Ctrl+S', async () => {
    await page.getByRole('link', { name: 'Configuration' }).click();
    await page.getByLabel('Greeting').waitFor();
    expect(await unlabeled()).toEqual([]);
    const box = page.locator('.code-box');
    const closedBox = await page.locator('.code-editor').boundingBox();
    await page.locator('.code-editor summary').click();
    // CodeMirror came in its own chunk and took the textarea's place at the same size.
    await page.locator('.code-box[data-ready="true"]').waitFor();
    expect(closedBox).not.toBeNull();
    const editor = page.getByRole('textbox', { name: /Component code/ });
    expect(await editor.getAttribute('contenteditable')).toBe('true');
    expect(await box.locator('.cm-lineNumbers .cm-gutterElement').count()).toBeGreaterThan(5);
    // Keywords and strings are coloured, unlike plain text.
    const colours = await box.evaluate((element) => {
      const spans = [...element.querySelectorAll<HTMLElement>('.cm-line span')];
      const colourOf = (text: string) =>
        spans.find((span) => span.textContent === text)
          ? getComputedStyle(spans.find((span) => span.textContent === text) as HTMLElement).color
          : null;
      return {
        keyword: colourOf('export'),
        text: getComputedStyle(element.querySelector('.cm-content') as HTMLElement).color,
      };
    });
    expect(colours.keyword).not.toBeNull();
    expect(colours.keyword).not.toBe(colours.text);
    const component = await server.api<{ data: { component_id: string } }>('GET', `/v1/sources/${sourceId}`);
    const saved = await server.api<{ data: { code: string } }>(
      'GET',
      `/v1/components/${component.body.data.component_id}`,
    );
    const original = saved.body.data.code;
    expect(original).toContain('web-test-greeter');
    await editor.fill(original.replace('`${this.greeting}, ${name}`', '`${this.greeting} -> ${name}`'));
    // Bracket matching: with the cursor after a closing brace, it and its partner are marked.
    await editor.press('Control+End');
    await editor.press('ArrowUp');
    await editor.press('End');
    await editor.press('ArrowLeft');
    await expect.poll(() => box.locator('.cm-matchingBracket').count()).toBe(2);
    await editor.press('Control+s');
    await page.getByText('Saved: the source was updated').waitFor();
    expect(await page.evaluate(() => document.activeElement?.classList.contains('cm-content'))).toBe(true);
    await shot('source-code-editor');
    await page.getByRole('link', { name: 'Events' }).click();
    await page.locator('[data-stream-status="open"]').waitFor();
    expect(await post(endpointUrl, { name: 'Barbara' })).toBe(200);
    await page.getByRole('button', { name: /AHOY -> BARBARA/ }).waitFor({ timeout: 15_000 });
  });

  it('lists the source with its endpoint, active toggle and last event, at desktop and phone sizes', async () => {
    const ticker = await server.api('POST', '/v1/sources', {
      component_code: code('web-ticker.mjs'),
      name: 'web ticker',
      configured_props: { timer: { intervalSeconds: 120 } },
    });
    expect(ticker.status).toBe(200);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sources' }).click();
    const row = page.locator('tr', { hasText: 'web greeter' });
    await row.waitFor();
    expect(await row.locator('code').first().textContent()).toBe(endpointUrl);
    await row.getByRole('img', { name: /\d+ events? in the last 24 hours/ }).waitFor();
    const tickerRow = page.locator('tr', { hasText: 'web ticker' });
    expect(await tickerRow.locator('.trigger-cell').textContent()).toMatch(/every 2 min · next in (1m \d+s|2m 0s)/);
    const toggle = row.getByRole('switch');
    expect(await toggle.getAttribute('aria-checked')).toBe('true');
    await shot('sources-list');
    await toggle.click();
    await expect.poll(() => toggle.getAttribute('aria-checked')).toBe('false');
    expect((await server.api<{ data: { active: boolean } }>('GET', `/v1/sources/${sourceId}`)).body.data.active).toBe(
      false,
    );
    await toggle.click();
    await expect.poll(() => toggle.getAttribute('aria-checked')).toBe('true');

    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${server.base}/sources`);
    await page.locator('tr', { hasText: 'web greeter' }).waitFor();
    // Nothing wider than the screen: no sideways scrolling at 390 px.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await shot('sources-list-phone');
    await page.goto(`${server.base}/sources/${sourceId}/events`);
    await page.getByRole('button', { name: /AHOY, LINUS/ }).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await shot('source-events-phone');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('shows both triggers of a source with an endpoint and a timer, before and after it has events', async () => {
    await signIn();
    const deployed = await server.api<{ data: { id: string; endpoint_url: string } }>('POST', '/v1/sources', {
      component_code: code('web-both.mjs'),
      name: 'web both',
      configured_props: { timer: { cron: '0 9 * * 1' } },
    });
    expect(deployed.status).toBe(200);
    const { id, endpoint_url: url } = deployed.body.data;
    expect(await post(url, { hi: 1 })).toBe(200);
    await expect
      .poll(async () => (await server.api<{ data: unknown[] }>('GET', `/v1/sources/${id}/event_summaries`)).body.data)
      .toHaveLength(1);
    const both = async (scope: ReturnType<Page['locator']>) => {
      const triggers = scope.getByRole('list', { name: 'Triggers of web both' });
      await triggers.waitFor();
      expect(await triggers.locator('code').textContent()).toBe(url);
      expect(await triggers.textContent()).toContain('cron 0 9 * * 1 (UTC)');
      await triggers.getByRole('button', { name: `Copy URL: ${url}` }).waitFor();
    };
    await page.goto(`${server.base}/sources`);
    await both(page.locator('tr', { hasText: 'web both' }));
    await page.goto(`${server.base}/sources/${id}/events`);
    await page.getByRole('button', { name: /via http/ }).waitFor();
    await both(page.locator('.page'));
    await page.getByRole('link', { name: 'Configuration' }).click();
    await page.getByLabel('Cron expression').waitFor();
    await both(page.locator('.page'));
    // The HTTP prop itself shows the live URL on the form, not a "when it is deployed" promise.
    expect(await page.locator('.config-form .endpoint code').textContent()).toBe(url);
    await shot('source-both-triggers');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${server.base}/sources`);
    await both(page.locator('tr', { hasText: 'web both' }));
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1280, height: 800 });
    expect((await server.api('DELETE', `/v1/sources/${id}`)).status).toBe(200);
  });

  it('says what RUN NOW does on an inactive source, then when the run finished, with links to its output', async () => {
    await signIn();
    const deployed = await server.api<{ data: { id: string } }>('POST', '/v1/sources', {
      component_code: code('web-ticker.mjs'),
      name: 'web run now',
      configured_props: { timer: { intervalSeconds: 3600 } },
    });
    const { id } = deployed.body.data;
    expect((await server.api('PUT', `/v1/sources/${id}`, { active: false })).status).toBe(200);
    await page.goto(`${server.base}/sources/${id}/events`);
    const button = page.getByRole('button', { name: 'Run now' });
    await button.waitFor();
    expect(await page.locator('#run-now-hint').textContent()).toMatch(
      /Inactive: its triggers are off\. Run now still runs it once, with a timer event/,
    );
    expect(await button.getAttribute('aria-describedby')).toBe('run-now-hint');
    // Keyboard only: focus the button and press Enter; the focus stays on it while the run goes.
    await button.focus();
    await page.keyboard.press('Enter');
    const status = page.getByTestId('run-status');
    await expect.poll(() => status.textContent(), { timeout: 20_000 }).toMatch(/^Run finished in \d+ ms\./);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Run now');
    // Announced politely in the always-present live region, with the same links.
    const toast = page.getByRole('status').filter({ hasText: 'web run now: Run finished in' });
    await toast.waitFor();
    await toast.getByRole('link', { name: 'Events' }).waitFor();
    await page.getByRole('button', { name: /^tick / }).waitFor({ timeout: 15_000 });
    await shot('source-run-now', page, { toasts: true });
    await status.getByRole('link', { name: 'Logs of this run' }).click();
    await page.waitForURL(/\/logs#invocation-/);
    const current = page.locator('.log-group[aria-current="true"]');
    await current.waitFor();
    expect(await current.textContent()).toMatch(/--- run finished in \d+ ms/);
    expect((await server.api('DELETE', `/v1/sources/${id}`)).status).toBe(200);
  });

  it('fits the source events page and Settings in a 390 px phone: no sideways scroll, every button whole', async () => {
    await signIn();
    const deployed = await server.api<{ data: { id: string; endpoint_url: string } }>('POST', '/v1/sources', {
      component_code: code('web-both.mjs'),
      name: 'web phone source with a rather long name that has to wrap somewhere',
      configured_props: { timer: { intervalSeconds: 3600 } },
    });
    const { id, endpoint_url: url } = deployed.body.data;
    expect(await post(url, { long: 'x'.repeat(400), nested: { deeper: { deepest: ['a'.repeat(80)] } } })).toBe(200);
    const phoneKey = await server.api<{ data: { id: string } }>('POST', '/v1/api_keys', {
      name: 'a-phone-key-with-a-long-name-for-wrapping',
    });
    /** Overflowing page width, and buttons or links styled as buttons cut by the screen's edges. */
    const fits = () =>
      page.evaluate(() => {
        const cut = [...document.querySelectorAll<HTMLElement>('button, a.button, .actions a')]
          .filter((element) => element.offsetParent !== null && !element.closest('.toasts'))
          .filter((element) => {
            const box = element.getBoundingClientRect();
            return box.left < 0 || box.right > window.innerWidth + 0.5;
          })
          .map((element) => element.textContent?.trim() ?? '');
        return { width: document.documentElement.scrollWidth, cut };
      });
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(`${server.base}/sources/${id}/events`);
      await page.getByRole('button', { name: /via http/ }).waitFor();
      expect(await fits()).toEqual({ width: 390, cut: [] });
      await shot('source-page-phone');
      await page.goto(`${server.base}/sources/${id}/configuration`);
      await page.getByLabel('Interval in seconds').waitFor();
      expect(await fits()).toEqual({ width: 390, cut: [] });
      await page.goto(`${server.base}/settings`);
      await page.locator('td', { hasText: /^a-phone-key-with-a-long-name-for-wrapping$/ }).waitFor();
      expect(await fits()).toEqual({ width: 390, cut: [] });
      await shot('settings-phone');
      // The apps list: one card per app, no table scrolled sideways inside its box.
      await page.goto(`${server.base}/apps`);
      await page.locator('table code').first().waitFor();
      expect(await fits()).toEqual({ width: 390, cut: [] });
      expect(
        await page
          .locator('.table-wrap')
          .evaluateAll((wraps) => wraps.map((wrap) => wrap.scrollWidth <= wrap.clientWidth)),
      ).toEqual([true]);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
      await server.api('DELETE', `/v1/sources/${id}`);
      await server.api('DELETE', `/v1/api_keys/${phoneKey.body.data.id}`);
    }
  });

  it('searches, filters and sorts the sources list with the keyboard, and keeps it in the URL', async () => {
    await signIn();
    const made: string[] = [];
    for (const [file, name, props] of [
      ['web-greeter.mjs', 'flt-alpha hook', {}],
      ['web-ticker.mjs', 'flt-beta timer', { timer: { intervalSeconds: 600 } }],
      ['web-both.mjs', 'flt-gamma both', { timer: { intervalSeconds: 900 } }],
    ] as const) {
      const deployed = await server.api<{ data: { id: string } }>('POST', '/v1/sources', {
        component_code: code(file),
        name,
        configured_props: props,
      });
      made.push(deployed.body.data.id);
      // created_at is in seconds: the next deploy goes in the next second (the server shares this
      // clock), so "newest first" has one right answer.
      await new Promise((resolve) => setTimeout(resolve, 1005 - (Date.now() % 1000)));
    }
    await server.api('PUT', `/v1/sources/${made[1]}`, { active: false });
    const names = () => page.locator('tbody tr .strong').allTextContents();
    try {
      await page.goto(`${server.base}/sources`);
      await page.locator('tr', { hasText: 'flt-gamma both' }).waitFor();
      await page.getByLabel('Search sources').focus();
      // A word with a hyphen: random ids and endpoint URLs of the other sources on this server can
      // hold any three letters, but never a hyphen.
      await page.keyboard.type('flt-');
      await expect.poll(names).toEqual(['flt-alpha hook', 'flt-beta timer', 'flt-gamma both']);
      expect(await unlabeled()).toEqual([]);
      // Tab to the status filter and pick "Inactive" with the arrow keys.
      await page.keyboard.press('Tab');
      expect(
        await page.evaluate(() => (document.activeElement as HTMLSelectElement | null)?.labels?.[0]?.textContent),
      ).toBe('Status');
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowDown');
      await expect.poll(names).toEqual(['flt-beta timer']);
      expect(page.url()).toMatch(/[?&]status=inactive/);
      await page.getByLabel('Status', { exact: true }).selectOption('all');
      await page.getByLabel('Trigger', { exact: true }).selectOption('http');
      await expect.poll(names).toEqual(['flt-alpha hook', 'flt-gamma both']);
      await page.getByLabel('Trigger', { exact: true }).selectOption('timer');
      await expect.poll(names).toEqual(['flt-beta timer', 'flt-gamma both']);
      await page.getByLabel('Trigger', { exact: true }).selectOption('all');
      await page.getByLabel('Sort', { exact: true }).selectOption('newest');
      await expect.poll(names).toEqual(['flt-gamma both', 'flt-beta timer', 'flt-alpha hook']);
      // The URL holds it: a reload shows the same list.
      await page.reload();
      await expect.poll(names).toEqual(['flt-gamma both', 'flt-beta timer', 'flt-alpha hook']);
      expect(await page.getByLabel('Search sources').inputValue()).toBe('flt-');
      await shot('sources-filtered');
      await page.getByLabel('Search sources').fill('no such source');
      await page.getByRole('button', { name: 'Clear search and filters' }).click();
      await expect.poll(() => page.url()).toBe(`${server.base}/sources`);
      await page.setViewportSize({ width: 390, height: 844 });
      await page.locator('tr', { hasText: 'flt-gamma both' }).waitFor();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await shot('sources-filter-phone');
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
      for (const id of made) await server.api('DELETE', `/v1/sources/${id}`);
    }
  });

  it("copies and downloads an event's JSON from the keyboard", async () => {
    await signIn();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.base });
    const deployed = await server.api<{ data: { id: string; endpoint_url: string } }>('POST', '/v1/sources', {
      component_code: code('web-greeter.mjs'),
      name: 'web json',
    });
    const { id, endpoint_url: url } = deployed.body.data;
    expect(await post(url, { name: 'Json', list: [1, 2, { deep: true }] })).toBe(200);
    try {
      await page.goto(`${server.base}/sources/${id}/events`);
      await page.getByRole('button', { name: /Hello, Json/ }).waitFor();
      const expected = { text: 'Hello, Json', body: { name: 'Json', list: [1, 2, { deep: true }] } };
      const copy = page.getByRole('button', { name: /^Copy the JSON of event / });
      await copy.focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => copy.textContent()).toBe('Copied');
      expect(JSON.parse(await page.evaluate(() => navigator.clipboard.readText()))).toEqual(expected);
      const download = page.getByRole('button', { name: /^Download JSON of event / });
      await download.focus();
      const [file] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
      expect(file.suggestedFilename()).toMatch(/^event-[\w-]+\.json$/);
      expect(JSON.parse(readFileSync(await file.path(), 'utf8'))).toEqual(expected);
      expect(await unlabeled()).toEqual([]);
    } finally {
      await server.api('DELETE', `/v1/sources/${id}`);
    }
  });

  it('shows the next runs of a cron schedule while it is typed, before saving, without moving the form', async () => {
    await signIn();
    const published = await server.api('PUT', '/v1/components/web-test-both', { component_code: code('web-both.mjs') });
    expect([200, 201]).toContain(published.status);
    await page.goto(`${server.base}/sources/new?key=web-test-both`);
    await page.getByLabel('Interval in seconds').waitFor();
    // Keyboard: from the interval radio, the arrow key moves to "Cron (UTC)".
    await page.getByRole('radio', { name: 'Every N seconds' }).focus();
    await page.keyboard.press('ArrowRight');
    const cron = page.getByLabel('Cron expression');
    await cron.waitFor();
    const preview = page.getByTestId('cron-preview');
    const times = () =>
      preview.locator('time').evaluateAll((nodes) => nodes.map((node) => node.getAttribute('datetime')));
    await cron.fill('30 6 * * 1-5');
    // The whole list is polled, so the preview of an earlier value cannot pass for this one.
    await expect.poll(times).toEqual(Array.from({ length: 3 }, () => expect.stringMatching(/T06:30:00\.000Z$/)));
    const deployButton = () => page.getByRole('button', { name: 'Deploy' }).boundingBox();
    const before = await deployButton();
    await cron.fill('not cron');
    await preview.getByText('Not a cron expression that ever runs.').waitFor();
    expect(await deployButton()).toEqual(before);
    // The preview describes the field for screen readers.
    expect(await cron.getAttribute('aria-describedby')).toBe(await preview.getAttribute('id'));
    await cron.fill('0 9 * * 1');
    await expect.poll(times).toEqual(Array.from({ length: 3 }, () => expect.stringMatching(/T09:00:00\.000Z$/)));
    expect(await unlabeled()).toEqual([]);
    await shot('cron-preview');
  });

  it('follows a dark system setting, with readable contrast', async () => {
    await signIn();
    const deployed = await server.api<{ data: { id: string; endpoint_url: string } }>('POST', '/v1/sources', {
      component_code: code('web-both.mjs'),
      name: 'web dark',
      configured_props: { timer: { intervalSeconds: 3600 } },
    });
    const { id, endpoint_url: url } = deployed.body.data;
    expect(await post(url, { dark: true })).toBe(200);
    /** WCAG contrast of each selector's text against the first opaque background behind it. */
    const contrasts = (selectors: string[]) =>
      page.evaluate((list) => {
        const rgb = (value: string) => (value.match(/[\d.]+/g) ?? []).map(Number);
        const luminance = ([r = 0, g = 0, b = 0]: number[]) => {
          const f = (c: number) => ((c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
          return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
        };
        const background = (element: Element | null): number[] => {
          for (let node = element; node; node = node.parentElement) {
            const color = rgb(getComputedStyle(node).backgroundColor);
            if (color.length === 3 || (color[3] ?? 0) > 0) return color;
          }
          return [255, 255, 255];
        };
        return Object.fromEntries(
          list.map((selector) => {
            const element = document.querySelector(selector);
            if (!element) return [selector, 0];
            const [a, b] = [luminance(rgb(getComputedStyle(element).color)), luminance(background(element))];
            return [selector, Math.round(((Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)) * 10) / 10];
          }),
        );
      }, selectors);
    await page.emulateMedia({ colorScheme: 'dark' });
    try {
      await page.goto(`${server.base}/sources`);
      await page.locator('tr', { hasText: 'web dark' }).waitFor();
      // The page really is dark: the background is near black.
      const bg = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
      expect(bg).toBe('rgb(18, 20, 23)');
      const list = await contrasts(['h1', 'td .muted', 'td a', '.button-primary', '.badge', 'th', '.topbar nav a']);
      for (const [selector, ratio] of Object.entries(list)) expect(ratio, selector).toBeGreaterThanOrEqual(4.5);
      await shot('sources-dark');
      await page.goto(`${server.base}/sources/${id}/events`);
      await page.getByRole('button', { name: /via http/ }).waitFor();
      const events = await contrasts(['.event-summary', '.json-key', '.json-string', '.json-boolean', '.tab.active']);
      for (const [selector, ratio] of Object.entries(events)) expect(ratio, selector).toBeGreaterThanOrEqual(4.5);
      await shot('source-events-dark');
      await page.goto(`${server.base}/docs`);
      await page.locator('.doc h1').waitFor();
      const docs = await contrasts([
        '.doc p',
        '.doc a',
        '.doc :not(pre) > code',
        '.code-block pre',
        '.docs-group-title',
      ]);
      for (const [selector, ratio] of Object.entries(docs)) expect(ratio, selector).toBeGreaterThanOrEqual(4.5);
      await shot('docs-dark');
    } finally {
      await page.emulateMedia({ colorScheme: 'light' });
      await server.api('DELETE', `/v1/sources/${id}`);
    }
  });

  it('pastes code into the editor on New source and loads its props with Ctrl+S', async () => {
    await signIn();
    await page.goto(`${server.base}/sources/new`);
    await page.getByRole('button', { name: 'Paste code' }).click();
    await page.locator('.code-box[data-ready="true"]').waitFor();
    const editor = page.getByRole('textbox', { name: /Component code/ });
    await editor.fill(code('web-ticker.mjs'));
    await editor.press('Control+s');
    await page.getByRole('heading', { name: /Ticker/ }).waitFor();
    await page.getByLabel('Interval in seconds').waitFor();
  });

  it('works with the keyboard alone, with a visible focus', async () => {
    await page.goto(`${server.base}/sources`);
    await page.locator('tr', { hasText: 'web greeter' }).waitFor();
    await page.keyboard.press('Tab');
    const focused = () =>
      page.evaluate(() => {
        const element = document.activeElement as HTMLElement | null;
        const style = element ? getComputedStyle(element) : null;
        return {
          text: element?.textContent?.trim() ?? '',
          outline: style ? `${style.outlineStyle} ${style.outlineWidth}` : '',
        };
      });
    expect(await focused()).toEqual({ text: 'Skip to content', outline: 'solid 2px' });
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
    for (let i = 0; i < 10 && (await focused()).text !== 'web greeter'; i += 1) await page.keyboard.press('Tab');
    expect(await focused()).toEqual({ text: 'web greeter', outline: 'solid 2px' });
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/sources\/dc_[^/]+\/events$/);
    // The header before the tabs holds every trigger's controls, Run now and the source's actions.
    for (let i = 0; i < 40 && (await focused()).text !== 'Logs'; i += 1) await page.keyboard.press('Tab');
    expect(await focused()).toEqual({ text: 'Logs', outline: 'solid 2px' });
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/logs$/);
  });

  it('runs an action and shows its exports, summary and return value', async () => {
    await page.goto(`${server.base}/actions`);
    await page.getByLabel('Component', { exact: true }).selectOption({ value: 'web-test-shout' });
    // A required prop left empty: the server's message lands on that field.
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    const wordError = page.locator('[data-prop="word"] .field-error');
    await wordError.waitFor();
    expect(await wordError.textContent()).toMatch(/word/);
    expect(await page.getByLabel('Word').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Word').fill('hey');
    await expect.poll(() => page.locator('[data-prop="word"] .field-error').textContent()).toBe('');
    await page.getByLabel('Times').fill('3');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByTestId('run-summary').waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('run-summary').textContent()).toBe('Shouted hey 3 times');
    const exports = page.getByTestId('run-exports');
    await exports.getByText('"HEY HEY HEY"').waitFor();
    expect(await exports.textContent()).toContain('tag_count');
    expect(await page.getByLabel('Return value').textContent()).toContain('11');
    await shot('action-run');
  });

  it('connects an account for an app prop and pages and searches async options', async () => {
    await page.goto(`${server.base}/actions?key=web-test-acme`);
    await page.getByText('Items are listed with').waitFor();
    await page.getByRole('button', { name: 'Connect account' }).click();
    await page.getByLabel('Account name').fill('test acme');
    await page.getByLabel('API key').fill('sek-1234');
    // Enter in the account form connects the account; it does not run the action around it.
    await page.getByLabel('API key').press('Enter');
    const picker = page.locator('[data-prop="acme"] select');
    await expect.poll(() => picker.inputValue()).toMatch(/^apn_/);
    expect(await page.getByText('Fill the props and press Run').count()).toBe(1);
    const accounts = await server.api<{ data: { id: string; fields: Record<string, string> }[] }>(
      'GET',
      '/v1/accounts?app=acme',
    );
    expect(accounts.body.data.map((account) => account.id)).toContain(await picker.inputValue());
    expect(accounts.body.data[0]?.fields['api_key']).toBe('[REDACTED]');

    // Choosing the account loads the options again, now read with its key.
    const item = page.locator('[data-prop="item"]');
    await item.getByText('10 options loaded').waitFor();
    await item.locator('option', { hasText: 'sek-item-0' }).waitFor({ state: 'attached' });
    await item.getByRole('button', { name: 'Load more' }).click();
    await item.getByText('20 options loaded').waitFor();
    await item.getByLabel('Search options for Item').fill('item-2');
    await item.getByRole('button', { name: 'Search' }).click();
    // item-2 and item-20 … item-24, read with the account's key ("sek").
    await item.getByText('6 options loaded').waitFor();
    await page.getByLabel('Item', { exact: false }).last().selectOption({ label: 'sek-item-21' });
    await shot('action-app-prop');
    expect(await unlabeled()).toEqual([]);
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    const exports = page.getByTestId('run-exports');
    await exports.getByText('key_length').waitFor({ timeout: 20_000 });
    expect(await exports.textContent()).toContain('8');
    expect(await page.getByLabel('Return value').textContent()).toContain('sek-item-21');
  });

  it('reloads the form when a reloadProps prop changes (additionalProps)', async () => {
    await page.goto(`${server.base}/actions?key=fx-dynamic`);
    await page.getByLabel('Mode').selectOption({ label: 'detailed' });
    const depth = page.getByLabel('Depth');
    await depth.waitFor();
    await depth.fill('4');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await expect
      .poll(
        () =>
          page
            .getByLabel('Return value')
            .textContent()
            .catch(() => ''),
        { timeout: 20_000 },
      )
      .toContain('depth');
    expect(await page.getByLabel('Return value').textContent()).toMatch(/depth:\s*4/);
  });

  it('creates a source from the deep link /sources?action=create&url=LINK to raw code', async () => {
    const files = createServer((_request, response) => response.end(code('web-ticker.mjs')));
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
    const address = files.address();
    const link = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/ticker.mjs`;
    try {
      await page.goto(`${server.base}/sources?action=create&url=${encodeURIComponent(link)}`);
      await page.getByRole('heading', { name: /Ticker/ }).waitFor();
      await page.getByLabel('Interval in seconds').fill('300');
      await page.getByLabel('Source name').fill('ticker from url');
      await page.getByRole('button', { name: 'Deploy' }).click();
      await page.waitForURL(/\/sources\/dc_[^/]+\/events$/);
      const id = /\/sources\/(dc_[^/]+)\//.exec(page.url())?.[1] ?? '';
      const source = await server.api<{ data: { name: string; configured_props: Record<string, unknown> } }>(
        'GET',
        `/v1/sources/${id}`,
      );
      expect(source.body.data.name).toBe('ticker from url');
      expect(source.body.data.configured_props['timer']).toEqual({ cron: null, interval_seconds: 300 });
      await page.getByRole('button', { name: 'Run now' }).click();
      await page.getByRole('button', { name: /^tick / }).waitFor({ timeout: 15_000 });
    } finally {
      await new Promise<void>((resolve) => files.close(() => resolve()));
    }
  });

  it('browses the registry and opens a component with its props and code', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Registry' }).click();
    await page.getByLabel('Search components').fill('shout');
    await expect.poll(() => page.locator('.card-grid > li').count()).toBe(1);
    await page.getByLabel('Search components').fill('');
    await shot('registry');
    await page.getByRole('link', { name: 'Greeter' }).click();
    await page.getByRole('heading', { name: 'Props' }).waitFor();
    expect(await page.locator('.code-view').textContent()).toContain('web-test-greeter');
    await page.getByRole('link', { name: 'Deploy' }).click();
    await page.waitForURL(/\/sources\/new\?key=web-test-greeter/);
    await page.getByLabel('Greeting').waitFor();
  });

  it('imports an npm package of components from the Registry screen, with progress and the report', async () => {
    const packs = mkdtempSync(path.join(os.tmpdir(), 'tributary-web-packages-'));
    try {
      const tarball = packFixturePackage('acme-components', packs);
      await signIn();
      await page.goto(`${server.base}/registry`);
      await page.getByLabel('npm package').fill(tarball);
      await page.getByRole('button', { name: 'Import', exact: true }).click();
      const report = page.getByRole('status').filter({ hasText: '@fixtures/acme-components@1.0.0' });
      await report.waitFor({ timeout: 60_000 });
      expect(await report.textContent()).toContain('3 published, 0 unchanged, 1 skipped');
      const skipped = page.getByRole('table', { name: 'Skipped components' });
      expect(await skipped.textContent()).toContain('actions/broken/broken.mjs');
      expect(await skipped.textContent()).toContain('COMPONENT_INVALID rule C2');
      expect(await page.getByRole('log', { name: 'Import progress' }).textContent()).toContain('found 4 components');
      // The registry below lists the new components without a reload.
      await page.getByRole('link', { name: 'Create Card' }).waitFor();
      await shot('registry-import');
      // A package that does not exist: the error, and nothing else changes.
      await page.getByLabel('npm package').fill(path.join(packs, 'missing-1.0.0.tgz'));
      await page.getByRole('button', { name: 'Import', exact: true }).click();
      await page.getByRole('alert').filter({ hasText: 'PACKAGE_NOT_FOUND' }).waitFor({ timeout: 30_000 });
    } finally {
      rmSync(packs, { recursive: true, force: true });
    }
  });

  it("renders a component's hostile Markdown without running any of it", async () => {
    await signIn();
    const published = await server.api('PUT', '/v1/components/web-test-hostile', {
      component_code: code('web-hostile.mjs'),
    });
    expect([200, 201]).toContain(published.status);
    await page.goto(`${server.base}/registry/web-test-hostile`);
    await page.getByRole('heading', { name: 'Hostile' }).waitFor();
    await page.getByText('Looks harmless.').waitFor();
    // Give an image error, an SVG animation or a script the time to fire if any had got through.
    await page.waitForTimeout(500);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
    const rendered = await page.evaluate(() => {
      const blocks = [...document.querySelectorAll('.markdown')];
      const elements = blocks.flatMap((block) => [...block.querySelectorAll('*')]);
      return {
        tags: [...new Set(elements.map((element) => element.tagName.toLowerCase()))].sort(),
        handlers: elements.flatMap((element) =>
          [...element.attributes].filter((attribute) => attribute.name.startsWith('on')).map((a) => a.name),
        ),
        hrefs: elements.flatMap((element) => (element.getAttribute('href') ? [element.getAttribute('href')] : [])),
        text: blocks.map((block) => block.textContent).join('\n'),
      };
    });
    expect(rendered.tags.filter((tag) => ['img', 'script', 'svg', 'animate', 'iframe'].includes(tag))).toEqual([]);
    expect(rendered.handlers).toEqual([]);
    expect(rendered.hrefs).toEqual(['https://example.com']);
    // The author's raw HTML shows as text, so a reader sees what the description says.
    expect(rendered.text).toContain('<img src=x onerror=');
    expect(rendered.text).toContain('A note.');
  });

  it('creates and revokes an API key under Settings', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByLabel('New key name').fill('browser-test');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByTestId('new-api-key').textContent())?.trim() ?? '';
    expect(key).toMatch(/^trb_/);
    // Announced in the polite live region; the focus stays in the form.
    await page.getByRole('status').filter({ hasText: 'Created the key browser-test' }).waitFor();
    expect(await page.evaluate(() => document.activeElement?.closest('.toasts'))).toBeNull();
    expect((await fetch(`${server.base}/v1/users/me`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(
      200,
    );
    await shot('settings');
    expect(await unlabeled()).toEqual([]);
    await page.getByRole('button', { name: 'Revoke browser-test' }).click();
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await page.locator('tr', { hasText: 'browser-test' }).getByText('revoked').waitFor();
    expect((await fetch(`${server.base}/v1/users/me`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(
      401,
    );
  });

  it('says what went wrong on a source that does not exist, and offers to retry', async () => {
    await page.goto(`${server.base}/sources/dc_nothere/events`);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('NOT_FOUND');
    await alert.getByRole('button', { name: 'Try again' }).waitFor();
  });

  it('clears the event bin after confirmation', async () => {
    await page.goto(`${server.base}/sources/${sourceId}/events`);
    await page.locator('.event-list').waitFor();
    await page.getByRole('button', { name: 'Clear events' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Clear events' }).click();
    await page.getByRole('heading', { name: 'No events yet' }).waitFor();
    const events = await server.api<{ data: unknown[] }>('GET', `/v1/sources/${sourceId}/event_summaries`);
    expect(events.body.data).toEqual([]);
  });

  it('shows dead letters under Settings, and retries or deletes them', async () => {
    // A trigger made on a connection of the test's own makes the server's commits fail in SQLite:
    // each run fails three times (1 s and 2 s apart) and becomes a dead letter.
    const sqlite = openSqlite(path.join(server.scratch ?? '', 'data', 'tributary.db'));
    sqlite
      .prepare("CREATE TRIGGER refuse_logs BEFORE INSERT ON logs BEGIN SELECT RAISE(ABORT, 'disk full'); END")
      .run();
    try {
      for (const name of ['Dee', 'Eve'])
        expect((await server.api('POST', `/v1/sources/${sourceId}/run`, { event: { body: { name } } })).status).toBe(
          202,
        );
      await expect
        .poll(async () => (await server.api<{ data: unknown[] }>('GET', '/v1/dead-letters')).body.data.length, {
          timeout: 30_000,
          interval: 250,
        })
        .toBe(2);
    } finally {
      sqlite.prepare('DROP TRIGGER refuse_logs').run();
      sqlite.close();
    }
    const letters = (await server.api<{ data: { id: string }[] }>('GET', '/v1/dead-letters')).body.data;
    const [newest, oldest] = letters.map((letter) => letter.id);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Dead letters' }).waitFor();
    await page.getByTestId('dead-letter').nth(1).waitFor();
    expect(await page.getByTestId('dead-letter').first().textContent()).toContain('disk full');
    await shot('settings-dead-letters');
    expect(await unlabeled()).toEqual([]);

    await page.getByRole('button', { name: `Retry ${oldest}` }).click();
    await page.getByText(`Queued ${oldest} again.`).waitFor();
    await page.getByRole('button', { name: `Delete ${newest}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete dead letter' }).click();
    await page.getByRole('heading', { name: 'No dead letters' }).waitFor();
    await expect
      .poll(async () => {
        const events = await server.api<{ data: { event: unknown }[] }>(
          'GET',
          `/v1/sources/${sourceId}/event_summaries?expand=event`,
        );
        return JSON.stringify(events.body.data);
      })
      .toContain('Dee');
    expect((await server.api('GET', `/v1/dead-letters/${newest}`)).status).toBe(404);
  });

  it('shows the server status under Settings, with recent failures linked to their source or run', async () => {
    await signIn();
    const deployed = await server.api<{ data: { id: string } }>('POST', '/v1/sources', {
      component_code: code('web-greeter.mjs'),
      name: 'Status greeter',
    });
    expect(deployed.status).toBe(200);
    const id = deployed.body.data.id;
    expect((await server.api('POST', `/v1/sources/${id}/run`, { event: { body: { name: 'boom' } } })).status).toBe(202);
    await expect
      .poll(
        async () =>
          (
            await server.api<{ data: { recent_failures: { source_id: string }[] } }>('GET', '/v1/status')
          ).body.data.recent_failures.some((failure) => failure.source_id === id),
        { timeout: 30_000, interval: 250 },
      )
      .toBe(true);
    const workflow = await server.api<{ data: { id: string } }>('POST', '/v1/workflows', {
      name: 'Status flow',
      trigger: { type: 'manual' },
      steps: [{ name: 'boom', code: code('web-wf-throw-step.mjs') }],
    });
    const run = await server.api<{ data: { run_id: string } }>(
      'POST',
      `/v1/workflows/${workflow.body.data.id}/run`,
      {},
    );
    await expect
      .poll(
        async () =>
          (
            await server.api<{ data: { recent_failures: { run_id?: string }[] } }>('GET', '/v1/status')
          ).body.data.recent_failures.some((failure) => failure.run_id === run.body.data.run_id),
        { timeout: 30_000, interval: 250 },
      )
      .toBe(true);
    await page.goto(`${server.base}/settings`);
    const panel = page.getByRole('region', { name: 'Server status' });
    await panel.getByText('Ready', { exact: true }).waitFor();
    const facts = (await page.getByTestId('server-status').textContent()) ?? '';
    expect(facts).toMatch(/Version\S+/);
    expect(facts).toContain('Source invocations queued');
    expect(facts).toMatch(/Sandbox workers\d+ \(\d+ busy, \d+ MB\)/);
    const failure = panel.getByTestId('recent-failure').filter({ hasText: 'Status greeter' }).first();
    expect(await failure.textContent()).toContain('asked to fail');
    await shot('settings-status');
    expect(await unlabeled()).toEqual([]);
    const runFailure = panel.getByTestId('recent-failure').filter({ hasText: 'Status flow' }).first();
    expect(await runFailure.textContent()).toMatch(/Workflow Status flow, step boomCOMPONENT_ERROR no more greetings/);
    await failure.getByRole('link', { name: 'Status greeter' }).click();
    await page.waitForURL(new RegExp(`/sources/${id}/logs$`));
    await page.goBack();
    await runFailure.getByRole('link', { name: 'Status flow, step boom' }).click();
    await page.waitForURL(new RegExp(`/workflows/${workflow.body.data.id}/runs/${run.body.data.run_id}$`));
    await page.locator('.run-inspector').getByText('no more greetings').first().waitFor();
    expect((await server.api('DELETE', `/v1/sources/${id}`)).status).toBe(200);
    expect((await server.api('DELETE', `/v1/workflows/${workflow.body.data.id}`)).status).toBe(204);
  });

  it('deletes a source after confirmation', async () => {
    await page.goto(`${server.base}/sources/${sourceId}/events`);
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await server.api('GET', `/v1/sources/${sourceId}`)).status).toBe(200);
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await dialog.getByRole('button', { name: 'Delete source' }).click();
    await page.waitForURL(/\/sources$/);
    await page.getByRole('status').filter({ hasText: 'Deleted web greeter' }).waitFor();
    expect((await server.api('GET', `/v1/sources/${sourceId}`)).status).toBe(404);
  });
});

describe('bundle', () => {
  it('keeps the main bundle under 300 kB gzipped, with the docs and the code editor in chunks of their own', () => {
    const html = readFileSync(path.join(WEB_DIST, 'index.html'), 'utf8');
    const entry = /<script type="module"[^>]*src="\/?([^"]+)"/.exec(html)?.[1] ?? '';
    const main = readFileSync(path.join(WEB_DIST, entry));
    const gzipped = gzipSync(main).length;
    console.log(
      `main bundle ${entry}: ${(main.length / 1024).toFixed(1)} kB, ${(gzipped / 1024).toFixed(1)} kB gzipped`,
    );
    expect(gzipped).toBeLessThan(300 * 1024);
    // The entry only names the lazy chunks; CodeMirror itself is not in it.
    expect(main.toString()).not.toContain('cm-matchingBracket');
    expect(main.toString()).toMatch(/code-view-[\w-]+\.js/);
  });
});

describe('signing out', { timeout: 60_000 }, () => {
  it('ends the session, and a deep link opened signed out continues after sign-in', async () => {
    await page.goto(`${server.base}/sources`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect((await context.cookies()).filter((cookie) => cookie.name === 'tributary_session')).toEqual([]);
    await page.goto(`${server.base}/sources?action=create&key=web-test-greeter`);
    await page.waitForURL(/\/sign-in\?next=/);
    await page.getByLabel('API key').fill(server.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/sources\/new\?action=create&key=web-test-greeter$/);
    await page.getByLabel('Greeting').waitFor();
  });
});

describe('docs', { timeout: 60_000 }, () => {
  let docs: Page;
  beforeAll(async () => {
    // A fresh context: docs need no sign-in.
    const anonymous = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    anonymous.setDefaultTimeout(20_000);
    docs = await anonymous.newPage();
  });

  const inView = (id: string) =>
    docs.evaluate((target) => {
      const element = document.getElementById(target);
      if (!element) return null;
      const box = element.getBoundingClientRect();
      return box.top >= 0 && box.top < window.innerHeight;
    }, id);

  it('opens the reference at an anchor, and the table of contents follows', async () => {
    await docs.goto(`${server.base}/docs#props`);
    await docs.locator('h2#props, h3#props').first().waitFor();
    await expect.poll(() => inView('props')).toBe(true);
    await expect.poll(() => docs.locator('.docs-toc a.active').textContent()).toMatch(/Props/i);
    await shot('docs-reference', docs);
    await docs.goto(`${server.base}/docs#dedupe-strategies`);
    await expect.poll(() => inView('dedupe-strategies')).toBe(true);
    // Scrolling by hand moves the highlighted entry.
    await docs.evaluate(() => document.getElementById('hooks')?.scrollIntoView());
    await expect.poll(() => docs.locator('.docs-toc a.active').textContent()).toBe('Hooks');
    expect(await unlabeled(docs)).toEqual([]);
  });

  it('opens other pages by their anchors and follows links between pages inside the app', async () => {
    await docs.goto(`${server.base}/docs/props#options`);
    await expect.poll(() => inView('options')).toBe(true);
    await docs.goto(`${server.base}/docs/rest-api`);
    const heading = await docs.locator('.doc h2').nth(1).getAttribute('id');
    expect(heading).toMatch(/^[a-z0-9-]+$/);
    await docs.goto(`${server.base}/docs/rest-api#${heading}`);
    await expect.poll(() => inView(heading ?? '')).toBe(true);
    // A Markdown link like `props.md#...` became an in-app /docs/props link.
    const internal = docs.locator('.doc a[href^="/docs"]').first();
    expect(await internal.getAttribute('href')).toMatch(/^\/docs(\/[a-z0-9-]+)?(#.*)?$/i);
  });

  it('reads on a phone: no sideways scroll, anchors still land', async () => {
    await docs.setViewportSize({ width: 390, height: 844 });
    await docs.goto(`${server.base}/docs#emit`);
    await expect.poll(() => inView('emit')).toBe(true);
    expect(await docs.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await shot('docs-phone', docs);
    // Every page: a long path or URL in running text wraps, tables and code scroll in their boxes.
    // The pages' list is folded away on a phone: read its links from the DOM.
    const pages = await docs
      .locator('nav[aria-label="Docs pages"] a')
      .evaluateAll((links) => links.map((link) => link.getAttribute('href') ?? ''));
    expect(pages.length).toBeGreaterThan(10);
    const wide: string[] = [];
    for (const href of pages) {
      await docs.goto(`${server.base}${href}`);
      await docs.locator('.doc h1').first().waitFor();
      if (await docs.evaluate(() => document.documentElement.scrollWidth > 390)) wide.push(href);
    }
    expect(wide).toEqual([]);
    await docs.setViewportSize({ width: 1280, height: 800 });
  });

  it('lists the pages in groups: getting started, guides, reference', async () => {
    await docs.goto(`${server.base}/docs`);
    const nav = docs.getByRole('navigation', { name: 'Docs pages' });
    await nav.waitFor();
    expect(await nav.locator('.docs-group-title').allTextContents()).toEqual([
      'Getting started',
      'Guides',
      'Reference',
    ]);
    const started = nav.getByRole('list', { name: 'Getting started' });
    expect(await started.getByRole('link').allTextContents()).toEqual([
      'Overview',
      'Quickstart: a source',
      'Quickstart: an action',
    ]);
    await nav.getByRole('list', { name: 'Reference' }).getByRole('link', { name: 'Component API reference' }).waitFor();
    // Keyboard: Tab from the search box reaches the first page link.
    await docs.getByLabel('Search the docs').focus();
    await docs.keyboard.press('Tab');
    expect(await docs.evaluate(() => document.activeElement?.textContent)).toBe('Overview');
    await shot('docs-groups', docs);
  });

  it('says so for a page that does not exist', async () => {
    await docs.goto(`${server.base}/docs/no-such-page`);
    await docs.getByRole('heading', { name: 'No such page' }).waitFor();
  });

  it('searches every page and copies code', async () => {
    await docs.goto(`${server.base}/docs`);
    await docs.getByLabel('Search the docs').fill('dedupe');
    const first = docs.locator('.search-results a').first();
    await first.waitFor();
    // Snippets read as text: no Markdown emphasis, backticks, link targets or table pipes.
    for (const snippet of await docs.locator('.search-results p').allTextContents())
      expect(snippet).not.toMatch(/\*\*|`|\]\(|\| *-{3}/);
    await shot('docs-search', docs);
    await first.click();
    await expect.poll(() => docs.url()).toMatch(/\/docs(\/[a-z0-9-]+)?#[a-z0-9-]+$/);
    // The page the search started on has copy buttons too: wait for the result's own anchor first.
    const anchor = new URL(docs.url()).hash.slice(1);
    await expect.poll(() => inView(anchor)).toBe(true);
    const copy = docs.locator('[data-copy-code]').first();
    await copy.click();
    await expect.poll(() => copy.textContent()).toBe('Copied');
  });
});
