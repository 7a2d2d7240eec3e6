/**
 * The Workflows screens in Chromium against a real server: build a workflow (a registry action
 * with an expression prop and a code step in the editor, reordered, one step removed), test a
 * step, RUN NOW and read the run inspector (steps, return values, logs, the delivery of a
 * `$.send.sse`, the version), save a new version, deactivate, see a failed step's error at its
 * step, see a refused save change nothing, and add subscribers (a webhook on loopback, a workflow)
 * whose deliveries show on the emitter's page.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ensureWebBuilt,
  openSignedInPage,
  screenshotPath,
  startServer,
  type RunningServer,
  type SignedInBrowser,
} from './harness.js';

const FIXTURES = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures');
const code = (name: string) => readFileSync(path.join(FIXTURES, name), 'utf8');

let server: RunningServer;
let browser: SignedInBrowser;
let page: Page;
let workflowId = '';
let receiver: Server;
const posted: string[] = [];

beforeAll(async () => {
  ensureWebBuilt();
  // The subscribers test's webhook listens on loopback, which a server refuses unless told.
  server = await startServer({ env: { TRIBUTARY_ALLOW_PRIVATE_URLS: '1' } });
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      posted.push(body);
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const published = await server.api('PUT', '/v1/components/web-wf-greet', {
    component_code: code('web-wf-greet.mjs'),
  });
  expect([200, 201], JSON.stringify(published.body)).toContain(published.status);
  browser = await openSignedInPage(server, { viewport: { width: 1280, height: 900 } });
  page = browser.page;
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
});

const step = (name: string) => page.getByRole('group', { name: new RegExp(`^Step \\d+: ${name}$`) });

async function fillCode(stepName: string, text: string): Promise<void> {
  await step(stepName).locator('.code-box[data-ready="true"]').waitFor();
  await page.getByRole('textbox', { name: `Code of ${stepName}` }).fill(text);
}

// Generous waits: the machine's two cores are shared by this browser, the server and its sandbox.
describe('workflows in the web app', { timeout: 120_000 }, () => {
  it('builds a workflow: an action with an expression prop and a code step, reordered, one removed', async () => {
    await page.goto(`${server.base}/workflows`);
    await page.getByText('No workflows yet').waitFor();
    await page.getByRole('link', { name: 'New workflow' }).click();
    await page.getByLabel('Workflow name').fill('web flow');
    expect(await page.getByLabel('Starts on', { exact: true }).inputValue()).toBe('manual');

    // The first step is a code step; an action step goes after it, then moves up.
    await step('step_1').getByLabel('Step name').fill('shout');
    await fillCode('shout', code('web-wf-shout-step.mjs'));
    await page.getByLabel('Props of shout (JSON)').fill('{ "text": "{{ steps.greet.$return_value }}" }');
    await page.getByRole('button', { name: 'Add an action step' }).click();
    await step('step_2').getByLabel('Step name').fill('greet');
    await step('greet').getByLabel('Action').selectOption('web-wf-greet');
    await step('greet').getByLabel('Who').fill('{{ steps.trigger.event.who }}');
    await step('greet').getByLabel('Times').fill('2');
    await page.getByRole('button', { name: 'Move greet up' }).click();
    await page.getByRole('button', { name: 'Add a code step' }).click();
    // The code box grows with the code (up to 32 lines): all 16 lines show without scrolling.
    const long = ['export default defineComponent({', ...Array.from({ length: 14 }, (_, i) => `  // ${i}`), '});'];
    await fillCode('step_3', long.join('\n'));
    const scroller = step('step_3').locator('.cm-scroller');
    expect(await scroller.evaluate((element) => element.scrollHeight - element.clientHeight)).toBeLessThanOrEqual(1);
    await page.getByRole('button', { name: 'Remove step_3' }).click();
    const names = await page.locator('.workflow-step legend').allTextContents();
    expect(names.map((name) => name.replace(/\s+/g, ' ').trim())).toEqual(['Step 1 Action', 'Step 2 Code']);
    expect(await page.getByRole('group', { name: /^Step 1: greet$/ }).count()).toBe(1);
    // A step's references: the trigger and the steps before it, to copy into a prop.
    expect(await step('shout').locator('.workflow-refs code').allTextContents()).toEqual([
      '{{ steps.trigger.event }}',
      '{{ steps.greet.$return_value }}',
    ]);
    // A full-page shot of a scrolled page draws the sticky top bar where the viewport was.
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: screenshotPath('workflow-builder'), fullPage: true });

    await page.getByRole('button', { name: 'Create workflow' }).click();
    await page.waitForURL(/\/workflows\/wf_[^/]+\/builder$/);
    workflowId = /\/workflows\/(wf_[^/]+)\//.exec(page.url())?.[1] ?? '';
    await expect.poll(() => page.getByTestId('workflow-meta').textContent()).toContain('version 1');
    const stored = await server.api<{ data: { spec: { steps: { name: string; props: unknown }[] } } }>(
      'GET',
      `/v1/workflows/${workflowId}`,
    );
    expect(stored.body.data.spec.steps.map((saved) => [saved.name, saved.props])).toEqual([
      ['greet', { who: '{{ steps.trigger.event.who }}', times: 2 }],
      ['shout', { text: '{{ steps.greet.$return_value }}' }],
    ]);
  });

  it('downloads the workflow file that deploy reads back as the same workflow', async () => {
    await page.goto(`${server.base}/workflows/${workflowId}/builder`);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download file' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('web-flow.workflow.json');
    const file = JSON.parse(readFileSync(await download.path(), 'utf8')) as Record<string, unknown>;
    const saved = await server.api<{ data: { spec: Record<string, unknown> } }>('GET', `/v1/workflows/${workflowId}`);
    // An active workflow's file leaves `active` out (a deploy makes it active); the rest is the spec.
    const { active, ...spec } = saved.body.data.spec;
    expect(active).toBe(true);
    expect(file).toEqual({ ...spec, name: 'web flow' });
    // The server takes it as it is (saved here under another name, so this workflow stays at version 1).
    const copy = await server.api<{ data: { id: string; active: boolean; spec: Record<string, unknown> } }>(
      'POST',
      '/v1/workflows',
      { ...file, name: 'web flow copy' },
    );
    expect([copy.status, copy.body.data.active]).toEqual([201, true]);
    expect([copy.body.data.spec['trigger'], copy.body.data.spec['steps']]).toEqual([spec['trigger'], spec['steps']]);
    expect((await server.api('DELETE', `/v1/workflows/${copy.body.data.id}`)).status).toBe(204);
  });

  it('tests one step against a chosen event', async () => {
    await page.goto(`${server.base}/workflows/${workflowId}/builder`);
    await page.getByLabel(/^Test event/).fill('{ "who": "Ada" }');
    await page.getByRole('button', { name: 'Test greet' }).click();
    const result = page.locator('[aria-label="Test result of greet"]');
    await result.getByText('succeeded').waitFor();
    expect(await result.getByLabel('Return value of greet').textContent()).toContain('hello Ada, hello Ada');
    expect((await server.api<{ body: unknown }>('GET', `/v1/workflows/${workflowId}/runs`)).body).toMatchObject({
      page_info: { total_count: 0 },
    });
  });

  it('runs now and inspects the run: steps, return values, logs, the delivery and the version', async () => {
    await page.goto(`${server.base}/workflows/${workflowId}/builder`);
    await page.locator('.run-now summary').click();
    await page.getByLabel('Event (JSON, optional)').fill('{ "who": "Grace" }');
    await page.getByRole('button', { name: 'Start a run' }).click();
    await page.waitForURL(/\/runs\/wfr_/);
    const inspector = page.locator('.run-inspector');
    await expect.poll(() => inspector.getByTestId('run-status').textContent(), { timeout: 60_000 }).toBe('succeeded');
    expect(await inspector.getByTestId('run-meta').textContent()).toContain('Version 1 · manual');
    const greet = inspector.getByRole('region', { name: 'Step greet' });
    expect(await greet.getByLabel('Return value of greet').textContent()).toContain('hello Grace, hello Grace');
    expect(await greet.getByLabel('Exports of greet').textContent()).toContain('length');
    expect(await greet.getByTestId('step-duration').textContent()).toMatch(/^\d+ ms$/);
    // The list shows the newest run, linked to it.
    await page.goto(`${server.base}/workflows`);
    const last = page.getByRole('link', { name: 'Last run of web flow: succeeded' });
    expect(await last.textContent()).toMatch(/^succeeded /);
    await last.click();
    await page.waitForURL(/\/runs\/wfr_/);
    const shout = inspector.getByRole('region', { name: 'Step shout' });
    expect(await shout.getByLabel('Return value of shout').textContent()).toContain('HELLO GRACE, HELLO GRACE');
    expect(await shout.locator('.log-line').allTextContents()).toEqual([
      expect.stringContaining('shouting hello Grace, hello Grace'),
    ]);
    const deliveries = inspector.getByRole('table', { name: 'Deliveries' });
    await expect
      .poll(() => deliveries.locator('tbody tr').first().textContent())
      .toMatch(/shout.*sse.*web-wf.*delivered.*1 \//);
    await page.screenshot({ path: screenshotPath('workflow-run'), fullPage: true });

    // Replay: a new run of the current version with the same event.
    const first = page.url();
    await inspector.getByRole('button', { name: 'Replay' }).click();
    await page.waitForURL((url) => url.href !== first && /\/runs\/wfr_/.test(url.href));
    // Until the new run's query answers, the inspector may still show the first run, whose status
    // is already "succeeded": wait for the replay's own meta line before reading its status.
    await expect
      .poll(() => inspector.getByTestId('run-meta').textContent(), { timeout: 60_000 })
      .toContain('Version 1 · replay');
    await expect.poll(() => inspector.getByTestId('run-status').textContent(), { timeout: 60_000 }).toBe('succeeded');
    await expect.poll(() => page.getByRole('table', { name: 'Runs' }).locator('tbody tr').count()).toBe(2);

    // On a 390 px phone the runs and the deliveries are one card per row: nothing scrolls sideways,
    // and each value keeps its column's name.
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await expect
        .poll(() =>
          page.evaluate(() => ({
            page: document.documentElement.scrollWidth <= document.documentElement.clientWidth,
            tables: [...document.querySelectorAll('table')].map((table) => table.getAttribute('aria-label')),
            wider: [...document.querySelectorAll('.table-wrap')].filter((wrap) => wrap.scrollWidth > wrap.clientWidth)
              .length,
          })),
        )
        .toEqual({ page: true, tables: ['Runs', 'Deliveries'], wider: 0 });
      const cell = page.getByRole('table', { name: 'Deliveries' }).locator('td[data-label="Target"]').first();
      expect(await cell.evaluate((td) => getComputedStyle(td, '::before').content)).toBe('"Target"');
      // The count above the cards is one line across, not a column as narrow as its longest word.
      const caption = page.getByRole('table', { name: 'Runs' }).locator('caption');
      expect(await caption.evaluate((element) => element.getBoundingClientRect().width)).toBeGreaterThan(300);
      // The builder too: its code step's lines are longer than the screen is wide, and scroll inside
      // the editor (a fieldset or grid item would otherwise grow to its content's width).
      await page.goto(`${server.base}/workflows/${workflowId}/builder`);
      await page.locator('.cm-content').first().waitFor();
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth),
      ).toBe(true);
      const scroller = page.locator('.cm-scroller').first();
      expect(await scroller.evaluate((element) => element.scrollWidth > element.clientWidth)).toBe(true);
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it('saves a new version and deactivates; a refused save changes nothing', async () => {
    await page.goto(`${server.base}/workflows/${workflowId}/builder`);
    await step('greet').getByLabel('Times').fill('3');
    await page.getByRole('button', { name: 'Save a new version' }).click();
    await expect.poll(() => page.getByTestId('workflow-meta').textContent()).toContain('version 2');

    // Two steps of one name: refused by the server, with its code, and nothing stored.
    await step('shout').getByLabel('Step name').fill('greet');
    await page.getByRole('button', { name: 'Save a new version' }).click();
    await page.getByText('WORKFLOW_DUPLICATE_STEP').waitFor();
    const after = await server.api<{ data: { version: number } }>('GET', `/v1/workflows/${workflowId}`);
    expect(after.body.data.version).toBe(2);

    await page.getByRole('button', { name: 'Deactivate' }).click();
    await expect.poll(() => page.getByTestId('workflow-meta').textContent()).toContain('inactive');
    await page.getByRole('link', { name: 'Workflows', exact: true }).first().click();
    const row = page.locator('tr', { hasText: 'web flow' });
    // The builder's trigger picker cached the list while the workflow was active at version 1: the
    // row may show that first, so wait for the values only the refreshed list has.
    await expect.poll(() => row.getByRole('switch').getAttribute('aria-checked')).toBe('false');
    await expect.poll(() => row.textContent()).toContain('v2');
  });

  it('shows a failed run with the error at the step that threw', async () => {
    const created = await server.api<{ data: { id: string } }>('POST', '/v1/workflows', {
      name: 'web failing',
      trigger: { type: 'manual' },
      steps: [
        { name: 'greet', action: 'web-wf-greet', props: { who: 'x' } },
        { name: 'boom', code: code('web-wf-throw-step.mjs') },
        { name: 'after', action: 'web-wf-greet', props: { who: 'y' } },
      ],
    });
    const started = await server.api<{ data: { run_id: string } }>(
      'POST',
      `/v1/workflows/${created.body.data.id}/run`,
      {},
    );
    await page.goto(`${server.base}/workflows/${created.body.data.id}/runs/${started.body.data.run_id}`);
    const inspector = page.locator('.run-inspector');
    await expect.poll(() => inspector.getByTestId('run-status').textContent(), { timeout: 60_000 }).toBe('failed');
    expect(await inspector.getByRole('alert').first().textContent()).toMatch(/Failed at step boom/);
    const boom = inspector.getByRole('region', { name: 'Step boom' });
    expect(await boom.getByRole('alert').textContent()).toContain('no more greetings');
    // The error and its stack are in the box; the log line that repeats them is not shown twice.
    expect(await boom.locator('pre.stack').textContent()).toMatch(/^Error: no more greetings\n\s+at /);
    expect(await boom.locator('.log-line').count()).toBe(0);
    expect(await boom.getByText('No logs.').count()).toBe(1);
    // It threw: no return value is shown, where `null` would read as one.
    expect(await boom.getByLabel('Return value of boom').count()).toBe(0);
    expect(
      await inspector.getByRole('region', { name: 'Step greet' }).getByLabel('Return value of greet').count(),
    ).toBe(1);
    expect(await inspector.getByRole('region', { name: 'Step after' }).getByText('skipped').count()).toBe(1);

    // The runs list filtered by status, kept in the address and while a run is open beside it.
    await page.goto(`${server.base}/workflows/${created.body.data.id}/runs`);
    await page.getByLabel('Status').selectOption('succeeded');
    await page.getByText('No succeeded runs').waitFor();
    expect(new URL(page.url()).search).toBe('?status=succeeded');
    await page.getByLabel('Status').selectOption('failed');
    const table = page.getByRole('table', { name: 'Runs' });
    await expect.poll(() => table.locator('caption').textContent()).toBe('1 failed run');
    await table.getByRole('link', { name: started.body.data.run_id }).click();
    await page.waitForURL(new RegExp(`/runs/${started.body.data.run_id}\\?status=failed$`));
    expect(await page.getByLabel('Status').inputValue()).toBe('failed');
  });
  it("adds subscribers on an emitter's page: a webhook gets each event, a workflow starts a run", async () => {
    const create = async (name: string, stepCode: string) =>
      (
        await server.api<{ data: { id: string } }>('POST', '/v1/workflows', {
          name,
          trigger: { type: 'manual' },
          steps: [{ name: 'step', code: stepCode }],
        })
      ).body.data.id;
    const emitter = await create(
      'web emitter',
      "export default defineComponent({ async run({ steps, $ }) { $.send.emit({ who: steps.trigger.event.who }); return 'sent'; } });",
    );
    const listener = await create('web listener', 'export default defineComponent({ async run() { return 1; } });');
    await page.goto(`${server.base}/workflows/${emitter}/builder`);
    const panel = page.locator('details.subscribers');
    await panel.locator('summary').click();
    await panel.getByText('No subscribers').waitFor();
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    await panel.getByLabel('Webhook URL').fill(url);
    await panel.getByRole('button', { name: 'Subscribe' }).click();
    expect(await panel.getByTestId('webhook-secret').textContent()).toMatch(/^whsec_/);
    await panel.getByLabel('Send each event to').selectOption('workflow');
    await panel.getByLabel('Workflow', { exact: true }).selectOption(listener);
    await panel.getByRole('button', { name: 'Subscribe' }).click();
    await expect.poll(() => panel.getByTestId('subscriber').count()).toBe(2);
    expect(await panel.locator('summary').textContent()).toBe('Subscribers (2)');

    await server.api('POST', `/v1/workflows/${emitter}/run`, { event: { who: 'Ada' } });
    await expect.poll(() => posted.length, { timeout: 30_000 }).toBe(1);
    expect(JSON.parse(posted[0] ?? '{}').event).toEqual({ who: 'Ada' });
    const hook = panel.getByTestId('subscriber').filter({ hasText: url });
    await hook.getByRole('button', { name: 'Deliveries' }).click();
    await expect
      .poll(() => panel.getByTestId('subscription-delivery').first().textContent(), { timeout: 30_000 })
      .toMatch(/delivered1 \/ 5/);
    await expect
      .poll(async () => {
        const runs = await server.api<{ data: { trigger: string }[] }>('GET', `/v1/workflows/${listener}/runs`);
        return runs.body.data.map((run) => run.trigger);
      })
      .toEqual(['emit']);

    await hook.getByRole('button', { name: /^Remove subscription/ }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove subscription' }).click();
    await expect.poll(() => panel.getByTestId('subscriber').count()).toBe(1);
    await panel.getByTestId('subscriber').getByRole('link', { name: listener }).click();
    await page.waitForURL(new RegExp(`/workflows/${listener}/builder$`));
  });
});
