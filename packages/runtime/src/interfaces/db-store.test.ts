import { describe, expect, it } from 'vitest';
import { DB_SIZE_LIMIT_BYTES } from '@tributary/runtime';
import { DbStore } from './db-store.js';

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw');
}

describe('DbStore', () => {
  it('returns undefined for a missing key', () => {
    const db = new DbStore({});
    expect(db.get('nope')).toBeUndefined();
    expect(db.facade().get('nope')).toBeUndefined();
  });

  it('starts from the snapshot without sharing it', () => {
    const snapshot = { n: 1, obj: { a: [1] } };
    const db = new DbStore(snapshot);
    expect(db.get('n')).toBe(1);
    db.set('n', 2);
    expect(snapshot.n).toBe(1);
    expect(db.snapshot()).toEqual({ n: 2, obj: { a: [1] } });
  });

  it('round-trips values as copies: mutating what get() returned or what was set does not change the store', () => {
    const db = new DbStore({});
    const value = { list: [1, 2], nested: { x: 'y' } };
    db.set('k', value);
    value.list.push(3);
    const read = db.get('k') as { list: number[]; nested: { x: string } };
    expect(read).toEqual({ list: [1, 2], nested: { x: 'y' } });
    read.list.push(99);
    read.nested.x = 'changed';
    expect(db.get('k')).toEqual({ list: [1, 2], nested: { x: 'y' } });
  });

  it('stores scalars, arrays and null', () => {
    const db = new DbStore({});
    db.set('s', 'text');
    db.set('n', 0);
    db.set('b', false);
    db.set('a', [1, 'two']);
    db.set('z', null);
    expect([db.get('s'), db.get('n'), db.get('b'), db.get('a'), db.get('z')]).toEqual([
      'text',
      0,
      false,
      [1, 'two'],
      null,
    ]);
  });

  it('stores a Date as its JSON string', () => {
    const db = new DbStore({});
    db.set('when', new Date('2024-05-06T07:08:09.000Z'));
    expect(db.get('when')).toBe('2024-05-06T07:08:09.000Z');
    db.set('nested', { at: new Date(0) });
    expect(db.get('nested')).toEqual({ at: '1970-01-01T00:00:00.000Z' });
  });

  it('deletes the key on set(key, undefined)', () => {
    const db = new DbStore({ keep: 1, drop: 2 });
    db.set('drop', undefined);
    expect(db.get('drop')).toBeUndefined();
    expect(db.snapshot()).toEqual({ keep: 1 });
    expect(Object.hasOwn(db.snapshot(), 'drop')).toBe(false);
    // Deleting a key that does not exist is harmless.
    db.set('never', undefined);
    expect(db.snapshot()).toEqual({ keep: 1 });
  });

  it.each([
    ['a function', () => 1, 'is a function'],
    ['a nested function', { cb: () => 1 }, 'is a function'],
    ['a bigint', 5n, 'bigint'],
    ['Infinity', Number.POSITIVE_INFINITY, 'Infinity'],
  ])('refuses %s with DB_VALUE_INVALID naming the key', (_label, value, fragment) => {
    const db = new DbStore({ cursor: 'old' });
    const error = caught(() => db.set('cursor', value));
    expect(error).toMatchObject({ code: 'DB_VALUE_INVALID' });
    expect((error as Error).message).toContain('"cursor"');
    expect((error as Error).message).toContain(fragment);
    expect(db.get('cursor')).toBe('old');
  });

  it('refuses a circular value with DB_VALUE_INVALID naming the key', () => {
    const loop: Record<string, unknown> = {};
    loop['me'] = loop;
    const db = new DbStore({});
    const error = caught(() => db.set('loopy', loop));
    expect(error).toMatchObject({ code: 'DB_VALUE_INVALID' });
    expect((error as Error).message).toContain('"loopy"');
    expect((error as Error).message).toContain('circular');
    expect(db.get('loopy')).toBeUndefined();
  });

  it('refuses non-string keys on set', () => {
    const db = new DbStore({});
    expect(caught(() => db.set(42, 'x'))).toMatchObject({ code: 'DB_VALUE_INVALID' });
  });

  it('enforces the 60 KB total limit: DB_SIZE_EXCEEDED, and the previous value stays', () => {
    expect(DB_SIZE_LIMIT_BYTES).toBe(60 * 1024);
    const db = new DbStore({});
    db.set('blob', 'a'.repeat(1000));
    db.set('other', 'b'.repeat(30 * 1024));
    const error = caught(() => db.set('blob', 'c'.repeat(31 * 1024)));
    expect(error).toMatchObject({ code: 'DB_SIZE_EXCEEDED' });
    expect((error as Error).message).toContain('db size limit exceeded');
    expect(db.get('blob')).toBe('a'.repeat(1000));
    // A new key that does not fit is not stored at all.
    expect(caught(() => db.set('fresh', 'd'.repeat(40 * 1024)))).toMatchObject({ code: 'DB_SIZE_EXCEEDED' });
    expect(db.get('fresh')).toBeUndefined();
    expect(Object.keys(db.snapshot()).sort()).toEqual(['blob', 'other']);
    // A value that fits is still accepted afterwards.
    db.set('blob', 'e'.repeat(20 * 1024));
    expect((db.get('blob') as string).length).toBe(20 * 1024);
  });

  it('exposes a frozen facade whose functions work when destructured', () => {
    const db = new DbStore({});
    const facade = db.facade();
    expect(Object.isFrozen(facade)).toBe(true);
    const { get, set } = facade;
    set('x', 1);
    expect(get('x')).toBe(1);
    expect(db.get('x')).toBe(1);
  });
});
