/**
 * What the browser tests run against: the real `tributary start` binary on a temporary data
 * directory and a free port (serving the built apps/web/dist), and Debian's Chromium driven by
 * playwright-core with the flags that work on this machine.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { REPO, startTributary, type TributaryServer } from '../../../tools/test-support/tributary-server.js';

export { REPO };
export const WEB_DIST = path.join(REPO, 'apps/web/dist');
/**
 * Every run saves its screenshots under test-results/ (ignored by git); `UPDATE_SCREENSHOTS=1`
 * writes them to docs/screenshots/ instead, the copies the README shows, so a plain `npm test`
 * leaves the working tree clean.
 */
export const SCREENSHOTS = path.join(
  REPO,
  process.env['UPDATE_SCREENSHOTS'] === '1' ? 'docs/screenshots' : 'test-results/screenshots',
);
const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The tests need the production build; build it once if `npm run build` has not. */
export function ensureWebBuilt(): void {
  if (existsSync(path.join(WEB_DIST, 'index.html'))) return;
  const result = spawnSync('npm', ['run', 'build', '-w', '@tributary/web'], { cwd: REPO, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`web build failed:\n${result.stdout}\n${result.stderr}`);
}

export type RunningServer = TributaryServer;

/** The real server, serving the built web app. */
export function startServer(options: { readonly env?: Record<string, string> } = {}): Promise<RunningServer> {
  return startTributary({ key: `trb_${'w'.repeat(48)}`, env: { TRIBUTARY_WEB_DIR: WEB_DIST, ...options.env } });
}

/**
 * Signs the page's browser in as the web app does: the key traded for the session cookie
 * (POST /v1/session with the CSRF header), so every page of the context is signed in.
 */
export async function signInPage(page: Page, server: RunningServer): Promise<void> {
  if (!page.url().startsWith(server.base)) await page.goto(`${server.base}/docs`);
  const status = await page.evaluate(async (key) => {
    const response = await fetch('/v1/session', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-tributary-client': 'web' },
      body: JSON.stringify({ api_key: key }),
    });
    return response.status;
  }, server.key);
  if (status !== 201) throw new Error(`signing in with the session route answered ${status}`);
}

/** A new context of `browser` at `viewport` (1280x800 by default) with one page, signed in to `server`. */
export async function signedInContext(
  browser: Browser,
  server: RunningServer,
  viewport: { width: number; height: number } = { width: 1280, height: 800 },
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport });
  context.setDefaultTimeout(20_000);
  const page = await context.newPage();
  await signInPage(page, server);
  return { context, page };
}

export interface SignedInBrowser {
  readonly browser: Browser;
  readonly context: BrowserContext;
  readonly page: Page;
  /** Closes the context and the browser. */
  close(): Promise<void>;
}

/**
 * Chromium with one page, signed in to `server` (every page of its context is): what most browser
 * tests start in beforeAll and share across their tests.
 */
export async function openSignedInPage(
  server: RunningServer,
  options: { readonly viewport?: { width: number; height: number } } = {},
): Promise<SignedInBrowser> {
  const browser = await launchBrowser();
  try {
    const { context, page } = await signedInContext(browser, server, options.viewport);
    return {
      browser,
      context,
      page,
      close: async () => {
        await context.close();
        await browser.close();
      },
    };
  } catch (error) {
    await browser.close();
    throw error;
  }
}

/** Presses Tab until the focused element `el` passes `test`, a JS expression (at most 60 times). */
export async function tabUntil(page: Page, what: string, test: string): Promise<void> {
  for (let presses = 0; presses < 60; presses += 1) {
    if (await page.evaluate(`(() => { const el = document.activeElement; return Boolean(${test}); })()`)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${what}`);
}

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `no browser at ${CHROMIUM}: install Debian's chromium (apt-get install chromium; npm test does as root) or set CHROMIUM_PATH`,
    );
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}

export function screenshotPath(name: string): string {
  mkdirSync(SCREENSHOTS, { recursive: true });
  return path.join(SCREENSHOTS, `${name}.png`);
}
