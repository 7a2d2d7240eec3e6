/**
 * Deleting a source whose run hangs: the run is stopped at once (its worker call ended, nothing of
 * it committed, no attempt, no dead letter), then the source goes as always, without waiting for
 * the run's deadline. Another source of the same component (the same worker group) keeps its work.
 * A run whose source another process deleted without stopping it ends with nothing kept, and no
 * failure. A delete that stopped the run and was then refused (its `deactivate` threw) gives the
 * run back at once, not at the runner's next re-read of the queue.
 */
import { afterAll, describe, expect, it } from 'vitest';
import {
  deployFixture,
  openSqlite,
  postEvent as send,
  countSourceRows,
  sourceEvents,
  startHarness,
  waitFor,
  type Harness,
} from './server-harness.js';

const harnesses: Harness[] = [];

afterAll(async () => {
  for (const harness of harnesses) await harness.close({ remove: true });
});

function deployStuck(harness: Harness, name: string): Promise<{ id: string; url: string }> {
  return deployFixture(harness, 'server/stuck-run.mjs', name);
}

describe('DELETE /v1/sources/:id while its run hangs', () => {
  it('stops the run, removes the source with its events and queue, and keeps the other source running', async () => {
    // The hanging run would last until its deadline, two minutes away: far past this test's timeout.
    const harness = await startHarness({ sourceTimeoutMs: 120_000, metrics: true });
    harnesses.push(harness);
    const stuck = await deployStuck(harness, 'stuck');
    const other = await deployStuck(harness, 'other');

    expect((await send(stuck.url, { stuck: false })).status).toBe(200);
    await waitFor(
      async () => (await sourceEvents<unknown>(harness, stuck.id)).length === 1,
      "the stuck source's first event",
    );
    expect((await send(other.url, { stuck: false })).status).toBe(200);
    expect((await send(stuck.url, { stuck: true })).status).toBe(200);
    expect((await send(stuck.url, { stuck: false })).status).toBe(200);
    await waitFor(
      async () => harness.engine.runner.progress().slots.long.length === 1,
      'the hanging run to be running (moved to a long-run slot)',
    );

    const deleted = await harness.request('DELETE', `/v1/sources/${stuck.id}`);
    expect(deleted.status).toBe(200);
    expect(harness.logLines.some((line) => line.includes(`the run of ${stuck.id} in flight was stopped`))).toBe(true);
    expect((await harness.request('GET', `/v1/sources/${stuck.id}`)).status).toBe(404);
    for (const table of ['invocations', 'events', 'dead_letters', 'source_state'])
      expect(countSourceRows(harness, table, stuck.id), table).toBe(0);

    // The other source's event sent before the delete, and one sent after it, both run.
    expect((await send(other.url, { stuck: false })).status).toBe(200);
    await waitFor(
      async () => (await sourceEvents<unknown>(harness, other.id)).length === 2,
      "the other source's two events",
    );
    await waitFor(
      async () => countSourceRows(harness, 'invocations', other.id) === 0,
      "the other source's queue to empty",
    );
    expect(countSourceRows(harness, 'dead_letters', other.id)).toBe(0);

    const metrics = await harness.request('GET', '/metrics');
    expect(metrics.text).toMatch(/tributary_sandbox_worker_exits_total\{reason="cancelled"\} 1/);
  });

  it('drops, as no failure, a run whose source was deleted elsewhere while it ran (its stop request missed)', async () => {
    const harness = await startHarness({ metrics: true });
    harnesses.push(harness);
    const slow = await deployFixture(harness, 'server/hang-for.mjs', 'slow');
    expect((await send(slow.url, { ms: 1500 })).status).toBe(200);
    await waitFor(async () => harness.engine.runner.progress().running === 1, 'the slow run to be running');
    // Another process's delete (the rows it removes), with no stop request reaching this one.
    const sqlite = openSqlite(harness.dbFile);
    try {
      sqlite.prepare('DELETE FROM sources WHERE id = ?').run(slow.id);
      for (const table of ['invocations', 'events', 'logs', 'source_state'])
        sqlite.prepare(`DELETE FROM ${table} WHERE source_id = ?`).run(slow.id);
    } finally {
      sqlite.close();
    }
    const dropped = `the run of ${slow.id} ended after its source was deleted: nothing of it was kept`;
    await waitFor(async () => harness.logLines.some((line) => line.includes(dropped)), 'the run to end, dropped');
    for (const table of ['invocations', 'events', 'logs', 'dead_letters', 'source_state'])
      expect(countSourceRows(harness, table, slow.id), table).toBe(0);
    expect(harness.logLines.some((line) => line.includes('failed in the platform'))).toBe(false);
    const metrics = await harness.request('GET', '/metrics');
    expect(metrics.text).not.toMatch(/tributary_invocation_platform_failures_total\{[^}]*\} [1-9]/);
  });

  it('runs the stopped invocation again when the delete is refused, without waiting for a rescan of the queue', async () => {
    // A rescan an hour away: only the refused delete can give the stopped run its turn back.
    const harness = await startHarness({ queueRescanMs: 3_600_000 });
    harnesses.push(harness);
    const kept = await deployFixture(harness, 'server/hang-keep-on-delete.mjs', 'kept');
    expect((await send(kept.url, { ms: 1500 })).status).toBe(200);
    await waitFor(async () => harness.engine.runner.progress().running === 1, 'the run to be running');

    const refused = await harness.request('DELETE', `/v1/sources/${kept.id}`);
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('HOOK_FAILED');
    expect(harness.logLines.some((line) => line.includes(`the run of ${kept.id} in flight was stopped`))).toBe(true);
    expect((await harness.request('GET', `/v1/sources/${kept.id}`)).status).toBe(200);

    // The stopped run committed nothing; its entry runs again, whole, and leaves the queue.
    await waitFor(async () => (await sourceEvents<unknown>(harness, kept.id)).length === 1, "the kept source's event");
    await waitFor(
      async () => countSourceRows(harness, 'invocations', kept.id) === 0,
      "the kept source's queue to empty",
    );
    expect(countSourceRows(harness, 'dead_letters', kept.id)).toBe(0);
  });
});
