/**
 * Workflow triggers on a real engine: timers and cron (on a clock the test moves forward), and a
 * deployed source whose emits, after its dedupe, each start a run.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Engine } from '../src/engine.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../fixtures/components/workflows');
const code = (file: string): string => readFileSync(path.join(FIXTURES, file), 'utf8');

let engine: Engine;
let offset = 0;
const dirs: string[] = [];

beforeAll(async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tributary-wft-data-'));
  const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'tributary-wft-cache-'));
  dirs.push(dataDir, cacheDir);
  engine = await Engine.create({
    dataDir,
    cacheDir,
    publicUrl: 'http://endpoints.test.invalid',
    allowPrivateUrls: false,
    concurrency: 4,
    sourceTimeoutMs: 20_000,
    log: () => undefined,
    now: () => Date.now() + offset,
  });
  await engine.start();
  await engine.components.publish('wf-greet', { code: code('greet-action.mjs') });
});

afterAll(async () => {
  await engine.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function runsOf(id: string, count: number) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const page = await engine.workflows.listRuns(id, { limit: 50 });
    const done = page.data.filter((run) => run.status === 'succeeded');
    if (done.length >= count) return page.data;
    if (Date.now() > deadline) throw new Error(`${id} has ${JSON.stringify(page.data.map((run) => run.status))}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('workflow triggers', () => {
  it('fires an interval timer and a cron schedule with the timer event', async () => {
    const step = [{ name: 'greet', action: 'wf-greet', props: { name: 'timer' } }];
    const interval = await engine.workflows.create({
      name: 'every 15 s',
      trigger: { type: 'timer', interval_seconds: 15 },
      steps: step,
    });
    const cron = await engine.workflows.create({
      name: 'every minute',
      trigger: { type: 'timer', cron: '* * * * *' },
      steps: step,
    });
    expect(await engine.workflows.listRuns(interval.id, { limit: 5 })).toMatchObject({ total: 0 });
    offset += 61_000;
    const [tick] = await runsOf(interval.id, 1);
    expect(tick).toMatchObject({ trigger: 'timer', event: { interval_seconds: 15 } });
    const [minute] = await runsOf(cron.id, 1);
    expect(minute).toMatchObject({ trigger: 'timer', event: { cron: '* * * * *' } });
    // Missed ticks fire once, not once per missed interval.
    expect((await engine.workflows.listRuns(interval.id, { limit: 5 })).total).toBe(1);
    await engine.workflows.setActive(interval.id, false);
    await engine.workflows.setActive(cron.id, false);
  });

  it('keeps the next tick when a save leaves the schedule as it was, and counts again from a new one', async () => {
    const spec = (name: string, interval: number) => ({
      name,
      trigger: { type: 'timer' as const, interval_seconds: interval },
      steps: [{ name: 'greet', action: 'wf-greet', props: { name: 'kept' } }],
    });
    const workflow = await engine.workflows.create(spec('hourly', 3600));
    // 50 minutes on, a save that renames it: the tick still comes at the hour, not an hour later.
    offset += 50 * 60_000;
    await engine.workflows.update(workflow.id, spec('hourly, renamed', 3600));
    offset += 11 * 60_000;
    await runsOf(workflow.id, 1);
    // A new interval counts from the save that sets it.
    await engine.workflows.update(workflow.id, spec('hourly, renamed', 7200));
    offset += 61 * 60_000;
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect((await engine.workflows.listRuns(workflow.id, { limit: 5 })).total).toBe(1);
    await engine.workflows.setActive(workflow.id, false);
  });

  it("starts one run per event a deployed source emits, after the source's dedupe", async () => {
    const source = await engine.sources.deploy({ componentCode: code('emit-source.mjs'), name: 'emitter' });
    const workflow = await engine.workflows.create({
      name: 'on emit',
      trigger: { type: 'source', source_id: source.id },
      steps: [{ name: 'greet', action: 'wf-greet', props: { name: '{{ `n${steps.trigger.event.n}` }}' } }],
    });
    for (const n of [1, 2, 1]) await engine.runner.enqueue({ sourceId: source.id, trigger: 'manual', event: { n } });
    const runs = await runsOf(workflow.id, 2);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const all = (await engine.workflows.listRuns(workflow.id, { limit: 10 })).data;
    expect(all).toHaveLength(2);
    expect(runs.map((run) => run.steps[0]?.exports).sort()).toEqual([
      { greeting: 'Hello, n2!' },
      { greeting: 'Hello, n1!' },
    ]);
    expect(all.every((run) => run.trigger === 'source')).toBe(true);
  });

  it('starts a run of each listening workflow per $.send.emit of another workflow', async () => {
    const emitter = await engine.workflows.create({
      name: 'emitter',
      trigger: { type: 'manual' },
      steps: [{ name: 'emit', code: code('emit-step.mjs') }],
    });
    const listener = await engine.workflows.create({
      name: 'listener',
      trigger: { type: 'emit', workflow_id: emitter.id },
      steps: [{ name: 'greet', action: 'wf-greet', props: { name: '{{ steps.trigger.event.hello }}' } }],
    });
    // Listening to itself, or to a workflow that listens to it, would loop for ever.
    const loops: [string, string][] = [
      [listener.id, listener.id],
      [emitter.id, listener.id],
    ];
    for (const [id, emitterId] of loops) {
      await expect(
        engine.workflows.update(id, {
          name: 'loop',
          trigger: { type: 'emit', workflow_id: emitterId },
          steps: [{ name: 'greet', action: 'wf-greet' }],
        }),
      ).rejects.toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'trigger.workflow_id' } });
    }
    await engine.workflows.trigger(emitter.id, 'manual', { who: 'Lin' });
    const runs = await runsOf(listener.id, 2);
    expect(runs.map((run) => run.trigger)).toEqual(['emit', 'emit']);
    expect(runs.map((run) => run.steps[0]?.exports['greeting']).sort()).toEqual(['Hello, Lin again!', 'Hello, Lin!']);
  });
});
