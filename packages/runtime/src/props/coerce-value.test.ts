import { describe, expect, it } from 'vitest';
import { coercePropValue, type PropSpec } from '@tributary/runtime';

function prop(type: string, fields: Record<string, unknown> = {}): PropSpec {
  return { name: 'p', type, ...fields, raw: { type, ...fields } } as PropSpec;
}

function value(spec: PropSpec, input: unknown): unknown {
  const result = coercePropValue(spec, input);
  if (!result.ok) throw new Error(`expected ${JSON.stringify(input)} to be accepted: ${result.reason}`);
  return result.value;
}

function refusal(spec: PropSpec, input: unknown): string {
  const result = coercePropValue(spec, input);
  if (result.ok)
    throw new Error(`expected ${JSON.stringify(input)} to be refused, got ${JSON.stringify(result.value)}`);
  return result.reason;
}

describe('coercePropValue: integer', () => {
  const int = prop('integer');

  it('accepts integers and numeric strings that parse exactly', () => {
    expect(value(int, 5)).toBe(5);
    expect(value(int, '5')).toBe(5);
    expect(value(int, '-12')).toBe(-12);
    expect(value(int, ' 7 ')).toBe(7);
  });

  it.each(['5.5', '5e2', '', 'five', '0x10'])('refuses the string %j', (input) => {
    expect(refusal(int, input)).toContain('integer');
  });

  it('refuses non-integral numbers, booleans and unsafe integers', () => {
    expect(refusal(int, 5.5)).toContain('integer');
    expect(refusal(int, true)).toContain('integer');
    expect(refusal(int, '9007199254740993')).toContain('safe integer');
  });

  it('applies min and max', () => {
    const bounded = prop('integer', { min: 1, max: 5 });
    expect(value(bounded, 1)).toBe(1);
    expect(value(bounded, '5')).toBe(5);
    expect(refusal(bounded, 0)).toBe('must be >= 1, got 0');
    expect(refusal(bounded, '9')).toBe('must be <= 5, got 9');
  });

  it('applies min and max to each element of integer[]', () => {
    const nums = prop('integer[]', { min: 0, max: 10 });
    expect(value(nums, [0, '3', 10])).toEqual([0, 3, 10]);
    expect(value(nums, '[1,2,3]')).toEqual([1, 2, 3]);
    expect(value(nums, '4')).toEqual([4]);
    expect(refusal(nums, [1, 11])).toBe('must be <= 10, got 11');
    expect(refusal(nums, [-1])).toBe('must be >= 0, got -1');
    expect(refusal(nums, [1, 'x'])).toContain('element 1');
  });
});

describe('coercePropValue: boolean', () => {
  const bool = prop('boolean');

  it('accepts true/false and "true"/"false"', () => {
    expect(value(bool, true)).toBe(true);
    expect(value(bool, false)).toBe(false);
    expect(value(bool, 'true')).toBe(true);
    expect(value(bool, 'false')).toBe(false);
  });

  it.each(['yes', 'TRUE', 1, 0, ''])('refuses %j', (input) => {
    expect(refusal(bool, input)).toContain('true or false');
  });
});

describe('coercePropValue: string and arrays', () => {
  it('accepts strings only for string props', () => {
    expect(value(prop('string'), 'hi')).toBe('hi');
    expect(value(prop('string'), '')).toBe('');
    expect(refusal(prop('string'), 5)).toContain('string');
    expect(refusal(prop('string'), ['a'])).toContain('string');
  });

  it('wraps a single scalar for string[]', () => {
    expect(value(prop('string[]'), 'red')).toEqual(['red']);
  });

  it('parses a JSON-array string for string[]', () => {
    expect(value(prop('string[]'), '["red","green"]')).toEqual(['red', 'green']);
    expect(value(prop('string[]'), '  []')).toEqual([]);
    expect(value(prop('string[]'), ['a', 'b'])).toEqual(['a', 'b']);
  });

  it('wraps a scalar string that starts with "[" but is not a JSON array', () => {
    expect(value(prop('string[]'), '[urgent] fix the build')).toEqual(['[urgent] fix the build']);
    // For integer[] such a string is still one (non-integer) element, so it is refused.
    expect(refusal(prop('integer[]'), '[1,2')).toContain('element 0 must be an integer');
  });

  it('refuses wrong element types inside a JSON-array string', () => {
    expect(refusal(prop('string[]'), '[1,2]')).toContain('element 0');
  });

  it('coerces each element of boolean[]', () => {
    expect(value(prop('boolean[]'), ['true', false])).toEqual([true, false]);
  });
});

describe('coercePropValue: object and any', () => {
  it('accepts a plain object or a JSON-object string', () => {
    expect(value(prop('object'), { a: 1 })).toEqual({ a: 1 });
    expect(value(prop('object'), '{"a":{"b":[1]}}')).toEqual({ a: { b: [1] } });
  });

  it('refuses arrays, JSON-array strings, invalid JSON and scalars', () => {
    expect(refusal(prop('object'), [1])).toContain('object');
    expect(refusal(prop('object'), '[1]')).toContain('object');
    expect(refusal(prop('object'), '{a:1}')).toContain('not valid JSON');
    expect(refusal(prop('object'), 3)).toContain('object');
  });

  it('accepts any JSON value for "any" and refuses non-JSON', () => {
    expect(value(prop('any'), [1, 'x', { y: null }])).toEqual([1, 'x', { y: null }]);
    expect(value(prop('any'), 'text')).toBe('text');
    expect(refusal(prop('any'), { f: () => 1 })).toContain('JSON');
  });

  it('refuses user values for types that take none', () => {
    expect(refusal(prop('$.interface.http'), {})).toContain('takes no user value');
  });
});

describe('coercePropValue: static options', () => {
  it('checks plain option lists', () => {
    const color = prop('string', { options: ['red', 'green'] });
    expect(value(color, 'red')).toBe('red');
    expect(refusal(color, 'blue')).toBe('must be one of "red", "green", got "blue"');
  });

  it('checks label/value option lists against the values, not the labels', () => {
    const size = prop('string', {
      options: [
        { label: 'Small', value: 's' },
        { label: 'Large', value: 'l' },
      ],
    });
    expect(value(size, 'l')).toBe('l');
    expect(refusal(size, 'Large')).toContain('"s", "l"');
    expect(refusal(size, 'm')).toContain('got "m"');
  });

  it('compares after coercion, for integers and per element for arrays', () => {
    const level = prop('integer', {
      options: [
        { label: 'Low', value: 1 },
        { label: 'High', value: 2 },
      ],
    });
    expect(value(level, '2')).toBe(2);
    expect(refusal(level, 3)).toContain('must be one of 1, 2');
    const colors = prop('string[]', { options: ['red', 'green'] });
    expect(value(colors, '["green","red"]')).toEqual(['green', 'red']);
    expect(refusal(colors, ['red', 'blue'])).toContain('got "blue"');
  });

  it('does not restrict values when options are async or empty', () => {
    expect(value(prop('string', { options: async () => ['a'] }), 'zzz')).toBe('zzz');
    expect(value(prop('string', { options: [] }), 'zzz')).toBe('zzz');
  });
});
