// Fuzz targets of the runtime: prop coercion, dedupe, the HTTP event builder, the component
// validator and the loader (bundle, evaluate, validate). Each is a fast-check property whose
// failures are crashes (an exception that is not an AppError with a registered code) or broken
// invariants stated in the property.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Buffer } from 'node:buffer';
import { URLSearchParams } from 'node:url';
import fc from 'fast-check';
import { AppError, ERROR_CODES } from '@tributary/contracts';
import {
  applyDedupe,
  buildHttpEvent,
  coercePropValue,
  loadComponentFile,
  UNIQUE_CACHE_SIZE,
  validateComponent,
} from '@tributary/runtime';
import { anyValue, hostileJson, hostileString, PROTO_KEYS } from './arbitraries.mjs';

const INPUT_TYPES = ['string', 'integer', 'number', 'boolean', 'object', 'any', 'sql', 'http_request'];
const ARRAY_TYPES = ['string[]', 'integer[]', 'number[]', 'boolean[]'];

const propSpec = fc.record(
  {
    type: fc.oneof(fc.constantFrom(...INPUT_TYPES, ...ARRAY_TYPES, 'app', 'alert', 'dir'), hostileString),
    min: fc.integer({ min: -100, max: 100 }),
    max: fc.integer({ min: -100, max: 100 }),
    options: fc.oneof(
      fc.array(fc.oneof(fc.string({ maxLength: 5 }), fc.integer({ min: -5, max: 5 })), { maxLength: 4 }),
      fc.array(
        fc.record({ label: fc.string({ maxLength: 5 }), value: fc.oneof(fc.string({ maxLength: 3 }), fc.integer()) }),
        {
          maxLength: 3,
        },
      ),
    ),
  },
  { requiredKeys: ['type'] },
);

/** Values that coerce for the type often enough to reach bounds and options checks. */
const propValue = fc.oneof(
  anyValue,
  fc.integer({ min: -200, max: 200 }),
  fc.integer({ min: -200, max: 200 }).map(String),
  fc.constantFrom('true', 'false', '[1,2]', '["a"]', '{"a":1}', '{"__proto__":{"x":1}}', '{"url":1}'),
);

const coerce = {
  name: 'prop coercion',
  property: (count) =>
    fc.property(propSpec, propValue, (spec, value) => {
      count();
      const result = coercePropValue(spec, value);
      assert.equal(typeof result.ok, 'boolean');
      if (!result.ok) {
        assert.equal(typeof result.reason, 'string');
        assert.ok(result.reason.length > 0);
        return;
      }
      const numbers = spec.type.endsWith('[]') ? result.value : [result.value];
      for (const item of numbers) {
        if (typeof item !== 'number') continue;
        if (typeof spec.min === 'number') assert.ok(item >= spec.min, `${item} below min ${spec.min}`);
        if (typeof spec.max === 'number') assert.ok(item <= spec.max, `${item} above max ${spec.max}`);
      }
      if (spec.type === 'integer') assert.ok(Number.isInteger(result.value));
      if (spec.type === 'boolean') assert.equal(typeof result.value, 'boolean');
      if (spec.type === 'string') assert.equal(typeof result.value, 'string');
      if (spec.type.endsWith('[]')) assert.ok(Array.isArray(result.value));
      // A coerced value is a fixed point: stored and coerced again, it stays what it is.
      const again = coercePropValue(spec, result.value);
      assert.ok(again.ok, `coercing the coerced value failed: ${again.ok ? '' : again.reason}`);
      assert.deepEqual(again.value, result.value);
    }),
};

const emitOf = (id, ts, index) => ({
  event: { index },
  metadata: { ...(id === undefined ? {} : { id }), name: 'default', summary: '', ts },
});

const dedupeCase = fc.oneof(
  fc.record({
    strategy: fc.constant('unique'),
    ids: fc.array(
      fc.option(fc.oneof(fc.string({ maxLength: 3 }), fc.integer({ min: 0, max: 9 })), { nil: undefined }),
      {
        maxLength: 150,
      },
    ),
    state: fc.option(fc.array(fc.string({ maxLength: 3 }), { maxLength: UNIQUE_CACHE_SIZE }), { nil: null }),
  }),
  fc.record({
    strategy: fc.constant('greatest'),
    ids: fc.array(fc.oneof(fc.integer({ min: -50, max: 50 }), fc.integer({ min: -50, max: 50 }).map(String)), {
      maxLength: 60,
    }),
    state: fc.option(fc.integer({ min: -50, max: 50 }), { nil: null }),
  }),
  fc.record({
    strategy: fc.constant('last'),
    ids: fc.array(fc.oneof(fc.string({ maxLength: 2 }), fc.integer({ min: 0, max: 5 })), { maxLength: 30 }),
    state: fc.option(fc.string({ maxLength: 2 }), { nil: null }),
  }),
);

function dedupeState(strategy, state) {
  if (state === null) return null;
  switch (strategy) {
    case 'unique':
      return { strategy, ids: state };
    case 'greatest':
      return { strategy, greatest: state };
    case 'last':
      return { strategy, last: state };
  }
  throw new Error(`unknown strategy ${strategy}`);
}

const dedupe = {
  name: 'dedupe (unique, greatest, last)',
  property: (count) =>
    fc.property(dedupeCase, fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 150 }), (input, times) => {
      count();
      const emits = input.ids.map((id, index) => emitOf(id, times[index] ?? 0, index));
      const state = dedupeState(input.strategy, input.state);
      const outcome = applyDedupe({ strategy: input.strategy, state, emits });
      // Every emit is accounted for exactly once, accepted ones oldest first.
      const seen = [...outcome.accepted, ...outcome.deduped].map((emit) => emit.event.index).sort((a, b) => a - b);
      assert.deepEqual(
        seen,
        emits.map((_, index) => index),
      );
      const acceptedTs = outcome.accepted.map((emit) => emit.metadata.ts);
      assert.deepEqual(
        acceptedTs,
        [...acceptedTs].sort((a, b) => a - b),
      );
      for (const emit of outcome.accepted) assert.notEqual(emit.metadata.id, undefined);
      const ids = outcome.accepted.map((emit) => emit.metadata.id);
      switch (input.strategy) {
        case 'unique': {
          const strings = ids.map(String);
          assert.equal(new Set(strings).size, strings.length, 'unique accepted an id twice');
          for (const id of strings) assert.ok(!(input.state ?? []).includes(id), `unique accepted cached id ${id}`);
          assert.ok(outcome.state.ids.length <= UNIQUE_CACHE_SIZE);
          break;
        }
        case 'greatest': {
          const numbers = ids.map(Number);
          for (let i = 1; i < numbers.length; i += 1) assert.ok(numbers[i] > numbers[i - 1], 'greatest not increasing');
          if (input.state !== null && numbers.length > 0) assert.ok(numbers[0] > input.state);
          const expected = numbers.length > 0 ? numbers[numbers.length - 1] : input.state;
          assert.equal(outcome.state.greatest, expected);
          break;
        }
        case 'last': {
          const withIds = [...emits].sort((a, b) => a.metadata.ts - b.metadata.ts);
          const newest = withIds[withIds.length - 1];
          assert.equal(outcome.state.last, newest === undefined ? input.state : String(newest.metadata.id));
          break;
        }
      }
      // Run again with the state it left: nothing accepted for greatest; unique takes none it kept.
      const replay = applyDedupe({ strategy: input.strategy, state: outcome.state, emits });
      if (input.strategy === 'greatest') assert.equal(replay.accepted.length, 0);
      if (input.strategy === 'unique' && outcome.state.ids.length < UNIQUE_CACHE_SIZE) {
        assert.equal(replay.accepted.length, 0);
      }
    }),
};

const headerName = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,20}$/),
  fc.constantFrom(...PROTO_KEYS, 'Content-Type', 'content-type', 'X-Forwarded-For'),
);
const httpRequest = fc.record({
  method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'head', 'PROPFIND', 'M-SEARCH'),
  path: fc.oneof(
    fc.constant('/'),
    hostileString.map((text) => `/${text}`),
  ),
  query: fc.array(fc.tuple(fc.oneof(hostileString, fc.constantFrom(...PROTO_KEYS)), hostileString), { maxLength: 6 }),
  headers: fc.array(fc.tuple(headerName, fc.oneof(hostileString, fc.array(hostileString, { maxLength: 3 }))), {
    maxLength: 6,
  }),
  contentType: fc.constantFrom(
    undefined,
    'application/json',
    'application/x-www-form-urlencoded',
    'text/plain',
    'application/json; charset=utf-16',
  ),
  body: fc.oneof(
    fc.constant(Buffer.alloc(0)),
    hostileJson.map((value) => Buffer.from(JSON.stringify(value) ?? '')),
    fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
    hostileString.map((text) => Buffer.from(text)),
  ),
});

const httpEvent = {
  name: 'HTTP event builder',
  property: (count) =>
    fc.property(httpRequest, (input) => {
      count();
      const query = new URLSearchParams(input.query);
      const headers = Object.fromEntries(input.headers);
      if (input.contentType !== undefined) headers['content-type'] = input.contentType;
      const event = buildHttpEvent({
        method: input.method,
        path: input.path,
        url: `http://x.test/e/abc${input.path}?${query}`,
        query,
        headers,
        body: input.body,
      });
      // The event crosses to the worker as JSON: it must survive the trip whole.
      assert.deepEqual(JSON.parse(JSON.stringify(event)), JSON.parse(JSON.stringify(event)));
      assert.equal(event.method, input.method.toUpperCase());
      assert.equal(event.bodyRaw, input.body.toString('utf8'));
      for (const key of new Set(query.keys())) {
        assert.ok(Object.hasOwn(event.query, key), `query key ${JSON.stringify(key)} missing from the event`);
        const values = query.getAll(key);
        assert.deepEqual(event.query[key], values.length === 1 ? values[0] : values);
      }
      for (const name of Object.keys(headers)) {
        assert.ok(Object.hasOwn(event.headers, name.toLowerCase()), `header ${JSON.stringify(name)} missing`);
        assert.equal(typeof event.headers[name.toLowerCase()], 'string');
      }
      assert.equal(Object.getPrototypeOf(event.query), Object.prototype);
      assert.equal(Object.getPrototypeOf(event.headers), Object.prototype);
      if (event.bodyRaw !== '' && !(input.contentType ?? '').includes('urlencoded')) {
        let parsed;
        try {
          parsed = JSON.parse(event.bodyRaw);
        } catch {
          parsed = event.bodyRaw;
        }
        assert.deepEqual(event.body, parsed);
      }
    }),
};

const fn = fc.constantFrom(
  () => undefined,
  async () => undefined,
  function named() {},
);
const propDefinition = fc.oneof(
  fc.constantFrom('$.interface.http', '$.interface.timer', '$.service.db', '$.interface.apphook'),
  fc.record(
    {
      type: fc.oneof(
        fc.constantFrom(...INPUT_TYPES, ...ARRAY_TYPES, 'app', 'alert', '$.interface.timer'),
        hostileString,
      ),
      label: hostileString,
      optional: fc.oneof(fc.boolean(), anyValue),
      default: anyValue,
      min: fc.oneof(fc.integer(), anyValue),
      max: fc.oneof(fc.integer(), anyValue),
      options: fc.oneof(fc.array(fc.oneof(fc.string(), fc.integer()), { maxLength: 3 }), fn, anyValue),
      secret: fc.oneof(fc.boolean(), anyValue),
      app: hostileString,
      propDefinition: fc.oneof(fc.array(anyValue, { maxLength: 3 }), anyValue),
      reloadProps: fc.boolean(),
      alertType: fc.oneof(fc.constantFrom('info', 'warning', 'error'), hostileString),
      static: anyValue,
    },
    { requiredKeys: ['type'] },
  ),
  anyValue,
);
const componentObject = fc.record(
  {
    type: fc.oneof(fc.constantFrom('source', 'action'), anyValue),
    key: fc.oneof(fc.stringMatching(/^[a-z0-9][a-z0-9_-]{0,20}$/), hostileString, anyValue),
    name: hostileString,
    version: fc.oneof(fc.constantFrom('0.0.1', '1.2.3-beta.1', '01.0.0'), hostileString),
    description: hostileString,
    props: fc.oneof(
      fc.dictionary(
        fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom(...PROTO_KEYS, 'run', 'http')),
        propDefinition,
        { maxKeys: 5 },
      ),
      anyValue,
    ),
    methods: fc.oneof(
      fc.dictionary(fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom(...PROTO_KEYS)), fn, { maxKeys: 3 }),
      anyValue,
    ),
    hooks: fc.oneof(
      fc.dictionary(fc.constantFrom('deploy', 'activate', 'deactivate', 'other', '__proto__'), fn, { maxKeys: 3 }),
      anyValue,
    ),
    dedupe: fc.oneof(fc.constantFrom('unique', 'greatest', 'last'), anyValue),
    run: fc.oneof(fn, anyValue),
    additionalProps: fc.oneof(fn, anyValue),
  },
  { requiredKeys: [] },
);

const validator = {
  name: 'component validator',
  property: (count) =>
    fc.property(
      fc.oneof({ weight: 6, arbitrary: componentObject }, { weight: 1, arbitrary: anyValue }),
      fc.constantFrom('run', 'deploy', 'publish'),
      (raw, purpose) => {
        count();
        const result = validateComponent(raw, purpose);
        assert.ok(Array.isArray(result.issues));
        for (const issue of result.issues) {
          assert.match(issue.rule, /^[CPW]\d+$/);
          assert.equal(typeof issue.message, 'string');
          assert.ok(issue.message.length > 0);
        }
        const errors = result.issues.filter((issue) => issue.level === 'error');
        assert.equal(result.component === null, errors.length > 0 || result.component === null);
        if (result.component !== null) {
          assert.equal(errors.length, 0);
          assert.ok(result.component.type === 'source' || result.component.type === 'action');
        }
        // The same input gives the same verdict.
        assert.deepEqual(validateComponent(raw, purpose).issues, result.issues);
      },
    ),
};

/** A valid source as text; the loader target mangles it. */
const TEMPLATE = `export default {
  key: "fuzz-source",
  name: "Fuzz",
  version: "0.0.1",
  type: "source",
  props: { db: "$.service.db", n: { type: "integer", optional: true, default: 1 } },
  dedupe: "unique",
  async run() { this.$emit({ n: this.n }, { id: "x" }); },
};
`;

/** Literal text to put where a value goes: JSON of any value, so nothing generated can run. */
const literal = hostileJson.map((value) => JSON.stringify(value) ?? 'null');
const mangledSource = fc.oneof(
  // Truncated: every prefix of a valid file.
  fc.integer({ min: 0, max: TEMPLATE.length }).map((at) => TEMPLATE.slice(0, at)),
  // A field's value replaced by a generated literal.
  fc
    .tuple(
      fc.constantFrom('"fuzz-source"', '"0.0.1"', '"source"', '"unique"', '"integer"', '1', '"$.service.db"'),
      literal,
    )
    .map(([from, to]) => TEMPLATE.replace(from, to)),
  // The default export replaced by a literal, or the file by a format mix.
  literal.map((value) => `export default ${value};\n`),
  fc.constantFrom(
    'module.exports = {};\nexport default {};\n',
    'const x = require("fs");\nexport default { type: "source", run() {} };\n',
    'export const notDefault = 1;\n',
    '',
    '\u0000',
    'export default {\n',
    'import x from "no-such-package-fuzz";\nexport default x;\n',
    'export default { get type() { throw new Error("getter"); }, run() {} };\n',
    'export default new Proxy({}, { get() { throw new Error("trap"); }, getPrototypeOf() { throw new Error("trap"); } });\n',
    'export default { then(resolve) { resolve(1); }, type: "source", run() {} };\n',
    'export default { type: "source", methods: { constructor() {}, toString() {} }, run() {} };\n',
  ),
);

function loaderTarget(scratch) {
  let n = 0;
  return {
    name: 'component loader',
    property: (count) =>
      fc.asyncProperty(mangledSource, fc.constantFrom('run', 'deploy', 'publish'), async (source, purpose) => {
        count();
        n += 1;
        const dir = path.join(scratch, String(n));
        mkdirSync(dir, { recursive: true });
        const file = path.join(dir, 'component.mjs');
        writeFileSync(file, source);
        try {
          const loaded = await loadComponentFile({ file, purpose, bundleDir: path.join(dir, 'bundle') });
          assert.ok(loaded.component.type === 'source' || loaded.component.type === 'action');
        } catch (error) {
          // A refusal is an AppError with a registered code; anything else is a crash.
          assert.ok(error instanceof AppError, `not an AppError: ${error?.stack ?? error}`);
          assert.ok(Object.hasOwn(ERROR_CODES, error.code), `unregistered code ${error.code}`);
          assert.ok(error.message.length > 0);
        }
      }),
  };
}

/** The runtime targets; the loader writes files under a scratch folder of its own. */
export function runtimeTargets() {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'tributary-fuzz-loader-'));
  return {
    scratch,
    targets: { coerce, dedupe, httpEvent, validator, loader: loaderTarget(scratch) },
  };
}
