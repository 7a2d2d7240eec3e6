/**
 * The reliability run of bench/reliability.mjs at a small seed: 300 HTTP events, 3 kill -9 of
 * random processes while they flow, each restarted; three processes on PostgreSQL and Redis (needs
 * both, as tools/test-support describes), then one on SQLite. Every acknowledged event runs, in
 * its source's order, none twice, and no timer tick fires twice. `npm run bench:reliability` runs
 * the full size (10,000 events, 20 kills).
 */
import { describe, expect, it } from 'vitest';
import { runReliability } from '../../../bench/reliability-lib.mjs';

describe('reliability under kill -9 (small seed)', () => {
  it('three processes on PostgreSQL and Redis lose no acknowledged event, keep order and fire each tick once', async () => {
    const result = await runReliability({ backend: 'postgres', events: 300, kills: 3, timers: 3 });
    expect(result.acknowledged).toBeGreaterThanOrEqual(300);
    expect(result).toMatchObject({ processes: 3, kills: 3, lost: 0, outOfOrder: 0, ranTwice: 0, ticksTwice: 0 });
    expect(result.ticks).toBeGreaterThan(0);
  }, 240_000);

  it('one process on SQLite loses no acknowledged event, keeps order and fires each tick once', async () => {
    const result = await runReliability({ backend: 'sqlite', events: 300, kills: 3, timers: 3 });
    expect(result.acknowledged).toBeGreaterThanOrEqual(300);
    expect(result).toMatchObject({ processes: 1, kills: 3, lost: 0, outOfOrder: 0, ranTwice: 0, ticksTwice: 0 });
    expect(result.ticks).toBeGreaterThan(0);
  }, 180_000);
});
