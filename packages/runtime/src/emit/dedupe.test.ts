import { describe, expect, it } from 'vitest';
import { applyDedupe, UNIQUE_CACHE_SIZE, type DedupeState, type EmittedEvent } from '@tributary/runtime';

let clock = 1_000;

/** An emitted event as the emit buffer would produce it; `ts` defaults to a strictly increasing clock. */
function ev(id: string | number | undefined, ts?: number, extra: Record<string, unknown> = {}): EmittedEvent {
  clock += 1;
  return {
    event: { id: id ?? null, ...extra } as EmittedEvent['event'],
    metadata: { ...(id === undefined ? {} : { id }), name: 'default', summary: String(id), ts: ts ?? clock },
  };
}

const ids = (events: readonly EmittedEvent[]): unknown[] => events.map((e) => e.metadata.id);

describe('applyDedupe: no strategy', () => {
  it('accepts every emit, sorted by ts, and leaves the state alone', () => {
    const state: DedupeState = { strategy: 'unique', ids: ['x'] };
    const out = applyDedupe({
      strategy: undefined,
      state,
      emits: [ev('b', 20), ev('a', 10), ev('b', 30), ev(undefined, 5)],
    });
    expect(ids(out.accepted)).toEqual([undefined, 'a', 'b', 'b']);
    expect(out.deduped).toEqual([]);
    expect(out.errors).toEqual([]);
    expect(out.state).toBe(state);
  });
});

describe('applyDedupe: unique', () => {
  it('keeps a FIFO cache of 100 ids: after 101 distinct ids the first one is accepted again', () => {
    expect(UNIQUE_CACHE_SIZE).toBe(100);
    const first = applyDedupe({
      strategy: 'unique',
      state: null,
      emits: Array.from({ length: 101 }, (_, i) => ev(`id-${i}`)),
    });
    expect(first.accepted).toHaveLength(101);
    expect(first.state).toMatchObject({ strategy: 'unique' });
    const cached = (first.state as Extract<DedupeState, { strategy: 'unique' }>).ids;
    expect(cached).toHaveLength(100);
    expect(cached[0]).toBe('id-1');
    expect(cached[99]).toBe('id-100');

    const second = applyDedupe({
      strategy: 'unique',
      state: first.state,
      emits: [ev('id-100'), ev('id-2'), ev('id-0')],
    });
    expect(ids(second.accepted)).toEqual(['id-0']);
    expect(ids(second.deduped)).toEqual(['id-100', 'id-2']);
    const after = (second.state as Extract<DedupeState, { strategy: 'unique' }>).ids;
    expect(after).toHaveLength(100);
    // id-0 went in at the end, so id-1 (then the oldest) was evicted and is new again.
    expect(after[after.length - 1]).toBe('id-0');
    expect(after).not.toContain('id-1');
    const third = applyDedupe({ strategy: 'unique', state: second.state, emits: [ev('id-1'), ev('id-3')] });
    expect(ids(third.accepted)).toEqual(['id-1']);
    expect(ids(third.deduped)).toEqual(['id-3']);
  });

  it('suppresses duplicates within one invocation and across invocations', () => {
    const run1 = applyDedupe({ strategy: 'unique', state: null, emits: [ev('a'), ev('b'), ev('a'), ev('c0')] });
    expect(ids(run1.accepted)).toEqual(['a', 'b', 'c0']);
    expect(run1.deduped).toHaveLength(1);
    expect(run1.deduped[0]?.reason).toContain('"a"');
    const run2 = applyDedupe({ strategy: 'unique', state: run1.state, emits: [ev('a'), ev('b'), ev('a'), ev('c1')] });
    expect(ids(run2.accepted)).toEqual(['c1']);
    expect(run2.deduped).toHaveLength(3);
  });

  it('compares ids as strings (1 and "1" are the same id)', () => {
    const out = applyDedupe({ strategy: 'unique', state: null, emits: [ev(1), ev('1'), ev(2)] });
    expect(ids(out.accepted)).toEqual([1, 2]);
    expect(out.state).toEqual({ strategy: 'unique', ids: ['1', '2'] });
  });

  it('does not mutate the state it was given', () => {
    const state: DedupeState = { strategy: 'unique', ids: ['a'] };
    applyDedupe({ strategy: 'unique', state, emits: [ev('b')] });
    expect(state.ids).toEqual(['a']);
  });
});

describe('applyDedupe: greatest', () => {
  it('updates the cached value progressively: cache 4, ids [5,3,7] → 5 and 7', () => {
    const out = applyDedupe({
      strategy: 'greatest',
      state: { strategy: 'greatest', greatest: 4 },
      emits: [ev(5, 1), ev(3, 2), ev(7, 3)],
    });
    expect(ids(out.accepted)).toEqual([5, 7]);
    expect(ids(out.deduped)).toEqual([3]);
    expect(out.state).toEqual({ strategy: 'greatest', greatest: 7 });
  });

  it('orders by ts before comparing and then refuses everything not greater on the next run', () => {
    const rows = [ev(30, 3000), ev(10, 1000), ev(20, 2000)];
    const run1 = applyDedupe({ strategy: 'greatest', state: null, emits: rows });
    expect(ids(run1.accepted)).toEqual([10, 20, 30]);
    const run2 = applyDedupe({
      strategy: 'greatest',
      state: run1.state,
      emits: [ev(30, 3000), ev(10, 1000), ev(20, 2000)],
    });
    expect(run2.accepted).toEqual([]);
    expect(run2.deduped).toHaveLength(3);
    expect(run2.state).toEqual({ strategy: 'greatest', greatest: 30 });
  });

  it('compares numeric strings as numbers, not text ("10" > "9")', () => {
    const out = applyDedupe({ strategy: 'greatest', state: null, emits: [ev('9', 1), ev('10', 2), ev('8', 3)] });
    expect(ids(out.accepted)).toEqual(['9', '10']);
    expect(out.state).toEqual({ strategy: 'greatest', greatest: 10 });
  });

  it('refuses an id equal to the cached value', () => {
    const out = applyDedupe({ strategy: 'greatest', state: { strategy: 'greatest', greatest: 5 }, emits: [ev(5)] });
    expect(out.accepted).toEqual([]);
    expect(out.deduped[0]?.reason).toContain('not greater');
  });
});

describe('applyDedupe: last', () => {
  it('accepts only events after the cached id when it is found', () => {
    const out = applyDedupe({
      strategy: 'last',
      state: { strategy: 'last', last: 'x2' },
      emits: [ev('x1', 1), ev('x2', 2), ev('x3', 3)],
    });
    expect(ids(out.accepted)).toEqual(['x3']);
    expect(ids(out.deduped)).toEqual(['x1', 'x2']);
    expect(out.state).toEqual({ strategy: 'last', last: 'x3' });
  });

  it('accepts everything when the cached id is not found, or when there is no cache', () => {
    const notFound = applyDedupe({ strategy: 'last', state: { strategy: 'last', last: 'x3' }, emits: [ev('y1', 1)] });
    expect(ids(notFound.accepted)).toEqual(['y1']);
    expect(notFound.state).toEqual({ strategy: 'last', last: 'y1' });
    const fresh = applyDedupe({ strategy: 'last', state: null, emits: [ev('x1', 1), ev('x2', 2)] });
    expect(ids(fresh.accepted)).toEqual(['x1', 'x2']);
    expect(fresh.state).toEqual({ strategy: 'last', last: 'x2' });
  });

  it('keeps the cache when the run emitted nothing', () => {
    const out = applyDedupe({ strategy: 'last', state: { strategy: 'last', last: 'x2' }, emits: [] });
    expect(out.accepted).toEqual([]);
    expect(out.state).toEqual({ strategy: 'last', last: 'x2' });
  });

  it('moves the cache to the newest event even when the list held only old events', () => {
    const out = applyDedupe({
      strategy: 'last',
      state: { strategy: 'last', last: 'x3' },
      emits: [ev('x1', 1), ev('x2', 2), ev('x3', 3)],
    });
    expect(out.accepted).toEqual([]);
    expect(out.deduped).toHaveLength(3);
    // The cached id was the newest, so the cache stays at x3.
    expect(out.state).toEqual({ strategy: 'last', last: 'x3' });

    const older = applyDedupe({
      strategy: 'last',
      state: { strategy: 'last', last: 'x2' },
      emits: [ev('x0', 1), ev('x2', 2)],
    });
    expect(older.accepted).toEqual([]);
    expect(older.state).toEqual({ strategy: 'last', last: 'x2' });
  });

  it('finds numeric ids by their string form and caches the newest by ts, not by call order', () => {
    const out = applyDedupe({
      strategy: 'last',
      state: { strategy: 'last', last: '2' },
      emits: [ev(4, 40), ev(2, 20), ev(3, 30)],
    });
    expect(ids(out.accepted)).toEqual([3, 4]);
    expect(out.state).toEqual({ strategy: 'last', last: '4' });
  });
});

describe('applyDedupe: ordering and ids', () => {
  it('sorts by ts stably: equal timestamps keep their emit order', () => {
    const emits = [ev('c', 2), ev('a', 1), ev('d', 2), ev('b', 1), ev('e', 2)];
    const out = applyDedupe({ strategy: 'unique', state: null, emits });
    expect(ids(out.accepted)).toEqual(['a', 'b', 'c', 'd', 'e']);
    // The input array is not reordered in place.
    expect(ids(emits)).toEqual(['c', 'a', 'd', 'b', 'e']);
  });

  it.each(['unique', 'greatest', 'last'] as const)(
    'drops events without an id under "%s" and reports each',
    (strategy) => {
      const out = applyDedupe({ strategy, state: null, emits: [ev(undefined, 1), ev(1, 2), ev(undefined, 3)] });
      expect(ids(out.accepted)).toEqual([1]);
      expect(out.deduped).toHaveLength(2);
      expect(out.deduped.every((d) => d.reason.includes('no id'))).toBe(true);
      expect(out.errors).toHaveLength(2);
      expect(out.errors[0]).toContain('dedupe: event without id dropped');
    },
  );

  it('ignores the state of another strategy', () => {
    const foreign: DedupeState = { strategy: 'unique', ids: ['a', 'b'] };
    const asLast = applyDedupe({ strategy: 'last', state: foreign, emits: [ev('a', 1), ev('b', 2)] });
    expect(ids(asLast.accepted)).toEqual(['a', 'b']);
    expect(asLast.state).toEqual({ strategy: 'last', last: 'b' });

    const asGreatest = applyDedupe({
      strategy: 'greatest',
      state: { strategy: 'last', last: '99' },
      emits: [ev(1, 1)],
    });
    expect(ids(asGreatest.accepted)).toEqual([1]);
    expect(asGreatest.state).toEqual({ strategy: 'greatest', greatest: 1 });

    const asUnique = applyDedupe({
      strategy: 'unique',
      state: { strategy: 'greatest', greatest: 10 },
      emits: [ev(3, 1)],
    });
    expect(ids(asUnique.accepted)).toEqual([3]);
    expect(asUnique.state).toEqual({ strategy: 'unique', ids: ['3'] });
  });
});
