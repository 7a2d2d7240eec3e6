// Generators of hostile values shared by the fuzz targets: strings with NUL bytes, lone surrogates,
// bidi controls and prototype keys; deep and wide JSON; objects keyed `__proto__` or `constructor`.
import fc from 'fast-check';

/** Keys that poison a naive merge or lookup. */
export const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'];

/** Characters that break naive text handling: NUL, controls, lone surrogates, bidi and zero-width marks. */
const ODD_CHARS = [
  '\u0000',
  '\u0007',
  '\n',
  '\r',
  '\t',
  '\ud800',
  '\udfff',
  '\u202e',
  '\u200b',
  '\ufeff',
  '😀',
  '"',
  '\\',
];

/** Any string, biased towards odd characters, prototype keys and numeric-looking text. */
export const hostileString = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  { weight: 2, arbitrary: fc.array(fc.constantFrom(...ODD_CHARS), { maxLength: 8 }).map((parts) => parts.join('')) },
  { weight: 1, arbitrary: fc.constantFrom(...PROTO_KEYS) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('', ' ', '0', '-1', '1e3', '0x10', 'NaN', 'Infinity', 'true', 'null', '[]', '{}', '[1,'),
  },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 4000 }).map((n) => 'x'.repeat(n)) },
);

/** Any JSON value, keys included from the hostile set. */
export const hostileJson = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.constantFrom(Number.MAX_SAFE_INTEGER + 2, -0, 1e308),
    hostileString,
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(fc.oneof(hostileString, fc.constantFrom(...PROTO_KEYS)), tie('value'), { maxKeys: 5 }),
  ),
})).value;

/** A JSON value nested `depth` levels deep in arrays or objects. */
export function deepJson(depth, kind = 'array') {
  let value = 1;
  for (let i = 0; i < depth; i += 1) value = kind === 'array' ? [value] : { a: value };
  return value;
}

/** Any value, JavaScript values JSON cannot hold included (undefined, functions, NaN, -0, symbols as keys). */
export const anyValue = fc.oneof(
  { weight: 4, arbitrary: hostileJson },
  { weight: 1, arbitrary: fc.anything({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom(undefined, NaN, Infinity, -Infinity, () => 1, new Date(0), Symbol('s')) },
);
