import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildHttpEvent } from '@tributary/runtime';
import type { ComponentHandle } from '@tributary/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packEvent } from '../src/protocol/event-packing.js';
import { invoke, open, testSandbox } from './sandbox-harness.js';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');

/** An HTTP event as the ingress builds it, then as it is stored (a JSON round trip). */
function httpEvent(body: string, contentType: string): Record<string, unknown> {
  const built = buildHttpEvent({
    method: 'post',
    path: '/hook',
    url: 'http://127.0.0.1/e/x/hook?a=1',
    query: new URLSearchParams('a=1'),
    headers: { 'content-type': contentType, 'X-Test': 'yes' },
    body: Buffer.from(body, 'utf8'),
  });
  return JSON.parse(JSON.stringify(built)) as Record<string, unknown>;
}

const CASES: [string, Record<string, unknown>, string | null][] = [
  [
    'compact JSON',
    httpEvent('{"seq":1,"nested":{"x":[1,2.5,"é",null]},"__proto__":{"a":true}}', 'application/json'),
    'json',
  ],
  ['JSON whose numbers print otherwise', httpEvent('{"n":1e21,"m":1.50}', 'application/json'), 'raw'],
  ['JSON with spaces', httpEvent('{ "seq": 1, "pad": "x" }', 'application/json'), 'raw'],
  ['JSON that loses digits when parsed', httpEvent('{"big":12345678901234567890}', 'application/json'), 'raw'],
  ['a JSON string', httpEvent('"just text"', 'application/json'), 'json'],
  ['a urlencoded form', httpEvent('a=1&b=%20two', 'application/x-www-form-urlencoded'), 'text'],
  ['text that is not JSON', httpEvent('hello {', 'text/plain'), 'text'],
  ['an empty body', httpEvent('', 'application/json'), 'raw'],
  ['no HTTP event at all', { tag: 'a', bodyRaw: 'x', rawBody: 'y' }, null],
];

describe('HTTP events cross the IPC channel packed', () => {
  const env = testSandbox();
  let action: ComponentHandle;
  let source: ComponentHandle;

  beforeAll(async () => {
    action = await open(env.sandbox, path.join(FIXTURES, 'event-shape-action.mjs'), 'event-shape-action');
    source = await open(env.sandbox, path.join(FIXTURES, 'event-shape-source.mjs'), 'event-shape-source');
  });
  afterAll(() => env.dispose());

  it('sends the body text once: at most one of bodyRaw, rawBody and body holds it in the packed event', () => {
    for (const [, event, packing] of CASES) {
      const packed = packEvent(event);
      expect(packed.packing).toBe(packing);
      if (packing === null) continue;
      const fields = packed.event as Record<string, unknown>;
      const text = event['bodyRaw'];
      const copies = ['bodyRaw', 'rawBody', 'body'].filter((key) => fields[key] === text);
      expect(copies.length).toBeLessThanOrEqual(1);
      expect(Object.keys(fields)).toEqual(Object.keys(event));
    }
  });

  it.each(CASES)('a step sees %s in steps.trigger.event exactly as sent, key order included', async (_, event) => {
    const result = await action.invoke({
      kind: 'run',
      configured: {},
      accounts: {},
      steps: { trigger: { event, context: { id: 'run_1' } }, earlier: { $return_value: 1 } },
      state: { db: {}, dedupe: null },
      timeoutMs: 5000,
    });
    expect(result.error).toBeNull();
    const seen = result.returnValue as { event: unknown; keys: string[]; aliased: boolean };
    expect(seen.event).toEqual(event);
    expect(seen.keys).toEqual(Object.keys(event));
    expect(seen.aliased).toBe(event['rawBody'] === event['bodyRaw']);
  });

  it.each([false, true])(
    'a step that changes the body first still reads the text as sent (steps.trigger frozen first: %s)',
    async (freeze) => {
      const mutating = await open(
        env.sandbox,
        path.join(FIXTURES, 'event-mutating-action.mjs'),
        'event-mutating-action',
      );
      const event = httpEvent('{"seq":1,"pad":"x"}', 'application/json');
      expect(packEvent(event).packing).toBe('json');
      const result = await mutating.invoke({
        kind: 'run',
        configured: { freeze },
        accounts: {},
        steps: { trigger: { event, context: { id: 'run_1' } } },
        state: { db: {}, dedupe: null },
        timeoutMs: 5000,
      });
      expect(result.error).toBeNull();
      expect(result.returnValue).toEqual({
        bodyRaw: '{"seq":1,"pad":"x"}',
        rawBody: '{"seq":1,"pad":"x"}',
        same: true,
        keys: ['event', 'context'],
        json: 99,
      });
    },
  );

  it('a source sees its events whole, alone and in a batch', async () => {
    const [, json] = CASES[0] ?? [];
    const [, form] = CASES[5] ?? [];
    const single = await invoke(source, { event: json, timeoutMs: 5000 });
    expect(single.emits[0]?.event).toEqual({ event: json, keys: Object.keys(json ?? {}) });
    const batch = await source.invokeBatch({
      configured: {},
      accounts: {},
      events: [form, { plain: true }, json],
      state: { db: {}, dedupe: null },
      timeoutMs: 5000,
    });
    expect(batch.map((result) => result.emits[0]?.event)).toEqual(
      [form, { plain: true }, json].map((event) => ({ event, keys: Object.keys(event ?? {}) })),
    );
  });
});
