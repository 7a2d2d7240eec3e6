/**
 * Issue 14, "Starvation": sources whose runs hang until their deadline must not take every run
 * slot. Four hanging sources run on a server of four slots while a canary source's event is sent;
 * the canary's run must finish while the four still hang (their invocations still queued). And when
 * even the long-run slots are taken, `/readyz` says so instead of staying ready.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { deployFixture, postEvent as send, readRows, startHarness, waitFor, type Harness } from './server-harness.js';

const harnesses: Harness[] = [];

afterAll(async () => {
  for (const harness of harnesses) await harness.close({ remove: true });
});

function deployStuck(harness: Harness, name: string): Promise<{ id: string; url: string }> {
  return deployFixture(harness, 'server/stuck-run.mjs', name);
}

function queued(harness: Harness, sourceIds: readonly string[]): number {
  const marks = sourceIds.map(() => '?').join(',');
  const rows = readRows<{ n: number }>(
    harness.dbFile,
    `SELECT count(*) AS n FROM invocations WHERE source_id IN (${marks})`,
    ...sourceIds,
  );
  return Number(rows[0]?.n ?? 0);
}

describe('fair scheduling', () => {
  it("runs a canary source's event while four sources hang in every regular slot", async () => {
    // The hanging runs last until their 20 s deadline; the canary's run takes milliseconds.
    const harness = await startHarness({ concurrency: 4, longRunMs: 200, sourceTimeoutMs: 20_000 });
    harnesses.push(harness);
    const hanging = [];
    for (let index = 0; index < 4; index += 1) hanging.push(await deployStuck(harness, `hangs ${index}`));
    const canary = await deployStuck(harness, 'canary');

    for (const source of hanging) expect((await send(source.url, { stuck: true })).status).toBe(200);
    await waitFor(
      async () => harness.engine.runner.progress().running === 4,
      'the four hanging runs to take the four slots',
    );
    expect((await send(canary.url, { stuck: false })).status).toBe(200);

    const events = await waitFor(async () => {
      const page = await harness.request('GET', `/v1/sources/${canary.id}/event_summaries`);
      return page.body.data.length > 0 ? page.body.data : undefined;
    }, "the canary's event");
    expect(events).toHaveLength(1);
    // The four are still hanging: their invocations stay queued until their deadline.
    expect(
      queued(
        harness,
        hanging.map((source) => source.id),
      ),
    ).toBe(4);
    expect(harness.engine.runner.progress().slots.long).toHaveLength(4);
  });

  it('/readyz fails with runner while every slot is taken and other sources wait, and recovers', async () => {
    // One slot and no long-run slot: one hanging run takes everything.
    const harness = await startHarness({
      concurrency: 1,
      longRunSlots: 0,
      sourceTimeoutMs: 4000,
      readiness: { runnerWaitMs: 500 },
    });
    harnesses.push(harness);
    const hangs = await deployStuck(harness, 'hangs');
    const waiting = await deployStuck(harness, 'waits');
    expect((await send(hangs.url, { stuck: true })).status).toBe(200);
    await waitFor(async () => harness.engine.runner.progress().running === 1, 'the hanging run to start');
    expect((await send(waiting.url, { stuck: false })).status).toBe(200);

    const starved = await waitFor(async () => {
      const answer = await harness.request('GET', '/readyz', { key: null });
      return answer.status === 503 ? answer.body : undefined;
    }, '/readyz to report the starved runner');
    expect(starved).toMatchObject({ status: 'not_ready', reason: 'runner' });
    expect(starved.failures[0].message).toMatch(
      /every run slot is taken \(1 running, 0 of them long runs\) and other sources' queued work has waited \d+ ms \(limit 500 ms\)/,
    );
    const status = await harness.request('GET', '/v1/status');
    expect(status.body.data.ready).toBe(false);
    expect(status.body.data.not_ready[0].check).toBe('runner');
    expect((await harness.request('GET', '/healthz', { key: null })).status).toBe(200);

    // The deadline stops the hanging run, the waiting one runs, and readiness comes back. Readiness
    // returns as soon as the waiting run holds the slot, before its commit removes its queue entry,
    // so the entry is awaited on its own.
    await waitFor(async () => {
      const answer = await harness.request('GET', '/readyz', { key: null });
      return answer.status === 200;
    }, 'readiness to come back');
    await waitFor(async () => queued(harness, [waiting.id]) === 0, "the waiting source's run to commit");
  });
});
