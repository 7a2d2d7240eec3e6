import { describe, expect, it } from 'vitest';
import { MAX_DEDUPE_ID_LENGTH } from '@tributary/runtime';
import type { DedupeStrategy } from '../types.js';
import { EmitBuffer } from './emit-buffer.js';

function buffer(dedupe?: DedupeStrategy, now = () => 1_700_000_000_000): EmitBuffer {
  return new EmitBuffer({ dedupe, now });
}

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw');
}

describe('EmitBuffer ids', () => {
  it.each(['unique', 'greatest', 'last'] as const)(
    'under dedupe "%s" refuses ids longer than 64 characters',
    (dedupe) => {
      const b = buffer(dedupe);
      expect(MAX_DEDUPE_ID_LENGTH).toBe(64);
      const ok = dedupe === 'greatest' ? '9'.repeat(64) : 'z'.repeat(64);
      b.emit({ a: 1 }, { id: ok });
      expect(b.emits).toHaveLength(1);
      const tooLong = dedupe === 'greatest' ? '9'.repeat(65) : 'z'.repeat(65);
      const error = caught(() => b.emit({ a: 2 }, { id: tooLong }));
      expect(error).toMatchObject({ code: 'EMIT_INVALID' });
      expect((error as Error).message).toContain('65');
      expect(b.emits).toHaveLength(1);
    },
  );

  it('accepts long ids when there is no dedupe strategy', () => {
    const b = buffer();
    b.emit({}, { id: 'z'.repeat(200) });
    expect(b.emits[0]?.metadata.id).toBe('z'.repeat(200));
  });

  it('under "greatest" refuses non-numeric ids and accepts numbers and numeric strings', () => {
    const b = buffer('greatest');
    for (const id of ['abc', '', '  ', '12abc']) {
      expect(caught(() => b.emit({}, { id }))).toMatchObject({ code: 'EMIT_INVALID' });
    }
    b.emit({}, { id: 12 });
    b.emit({}, { id: '13' });
    b.emit({}, { id: '1.5' });
    expect(b.emits.map((e) => e.metadata.id)).toEqual([12, '13', '1.5']);
  });

  it('refuses ids that are neither strings nor numbers', () => {
    expect(caught(() => buffer('unique').emit({}, { id: { x: 1 } }))).toMatchObject({ code: 'EMIT_INVALID' });
    expect(caught(() => buffer().emit({}, { id: true }))).toMatchObject({ code: 'EMIT_INVALID' });
  });

  it('leaves the id out of the metadata when none was given', () => {
    const b = buffer('unique');
    b.emit({ a: 1 }, undefined);
    expect(b.emits[0]?.metadata).not.toHaveProperty('id');
  });
});

describe('EmitBuffer channels, summaries and ts', () => {
  it('puts events without a name on the "default" channel', () => {
    const b = buffer();
    b.emit({ level: 'debug' }, undefined);
    b.emit({ level: 'x' }, { name: '' });
    b.emit({ level: 'info' }, { name: 'audit', summary: 'audit entry' });
    expect(b.emits.map((e) => e.metadata.name)).toEqual(['default', 'default', 'audit']);
    expect(b.emits[2]?.metadata.summary).toBe('audit entry');
  });

  it.each(['$errors', '$logs', '$anything'])('refuses the reserved channel %s', (name) => {
    const b = buffer();
    const error = caught(() => b.emit({}, { name }));
    expect(error).toMatchObject({ code: 'EMIT_INVALID' });
    expect((error as Error).message).toContain('reserved');
    expect(b.emits).toHaveLength(0);
  });

  it('summarises with compact JSON of the event', () => {
    const b = buffer();
    b.emit({ pong: true, n: [1, 2] }, undefined);
    expect(b.emits[0]?.metadata.summary).toBe('{"pong":true,"n":[1,2]}');
  });

  it('truncates the default summary to 140 characters', () => {
    const b = buffer();
    const event = { text: 'x'.repeat(500) };
    b.emit(event, undefined);
    const summary = b.emits[0]?.metadata.summary ?? '';
    expect(summary).toHaveLength(140);
    expect(summary.startsWith('{"text":"xxx')).toBe(true);
    // Exactly 140 characters of JSON is not truncated.
    const exact = { t: 'y'.repeat(140 - '{"t":""}'.length) };
    b.emit(exact, undefined);
    expect(b.emits[1]?.metadata.summary).toBe(JSON.stringify(exact));
  });

  it('takes ts from the metadata, or the emit time', () => {
    let t = 5_000;
    const b = buffer(undefined, () => t);
    b.emit({}, { ts: 42 });
    t = 6_000;
    b.emit({}, undefined);
    expect(b.emits.map((e) => e.metadata.ts)).toEqual([42, 6_000]);
    expect(caught(() => b.emit({}, { ts: { at: 1 } }))).toMatchObject({ code: 'EMIT_INVALID' });
  });

  it('reads ts as published components pass it: a Date, a numeric or ISO string, NaN as the emit time', () => {
    const b = buffer(undefined, () => 7_000);
    b.emit({}, { ts: new Date('2024-01-01T00:00:00Z') });
    b.emit({}, { ts: '1700000000000' });
    b.emit({}, { ts: '2024-01-01T00:00:01Z' });
    b.emit({}, { ts: Date.parse('not a date') });
    b.emit({}, { ts: 'soon' });
    expect(b.emits.map((e) => e.metadata.ts)).toEqual([1704067200000, 1700000000000, 1704067201000, 7_000, 7_000]);
  });

  it('refuses metadata that is not an object', () => {
    expect(caught(() => buffer().emit({}, 'channel'))).toMatchObject({ code: 'EMIT_INVALID' });
  });
});

describe('EmitBuffer payloads', () => {
  it.each([
    ['a function', { f: () => 1 }],
    ['a bigint', { n: 10n }],
    ['NaN', { n: Number.NaN }],
    ['a symbol', Symbol('s')],
  ])('refuses a payload containing %s', (_label, payload) => {
    const b = buffer();
    expect(caught(() => b.emit(payload, undefined))).toMatchObject({ code: 'EMIT_INVALID' });
    expect(b.emits).toHaveLength(0);
  });

  it('refuses a circular payload', () => {
    const loop: Record<string, unknown> = { a: 1 };
    loop['self'] = loop;
    const error = caught(() => buffer().emit(loop, undefined));
    expect(error).toMatchObject({ code: 'EMIT_INVALID' });
    expect((error as Error).message).toContain('circular');
  });

  it('stores an undefined payload as null', () => {
    const b = buffer();
    b.emit(undefined, undefined);
    expect(b.emits[0]?.event).toBeNull();
    expect(b.emits[0]?.metadata.summary).toBe('null');
  });

  it('stores a copy: later mutation of the payload does not change the event; Dates become strings', () => {
    const b = buffer();
    const payload = { list: [1], at: new Date('2024-01-02T03:04:05.000Z') };
    b.emit(payload, undefined);
    payload.list.push(2);
    expect(b.emits[0]?.event).toEqual({ list: [1], at: '2024-01-02T03:04:05.000Z' });
  });

  it('ignores emits after close()', () => {
    const b = buffer();
    b.emit({ before: true }, undefined);
    b.close();
    expect(b.isClosed).toBe(true);
    // Even an invalid emit is silently ignored once closed.
    expect(() => b.emit({ after: true }, { name: '$errors' })).not.toThrow();
    b.emit({ after: true }, undefined);
    expect(b.emits.map((e) => e.event)).toEqual([{ before: true }]);
  });
});
