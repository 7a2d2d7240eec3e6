import { describe, expect, it } from 'vitest';
import { Stopper } from './stopper.js';

describe('a run stop switch', () => {
  it('aborts a signal asked for before the stop, with the first reason', () => {
    const stopper = new Stopper();
    const signal = stopper.signal;
    expect([stopper.aborted, signal.aborted]).toEqual([false, false]);
    stopper.abort('deleted');
    stopper.abort('updated');
    expect([stopper.aborted, stopper.reason, signal.aborted, signal.reason]).toEqual([
      true,
      'deleted',
      true,
      'deleted',
    ]);
    expect(stopper.signal).toBe(signal);
  });

  it('gives an aborted signal when asked for after the stop', () => {
    const stopper = new Stopper();
    stopper.abort('deleted');
    expect([stopper.signal.aborted, stopper.signal.reason]).toEqual([true, 'deleted']);
  });
});
