import { describe, expect, it } from 'vitest';
import { normalizeResponse } from './http-response.js';

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw');
}

describe('normalizeResponse', () => {
  it('coerces a numeric-string status', () => {
    expect(normalizeResponse({ status: '201' }, 'http.respond')).toEqual({ status: 201, headers: {}, body: null });
    expect(normalizeResponse({ status: 100 }, 'x').status).toBe(100);
    expect(normalizeResponse({ status: 599 }, 'x').status).toBe(599);
  });

  it.each([99, 600, 'abc', '', 200.5, null, undefined, '2e2'])('refuses status %j with RESPOND_INVALID', (status) => {
    const error = caught(() => normalizeResponse({ status }, 'http.respond'));
    expect(error).toMatchObject({ code: 'RESPOND_INVALID', details: { field: 'status' } });
    expect((error as Error).message).toContain('http.respond');
  });

  it('refuses a non-object argument', () => {
    expect(caught(() => normalizeResponse('200', '$.respond'))).toMatchObject({ code: 'RESPOND_INVALID' });
    expect(caught(() => normalizeResponse(null, '$.respond'))).toMatchObject({ code: 'RESPOND_INVALID' });
  });

  it('turns an object body into JSON with content-type application/json', () => {
    const res = normalizeResponse({ status: 200, body: { got: { a: 1 } } }, 'x');
    expect(res.body).toBe('{"got":{"a":1}}');
    expect(res.headers['content-type']).toBe('application/json');
    const list = normalizeResponse({ status: 200, body: [1, 2] }, 'x');
    expect(list.body).toBe('[1,2]');
    expect(list.headers['content-type']).toBe('application/json');
  });

  it('keeps a caller-set content-type for an object body, whatever its case', () => {
    const res = normalizeResponse(
      { status: 200, headers: { 'Content-Type': 'application/vnd.x+json' }, body: { a: 1 } },
      'x',
    );
    expect(res.headers).toEqual({ 'content-type': 'application/vnd.x+json' });
    expect(res.body).toBe('{"a":1}');
  });

  it('keeps a string body and adds no content-type', () => {
    const res = normalizeResponse({ status: 418, body: 'teapot' }, 'x');
    expect(res.body).toBe('teapot');
    expect(res.headers).toEqual({});
  });

  it('keeps a Buffer body as the same bytes', () => {
    const bytes = Buffer.from([0, 1, 2, 255]);
    const res = normalizeResponse({ status: 200, body: bytes }, 'x');
    expect(Buffer.isBuffer(res.body)).toBe(true);
    expect((res.body as Buffer).equals(bytes)).toBe(true);
    expect(res.headers).toEqual({});
  });

  it('lower-cases header names and stringifies their values, dropping null/undefined ones', () => {
    const res = normalizeResponse(
      {
        status: 200,
        headers: { 'X-Fixture': 'echo', 'X-Count': 3, 'X-List': ['a', 'b'], 'X-None': undefined, 'X-Null': null },
      },
      'x',
    );
    expect(res.headers).toEqual({ 'x-fixture': 'echo', 'x-count': '3', 'x-list': 'a, b' });
  });

  it('refuses headers that are not an object', () => {
    expect(caught(() => normalizeResponse({ status: 200, headers: 'x: y' }, 'x'))).toMatchObject({
      code: 'RESPOND_INVALID',
      details: { field: 'headers' },
    });
  });

  it('refuses a function body', () => {
    expect(caught(() => normalizeResponse({ status: 200, body: () => 'x' }, 'x'))).toMatchObject({
      code: 'RESPOND_INVALID',
      details: { field: 'body' },
    });
  });

  it('treats a missing or null body as no body', () => {
    expect(normalizeResponse({ status: 204 }, 'x').body).toBeNull();
    expect(normalizeResponse({ status: 204, body: null }, 'x').body).toBeNull();
  });
});
