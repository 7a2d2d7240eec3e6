/**
 * Timer sources across a restart: schedules live in the SQLite file, and a tick missed while the
 * server was down fires once when it starts again, not once per missed tick.
 */
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { fixture, openSqlite, queueIdle, readRows, startHarness, waitFor, type Harness } from './server-harness.js';

const harnesses: Harness[] = [];

afterAll(async () => {
  for (const harness of harnesses) await harness.close();
  const first = harnesses[0];
  if (first) {
    rmSync(first.dataDir, { recursive: true, force: true });
    rmSync(first.cacheDir, { recursive: true, force: true });
  }
});

describe('missed timer ticks', () => {
  it('fires one invocation for many missed ticks after a restart, then follows the schedule from now', async () => {
    // First run: deploy the timer without starting the scheduler, then stop.
    const first = await startHarness({ startEngine: false });
    harnesses.push(first);
    const deployed = await first.request('POST', '/v1/sources', {
      body: { component_code: fixture('f03-tick.mjs'), configured_props: { timer: { intervalSeconds: 15 } } },
    });
    expect(deployed.status).toBe(200);
    expect(deployed.body.data.configured_props).toEqual({ timer: { cron: null, interval_seconds: 15 } });
    const id = deployed.body.data.id as string;
    const inactive = (
      await first.request('POST', '/v1/sources', {
        body: {
          component_code: fixture('f03-tick.mjs'),
          configured_props: { timer: { intervalSeconds: 15 } },
          name: 'paused',
        },
      })
    ).body.data.id as string;
    expect((await first.request('PUT', `/v1/sources/${inactive}`, { body: { active: false } })).status).toBe(200);
    expect((await first.request('GET', `/v1/sources/${id}/event_summaries`)).body.page_info.total_count).toBe(0);
    await first.close();

    // While it is down, the next fire time falls a day behind: 5760 ticks of 15 s were missed.
    const missedSince = Date.now() - 24 * 60 * 60 * 1000;
    const sqlite = openSqlite(first.dbFile);
    try {
      sqlite.prepare('UPDATE sources SET next_fire_at = ? WHERE id IN (?, ?)').run(missedSince, id, inactive);
    } finally {
      sqlite.close();
    }

    // Second run on the same data directory (and the same API key).
    const second = await startHarness({ dataDir: first.dataDir, cacheDir: first.cacheDir, apiKey: first.key });
    harnesses.push(second);
    const summaries = async (sourceId: string) =>
      (await second.request('GET', `/v1/sources/${sourceId}/event_summaries?limit=100&expand=event`)).body;
    await waitFor(async () => (await summaries(id)).page_info.total_count >= 1, 'the missed tick to fire', 20_000);
    await queueIdle(second, id);
    // Give a second tick every chance to show up if missed ticks were replayed one by one.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const bin = await summaries(id);
    expect(bin.page_info.total_count).toBe(1);
    // The event is the missed tick's: its timestamp is the time it should have fired.
    expect(bin.data[0].event).toEqual({ at: Math.floor(missedSince / 1000), every: 15 });
    const logs = (await second.request('GET', `/v1/sources/${id}/logs?limit=100`)).body.data.map(
      (entry: { message: string }) => entry.message,
    );
    expect(logs.filter((message: string) => message === '--- run started')).toHaveLength(1);

    // The next tick is scheduled from now, not from the missed time.
    const [row] = readRows<{ next_fire_at: number; active: number }>(
      second.dbFile,
      'SELECT next_fire_at, active FROM sources WHERE id = ?',
      id,
    );
    if (!row) throw new Error(`no source ${id}`);
    expect(row.next_fire_at).toBeGreaterThan(Date.now());
    expect(row.next_fire_at).toBeLessThanOrEqual(Date.now() + 15_000);
    // The inactive source did not fire at all.
    expect((await summaries(inactive)).page_info.total_count).toBe(0);
    const source = await second.request('GET', `/v1/sources/${id}`);
    expect(source.body.data).toMatchObject({
      id,
      active: true,
      configured_props: { timer: { cron: null, interval_seconds: 15 } },
    });
  });
});
