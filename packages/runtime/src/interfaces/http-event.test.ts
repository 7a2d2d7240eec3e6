import { describe, expect, it } from 'vitest';
import { buildHttpEvent, type RawHttpRequest } from '@tributary/runtime';

function request(overrides: Partial<RawHttpRequest> = {}): RawHttpRequest {
  return {
    method: 'POST',
    path: '/a/b',
    url: 'https://hooks.example.test/a/b',
    query: new URLSearchParams(),
    headers: {},
    body: Buffer.alloc(0),
    ...overrides,
  };
}

describe('buildHttpEvent', () => {
  it('lower-cases header names and joins repeated values', () => {
    const event = buildHttpEvent(
      request({ headers: { 'X-Test': '1', 'Content-Type': 'text/plain', 'X-Multi': ['a', 'b'], 'X-Gone': undefined } }),
    );
    expect(event['headers']).toEqual({ 'x-test': '1', 'content-type': 'text/plain', 'x-multi': 'a, b' });
  });

  it('gives query values as strings and repeated keys as arrays', () => {
    const event = buildHttpEvent(request({ query: new URLSearchParams('k=v&tag=a&tag=b&empty=') }));
    expect(event['query']).toEqual({ k: 'v', tag: ['a', 'b'], empty: '' });
  });

  it('parses a JSON body and keeps the raw text in both bodyRaw and rawBody', () => {
    const text = '{"a":1,"b":[true,null]}';
    const event = buildHttpEvent(request({ headers: { 'Content-Type': 'application/json' }, body: Buffer.from(text) }));
    expect(event['body']).toEqual({ a: 1, b: [true, null] });
    expect(event['bodyRaw']).toBe(text);
    expect(event['rawBody']).toBe(text);
  });

  it('parses a body that is JSON even without a JSON content-type', () => {
    const event = buildHttpEvent(request({ body: Buffer.from('[1,2]') }));
    expect(event['body']).toEqual([1, 2]);
  });

  it('keeps an urlencoded body as a string, even when it would parse as JSON', () => {
    const event = buildHttpEvent(
      request({ headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: Buffer.from('a=1&b=2') }),
    );
    expect(event['body']).toBe('a=1&b=2');
    const numeric = buildHttpEvent(
      request({
        headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
        body: Buffer.from('123'),
      }),
    );
    expect(numeric['body']).toBe('123');
  });

  it('gives undefined for an empty body, with empty raw strings', () => {
    const event = buildHttpEvent(request({ method: 'get', body: Buffer.alloc(0) }));
    expect(event['body']).toBeUndefined();
    expect(event['bodyRaw']).toBe('');
    expect(event['rawBody']).toBe('');
  });

  it('keeps a non-JSON text body as text, bodyRaw and rawBody equal', () => {
    const event = buildHttpEvent(
      request({ headers: { 'content-type': 'application/json' }, body: Buffer.from('{broken') }),
    );
    expect(event['body']).toBe('{broken');
    expect(event['bodyRaw']).toBe(event['rawBody']);
  });

  it('upper-cases the method and passes path and url through', () => {
    const event = buildHttpEvent(request({ method: 'patch', path: '/x/y', url: 'https://h.test/x/y?q=1' }));
    expect(event).toMatchObject({ method: 'PATCH', path: '/x/y', url: 'https://h.test/x/y?q=1' });
  });

  it('keeps a query key or header named __proto__ as data, without touching the prototype', () => {
    const event = buildHttpEvent(
      request({
        query: new URLSearchParams('__proto__=a&__proto__=b&constructor=c'),
        headers: JSON.parse('{"__proto__":"h"}') as Record<string, string>,
      }),
    );
    const query = event['query'] as Record<string, unknown>;
    expect(Object.getPrototypeOf(query)).toBe(Object.prototype);
    expect(Object.hasOwn(query, '__proto__')).toBe(true);
    expect(query['__proto__']).toEqual(['a', 'b']);
    expect(query['constructor']).toBe('c');
    const headers = event['headers'] as Record<string, unknown>;
    expect(Object.hasOwn(headers, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(headers)).toBe(Object.prototype);
    expect(JSON.parse(JSON.stringify(query))).toEqual(JSON.parse('{"__proto__":["a","b"],"constructor":"c"}'));
  });
});
