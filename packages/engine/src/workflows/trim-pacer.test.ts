import { describe, expect, it } from 'vitest';
import { TrimPacer, trimEvery } from './trim-pacer.js';

describe('TrimPacer', () => {
  it('trims every tenth of keep_runs, at most every 100 runs and at least every run', () => {
    expect([1, 10, 11, 500, 1000, 5000].map(trimEvery)).toEqual([1, 1, 2, 50, 100, 100]);
  });

  it('counts the finished runs of each workflow apart', () => {
    const pacer = new TrimPacer();
    const dueOf = (workflowId: string, times: number) => Array.from({ length: times }, () => pacer.due(workflowId, 30));
    expect(dueOf('wf_a', 3)).toEqual([false, false, true]);
    expect(dueOf('wf_b', 2)).toEqual([false, false]);
    expect(dueOf('wf_a', 3)).toEqual([false, false, true]);
    expect(dueOf('wf_b', 1)).toEqual([true]);
  });
});
