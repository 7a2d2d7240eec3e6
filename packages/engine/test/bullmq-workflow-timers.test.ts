/**
 * Timer workflows' job schedulers follow the workflows on a real engine (SQLite file, real sandbox
 * for the code step) with real Redis under a key prefix of its own (tools/test-support/test-redis.ts):
 * saving, deactivating, activating, changing the trigger and deleting a workflow, through the
 * workflow service as the API calls it, upserts or removes `wftimer:<workflow id>` without a
 * scheduler started in this process (as on an `api` process).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  connectTestRedis,
  deleteTestKeys,
  TEST_REDIS_URL,
  testRedisPrefix,
} from '../../../tools/test-support/test-redis.js';
import { Engine } from '../src/engine.js';
import { BullmqTimerJobs, connectRedis } from '../src/index.js';
import type { ScheduledTimer } from '../src/redis/bullmq-timer-jobs.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../fixtures/components/workflows');
const prefix = testRedisPrefix();
let redis: Awaited<ReturnType<typeof connectTestRedis>>;
let jobs: BullmqTimerJobs;
let engine: Engine;
let dataDir: string;
let cacheDir: string;

beforeAll(async () => {
  redis = await connectTestRedis('tributary-test-workflow-timers');
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'tributary-wft-data-'));
  cacheDir = mkdtempSync(path.join(os.tmpdir(), 'tributary-wft-cache-'));
  // The engine closes the jobs (and their connection) when it stops.
  jobs = new BullmqTimerJobs({
    redis: await connectRedis({
      url: TEST_REDIS_URL,
      name: 'tributary-test-workflow-timers',
      maxRetriesPerRequest: null,
    }),
    prefix: `${prefix}bull`,
    log: () => undefined,
  });
  engine = await Engine.create({
    dataDir,
    cacheDir,
    publicUrl: 'http://endpoints.test.invalid',
    allowPrivateUrls: false,
    concurrency: 2,
    sourceTimeoutMs: 20_000,
    log: () => undefined,
    timerJobs: jobs,
  });
  await engine.start('api');
});

afterAll(async () => {
  await engine?.stop();
  if (redis) {
    await deleteTestKeys(redis, prefix);
    await redis.quit();
  }
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(cacheDir, { recursive: true, force: true });
});

/** The workflows' job schedulers once they match `expected` (the sync after a change is async). */
async function workflowTimers(expected: readonly Partial<ScheduledTimer>[]): Promise<ScheduledTimer[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const timers = (await jobs.scheduled()).filter((timer) => timer.owner === 'workflow');
    const matches =
      timers.length === expected.length &&
      expected.every((want, index) =>
        Object.entries(want).every(([key, value]) => timers[index]?.[key as keyof ScheduledTimer] === value),
      );
    if (matches || Date.now() > deadline) return timers;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('timer workflows’ job schedulers follow the workflow service (Redis at 127.0.0.1:6379)', () => {
  it('upserts wftimer:<id> on save and activation, removes it on deactivation, a trigger change and delete', async () => {
    const steps = [{ name: 'double', code: readFileSync(path.join(FIXTURES, 'double-step.mjs'), 'utf8') }];
    const workflow = await engine.workflows.create({
      name: 'every quarter minute',
      trigger: { type: 'timer', interval_seconds: 15 },
      steps,
    });
    await engine.workflows.create({ name: 'by hand', trigger: { type: 'manual' }, steps });
    expect(await workflowTimers([{ id: workflow.id, every: 15_000 }])).toEqual([
      expect.objectContaining({ id: workflow.id, every: 15_000 }),
    ]);
    await engine.workflows.setActive(workflow.id, false);
    expect(await workflowTimers([])).toEqual([]);
    await engine.workflows.setActive(workflow.id, true);
    expect(await workflowTimers([{ id: workflow.id }])).toHaveLength(1);
    const cron = { type: 'timer', cron: '0 9 * * 1', timezone: 'Europe/Paris' };
    await engine.workflows.update(workflow.id, { name: 'mondays', trigger: cron, steps });
    expect(await workflowTimers([{ id: workflow.id, pattern: '0 9 * * 1', tz: 'Europe/Paris' }])).toEqual([
      expect.objectContaining({ id: workflow.id, pattern: '0 9 * * 1', tz: 'Europe/Paris' }),
    ]);
    await engine.workflows.update(workflow.id, { name: 'by hand now', trigger: { type: 'manual' }, steps });
    expect(await workflowTimers([])).toEqual([]);
    await engine.workflows.update(workflow.id, { name: 'mondays again', trigger: cron, steps });
    expect(await workflowTimers([{ id: workflow.id }])).toHaveLength(1);
    await engine.workflows.delete(workflow.id);
    expect(await workflowTimers([])).toEqual([]);
  });
});
