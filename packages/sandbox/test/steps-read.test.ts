import { describe, expect, it } from 'vitest';
import { pickSteps, stepsPathsOf } from '../src/worker/steps-read.js';

describe('the parts of steps an expression reads', () => {
  it('finds the member chains of steps, with ?. and spaces, and none in other names', () => {
    expect(stepsPathsOf('JSON.stringify(steps.trigger.event.body)')).toEqual([['trigger', 'event', 'body']]);
    expect(stepsPathsOf('steps?.pick .$return_value?.items[0] + steps.trigger.event.query.q')).toEqual([
      ['pick', '$return_value', 'items'],
      ['trigger', 'event', 'query', 'q'],
    ]);
    // Other bindings and properties named like it are not the binding.
    expect(stepsPathsOf('mysteps.a + steps2.b + x.steps + steps.c')).toEqual([['c']]);
    expect(stepsPathsOf('1 + 2')).toEqual([]);
  });

  it('needs all of steps for any other use of it', () => {
    for (const source of [
      'Object.keys(steps)',
      'steps["trigger"].event',
      'steps',
      '{ ...steps }',
      '(({ trigger }) => trigger)(steps)',
      'arguments[0].trigger',
      'eval("steps").trigger',
      'st\\u0065ps.trigger',
      '"steps"',
    ]) {
      expect(stepsPathsOf(source), source).toBeNull();
    }
  });

  const steps = {
    trigger: {
      event: { body: { email: 'ada@example.com', tags: ['a', 'b'] }, bodyRaw: '{"big":"text"}', headers: { h: '1' } },
      context: { id: 'wfr_1' },
    },
    pick: { $return_value: 'picked' },
  };

  it('copies the deepest own value along each path, arrays and text whole', () => {
    expect(
      pickSteps(steps, [
        ['trigger', 'event', 'body', 'email', 'toUpperCase'],
        ['trigger', 'event', 'body', 'tags', 'length'],
      ]),
    ).toEqual({ trigger: { event: { body: { email: 'ada@example.com', tags: ['a', 'b'] } } } });
    // A path stopping at a step copies that step whole; a shorter path holds the longer ones.
    expect(
      pickSteps(steps, [
        ['pick', 'hasOwnProperty'],
        ['trigger', 'event', 'body', 'email'],
        ['trigger', 'event'],
      ]),
    ).toEqual({ pick: steps.pick, trigger: { event: steps.trigger.event } });
    // A name steps does not have, or a method of steps itself: the whole is needed.
    expect(pickSteps(steps, [['missing', 'x']])).toBeNull();
    expect(pickSteps(steps, [])).toEqual({});
  });

  it('keeps a key named __proto__ as data', () => {
    const event = JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}') as unknown;
    const picked = pickSteps({ trigger: { event } }, [['trigger', 'event', '__proto__', 'polluted']]);
    expect(JSON.parse(JSON.stringify(picked))).toEqual({
      trigger: { event: JSON.parse('{"__proto__": {"polluted": true}}') },
    });
    expect(Object.getPrototypeOf((picked as { trigger: { event: object } }).trigger.event)).toBe(Object.prototype);
  });
});
