/**
 * A workflow's HTTP trigger that finds every run slot taken waits for one (decision 0021): its run
 * is acknowledged as it starts, stepped from memory, instead of queued behind a backlog. The wait
 * is bounded, and other triggers never wait. Real engines on SQLite files, real sandbox workers.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Engine } from '../src/engine.js';
import { workflowRunsAtOnce } from '../src/workflows/compose-workflows.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../fixtures/components/workflows');
const SLOW_STEP = readFileSync(path.join(FIXTURES, 'slow-step.mjs'), 'utf8');
/** Concurrency 1: the runner steps this many workflow runs at once. */
const SLOTS = workflowRunsAtOnce(1);

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function startEngine(workflowSlotWaitMs: number): Promise<Engine> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tributary-slot-wait-data-'));
  const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'tributary-slot-wait-cache-'));
  const engine = await Engine.create({
    dataDir,
    cacheDir,
    publicUrl: 'http://endpoints.test.invalid',
    allowPrivateUrls: false,
    concurrency: 1,
    sourceTimeoutMs: 20_000,
    log: () => undefined,
    workflowSlotWaitMs,
  });
  await engine.start();
  cleanups.push(async () => {
    await engine.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(cacheDir, { recursive: true, force: true });
  });
  return engine;
}

/** A workflow whose one step sleeps `ms`; every run slot is then taken by a manual run of it. */
async function slotsTaken(engine: Engine, ms: number): Promise<{ id: string; runs: string[] }> {
  const workflow = await engine.workflows.create({
    name: `sleeps ${ms} ms`,
    trigger: { type: 'http' },
    steps: [{ name: 'slow', code: SLOW_STEP, props: { ms } }],
  });
  const runs: string[] = [];
  for (let i = 0; i < SLOTS; i += 1) runs.push(await engine.workflows.trigger(workflow.id, 'manual', { i }));
  for (const run of runs) expect((await engine.workflows.getRun(run)).status).toBe('running');
  return { id: workflow.id, runs };
}

async function finished(engine: Engine, runId: string): Promise<string> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const { status } = await engine.workflows.getRun(runId);
    if (['succeeded', 'exited', 'failed', 'cancelled'].includes(status)) return status;
    if (Date.now() > deadline) throw new Error(`run ${runId} is still ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('an HTTP trigger with every run slot taken', () => {
  it('waits for a slot and is acknowledged with its run already running; a manual run is queued at once', async () => {
    const engine = await startEngine(30_000);
    const { id } = await slotsTaken(engine, 300);
    const manual = await engine.workflows.trigger(id, 'manual', { late: true });
    expect((await engine.workflows.getRun(manual)).status).toBe('queued');
    const asked = Date.now();
    const http = await engine.workflows.trigger(id, 'http', { body: {} });
    // Acknowledged once a slow run ended and gave it its slot, not before.
    expect(Date.now() - asked).toBeGreaterThanOrEqual(200);
    expect((await engine.workflows.getRun(http)).status).toBe('running');
    expect(await finished(engine, http)).toBe('succeeded');
    expect(await finished(engine, manual)).toBe('succeeded');
  });

  it('queues its run and answers once the wait runs out', async () => {
    const engine = await startEngine(100);
    const { id, runs } = await slotsTaken(engine, 1_000);
    const asked = Date.now();
    const http = await engine.workflows.trigger(id, 'http', { body: {} });
    expect(Date.now() - asked).toBeLessThan(900);
    expect((await engine.workflows.getRun(http)).status).toBe('queued');
    expect(await finished(engine, http)).toBe('succeeded');
    for (const run of runs) expect(await finished(engine, run)).toBe('succeeded');
  });
});
