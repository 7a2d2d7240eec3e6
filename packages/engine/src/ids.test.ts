import { describe, expect, it } from 'vitest';
import { newId } from './ids.js';

describe('newId', () => {
  it('gives invocations and workflow runs ids that sort by creation time, with the random token after', async () => {
    const first = newId('wfr');
    await new Promise((resolve) => setTimeout(resolve, 5));
    const later = [newId('wfr'), newId('wfr')];
    expect(first).toMatch(/^wfr_[0-9A-Za-z]{17}$/);
    expect(later.every((id) => id > first)).toBe(true);
    // Two ids of the same millisecond differ by their token.
    expect(later[0]).not.toBe(later[1]);
    expect(newId('inv')).toMatch(/^inv_[0-9A-Za-z]{17}$/);
  });

  it('keeps the other kinds a random token only', () => {
    expect(newId('sc')).toMatch(/^sc_[0-9A-Za-z]{10}$/);
    expect(newId('wf')).toMatch(/^wf_[0-9A-Za-z]{10}$/);
  });
});
