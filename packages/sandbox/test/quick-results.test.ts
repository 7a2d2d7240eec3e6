/**
 * The host reads the worker's plain invocation messages without zod (quick-results.ts). The worker
 * is untrusted, so every message, and every variant of it with a key dropped, a key added or a
 * value of another type, must parse to exactly what the zod schema gives (or be refused as it is).
 */
import { describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION, WorkerMessage, parseWorkerMessage } from '../src/protocol/messages.js';
import { isQuickWorkerMessage } from '../src/protocol/quick-results.js';

const result = {
  ok: true,
  invocationId: 'inv_1',
  type: 'action',
  kind: 'run',
  returnValue: { seq: 1, nested: { list: [1, 'two', null] } },
  exports: { $summary: 'picked', extra: [1] },
  summary: null,
  emits: [],
  deduped: [],
  logs: [],
  exit: null,
  delay: null,
  response: { status: 200, headers: { 'content-type': 'application/json' }, bodyBase64: 'e30=' },
  sends: [],
  error: null,
  state: { db: { count: 2 }, dedupe: null },
  startedAtMs: 1_700_000_000_000,
  durationMs: 0.25,
  expressions: { ok: true, props: { data: '{"seq":1}' } },
};
const v = PROTOCOL_VERSION;
const plain: Record<string, unknown>[] = [
  { v, type: 'result', id: 'r1', result },
  { v, type: 'item_result', id: 'r1', item: 3, result: { ...result, exit: { reason: 'done' }, delay: { ms: 5 } } },
  { v, type: 'result', id: 'r1', result: { ...result, expressions: { ok: false, prop: 'data', message: 'threw' } } },
  {
    v,
    type: 'result',
    id: 'r1',
    result: { ...result, returnValue: undefined, delay: undefined, expressions: undefined },
  },
  { v, type: 'respond', id: 'r1', item: 0, response: result.response },
  { v, type: 'respond', id: 'r1', response: { status: 404, headers: {}, bodyBase64: null } },
  { v, type: 'batch_done', id: 'r1', count: 2 },
  { v, type: 'log', id: 'r1', entries: [{ level: 'warn', message: 'careful', ts: 1 }] },
];

/** Values of other types a field may be given. */
const OTHERS: unknown[] = [null, 'x', '', 0, -1, 1.5, 700, true, [], [{}], {}, { zzz: 1 }];

/** The message with one change at every place: a key dropped, a key added, a value replaced. */
function variants(value: unknown, path: string[] = []): { path: string; message: unknown }[] {
  const out: { path: string; message: unknown }[] = [];
  const at = (change: (node: Record<string, unknown>) => void, label: string) => {
    const copy = structuredClone(value) as Record<string, unknown>;
    change(copy);
    out.push({ path: [...path, label].join('.'), message: copy });
  };
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return out;
  const node = value as Record<string, unknown>;
  at((copy) => (copy['zzz'] = 1), '+zzz');
  for (const key of Object.keys(node)) {
    at((copy) => delete copy[key], `-${key}`);
    for (const other of OTHERS) at((copy) => (copy[key] = structuredClone(other)), `${key}=${JSON.stringify(other)}`);
    for (const inner of variants(node[key], [...path, key])) {
      at((copy) => (copy[key] = inner.message as Record<string, unknown>), inner.path.slice(path.join('.').length));
    }
  }
  return out;
}

const withoutUndefined = (message: unknown): unknown => JSON.parse(JSON.stringify(message));

describe('the worker messages read without zod', () => {
  it('takes each plain message on the quick path, as zod parses it', () => {
    for (const message of plain.map(withoutUndefined) as Record<string, unknown>[]) {
      expect(isQuickWorkerMessage(message)).toBe(true);
      expect(parseWorkerMessage(message)).toEqual(WorkerMessage.parse(message));
    }
  });

  it('gives what zod gives for every variant of them, quick or not', () => {
    let quick = 0;
    let refused = 0;
    let checked = 0;
    for (const base of plain.map(withoutUndefined)) {
      for (const { path, message } of variants(base)) {
        const sent = withoutUndefined(message);
        const zod = WorkerMessage.safeParse(sent);
        const ours = parseWorkerMessage(sent);
        expect({ path, ours }).toEqual({ path, ours: zod.success ? zod.data : null });
        if (isQuickWorkerMessage(sent as Record<string, unknown>)) quick += 1;
        if (!zod.success) refused += 1;
        checked += 1;
      }
    }
    // The variants exercise both sides: some stay quick (a value zod accepts too), many are refused.
    expect(checked).toBeGreaterThan(1000);
    expect(quick).toBeGreaterThan(50);
    expect(refused).toBeGreaterThan(500);
  });

  it('leaves emits, sends, logs in a result and errors to the full parse', () => {
    const emit = { event: { a: 1 }, metadata: { name: 'e', summary: 's', ts: 1 } };
    for (const change of [
      { emits: [emit] },
      { sends: [{ kind: 'http', config: { url: 'https://x.test' } }] },
      { logs: [{ level: 'info', message: 'm', ts: 1 }] },
      { ok: false, error: { code: 'COMPONENT_ERROR', message: 'boom' } },
    ]) {
      const message = { v, type: 'result', id: 'r1', result: { ...result, ...change } };
      expect(isQuickWorkerMessage(message)).toBe(false);
      expect(parseWorkerMessage(message)).toEqual(WorkerMessage.parse(message));
    }
  });
});
