import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { InvocationResult } from '@tributary/runtime';
import { MAX_BATCH_ITEMS, type ComponentHandle } from '@tributary/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoke, open, testSandbox } from './sandbox-harness.js';

const COUNTER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures/batch-counter.mjs');

function batch(
  handle: ComponentHandle,
  events: unknown[],
  options: { timeoutMs?: number; n?: number } = {},
): Promise<InvocationResult[]> {
  return handle.invokeBatch({
    configured: {},
    accounts: {},
    events,
    state: { db: options.n === undefined ? {} : { n: options.n }, dedupe: null },
    timeoutMs: options.timeoutMs ?? 1500,
  });
}

const tags = (result: InvocationResult): unknown[] => result.emits.map((emit) => (emit.event as { tag: string }).tag);

describe('batched invocations (invoke_batch)', () => {
  const env = testSandbox();
  let handle: ComponentHandle;

  beforeAll(async () => {
    handle = await open(env.sandbox, COUNTER, 'batch-counter');
  });
  afterAll(() => env.dispose());

  it('runs the items in order, each from the state the previous one left, with its own logs and emits; dedupe applies in order', async () => {
    const results = await batch(handle, [{ tag: 'a' }, { tag: 'b' }, { tag: 'a' }], { n: 10 });
    expect(results.map((result) => result.ok)).toEqual([true, true, true]);
    expect(results.map((result) => result.logs.map((entry) => entry.message))).toEqual([
      ['run a sees n=11'],
      ['run b sees n=12'],
      ['run a sees n=13'],
    ]);
    expect(results.map(tags)).toEqual([['a'], ['b'], []]);
    expect(results[2]?.deduped.map((emit) => (emit.event as { tag: string }).tag)).toEqual(['a']);
    expect(results.map((result) => result.state.db['n'])).toEqual([11, 12, 13]);
  });

  it('fails only the item that throws; the next one starts from the state it left', async () => {
    const results = await batch(handle, [{ tag: 'c' }, { tag: 'd', do: 'throw' }, { tag: 'e' }]);
    expect(results.map((result) => result.ok)).toEqual([true, false, true]);
    expect(results[1]?.error?.message).toContain('run d failed on purpose');
    expect(results.map(tags)).toEqual([['c'], ['d'], ['e']]);
    expect(results[2]?.state.db['n']).toBe(3);
  });

  it('when the worker dies part way, keeps the items before, fails the running one with what it streamed, and runs none after', async () => {
    const results = await batch(handle, [{ tag: 'f' }, { tag: 'g', do: 'exit' }, { tag: 'h' }, { tag: 'i' }]);
    expect(results).toHaveLength(2);
    expect(results[0]?.ok).toBe(true);
    expect(results[1]?.ok).toBe(false);
    expect(results[1]?.error?.code).toBe('CRASHED');
    // The emit and the db write made before the exit were streamed, so they are kept.
    expect(tags(results[1] as InvocationResult)).toEqual(['g']);
    expect(results[1]?.state.db['n']).toBe(2);
    // The next request gets a fresh worker.
    const after = await invoke(handle, { event: { tag: 'j' } });
    expect(after.ok).toBe(true);
  });

  it('gives each item its own deadline, and stops a batch at the item that overruns it', async () => {
    // Together the four outlast one deadline; each leaves it 1.4 s, room for a loaded machine's
    // late timers (300 ms of a 500 ms deadline left 200 ms).
    const slow = await batch(
      handle,
      [0, 1, 2, 3].map((index) => ({ tag: `s${index}`, sleepMs: 600 })),
      { timeoutMs: 2000 },
    );
    expect(slow.map((result) => result.ok)).toEqual([true, true, true, true]);
    const spun = await batch(handle, [{ tag: 't' }, { tag: 'u', do: 'spin' }, { tag: 'v' }], { timeoutMs: 2000 });
    expect(spun).toHaveLength(2);
    expect(spun[0]?.ok).toBe(true);
    expect(spun[1]?.error?.code).toBe('TIMEOUT');
  });

  it(`refuses an empty batch and one over ${MAX_BATCH_ITEMS} items`, async () => {
    await expect(batch(handle, [])).rejects.toThrow(/1 to 64/);
    await expect(
      batch(
        handle,
        Array.from({ length: MAX_BATCH_ITEMS + 1 }, (_, index) => ({ tag: `x${index}` })),
      ),
    ).rejects.toThrow(/1 to 64/);
    const full = await batch(
      handle,
      Array.from({ length: MAX_BATCH_ITEMS }, (_, index) => ({ tag: `y${index}` })),
    );
    expect(full).toHaveLength(MAX_BATCH_ITEMS);
    expect(full.at(-1)?.state.db['n']).toBe(MAX_BATCH_ITEMS);
  });
});
