/**
 * The kill -9 run of bench/workflows-vs-node-red.mjs at a small seed: 300 acknowledged requests to
 * a workflow whose HTTP trigger answers when the run is queued (-> the curated pick-fields action
 * -> a code step), with 3 kill -9 of the `tributary start` process (SQLite) while they flow, each
 * followed by a restart. Every acknowledged request ends as exactly one succeeded run. The full
 * size (5,000 runs, 20 kills) runs in `npm run bench:workflows`.
 */
import { describe, expect, it } from 'vitest';
import { runKillStream } from '../../../bench/workflow-kill-lib.mjs';

describe('workflow runs under kill -9 (small seed)', () => {
  it('loses no acknowledged run and runs none twice across 3 kill -9', async () => {
    const result = await runKillStream({ runs: 300, kills: 3 });
    expect(result.acknowledged).toBeGreaterThanOrEqual(300);
    expect(result).toMatchObject({ kills: 3, lost: 0, notFinished: 0, failed: 0, duplicates: 0 });
    expect(result.runsStored).toBeGreaterThanOrEqual(result.acknowledged);
  }, 120_000);
});
