/**
 * What a fired job says of its slot (src/redis/bullmq-timer-jobs.ts): the time the job scheduler
 * made it for, one period after the slot before it, the same whichever process upserted the job
 * scheduler or took the job. Needs Redis (tools/test-support/test-redis.ts); works under a BullMQ
 * prefix of its own, whose keys are deleted after it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectTestRedis,
  deleteTestKeys,
  TEST_REDIS_URL,
  testRedisPrefix,
} from '../../../tools/test-support/test-redis.js';
import { BullmqTimerJobs, connectRedis } from '../src/index.js';
import type { FiredTimer } from '../src/redis/bullmq-timer-jobs.js';

const prefix = testRedisPrefix();
let admin: Awaited<ReturnType<typeof connectTestRedis>>;
const opened: BullmqTimerJobs[] = [];

beforeAll(async () => {
  admin = await connectTestRedis('tributary-test-timer-slots');
});
afterAll(async () => {
  for (const jobs of opened) await jobs.close();
  if (!admin) return;
  await deleteTestKeys(admin, prefix);
  await admin.quit();
});

async function openJobs(): Promise<BullmqTimerJobs> {
  const jobs = new BullmqTimerJobs({
    redis: await connectRedis({ url: TEST_REDIS_URL, name: 'tributary-test-timer-slots', maxRetriesPerRequest: null }),
    prefix,
    log: () => undefined,
  });
  opened.push(jobs);
  return jobs;
}

describe('the slot of a fired timer job', () => {
  it('is its job scheduler’s slot: a period after the one before, on one phase, whichever process took it', async () => {
    const [a, b] = [await openJobs(), await openJobs()];
    const wanted = {
      source: [{ id: 'dc_slots', schedule: { kind: 'interval' as const, intervalSeconds: 1 } }],
      workflow: [],
    };
    // Two processes upsert the same job scheduler at once, as two starting schedulers do.
    await Promise.all([a.sync(wanted), b.sync(wanted)]);
    const fired: { readonly at: number; readonly timer: FiredTimer }[] = [];
    const take = async (timer: FiredTimer): Promise<void> => {
      fired.push({ at: Date.now(), timer });
    };
    await Promise.all([a.listen(take), b.listen(take)]);
    const started = Date.now();
    // Four slots after the one at creation, or 30 s on a loaded machine.
    while (new Set(fired.map((entry) => entry.timer.scheduledAt)).size < 5 && Date.now() < started + 30_000)
      await new Promise((resolve) => setTimeout(resolve, 50));
    await a.sync({ source: [], workflow: [] });

    const slots = [...new Set(fired.map((entry) => entry.timer.scheduledAt))].sort((x, y) => x - y);
    expect(slots.length).toBeGreaterThanOrEqual(5);
    expect(fired.every((entry) => entry.timer.owner === 'source' && entry.timer.id === 'dc_slots')).toBe(true);
    // After the job at creation, each slot is the one before plus the period, exactly.
    const after = slots.slice(1);
    for (const [index, slot] of after.slice(1).entries()) expect(slot - (after[index] ?? 0)).toBe(1000);
    // A job runs at its slot or after it, never before.
    for (const entry of fired) expect(entry.at).toBeGreaterThanOrEqual(entry.timer.scheduledAt);
  }, 60_000);
});
