// Fuzz target of the HTTP ingress: generated requests to a seeded source's endpoint (`/e/<id>`):
// every method Node sends, sub-paths, query strings and headers with prototype keys, bodies as
// JSON, bytes or text under several content types. An accepted request must be stored (one more
// queued invocation of the source: an acknowledged event is never lost; a CORS preflight none), a refused one must be
// in the error shape with a registered code and change no row, and none may be a 5xx.
import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import http from 'node:http';
import { URLSearchParams } from 'node:url';
import fc from 'fast-check';
import { hostileJson, hostileString, PROTO_KEYS } from './arbitraries.mjs';
import { checkAnswer, send } from './rest-target.mjs';

const METHODS = http.METHODS.filter((method) => method !== 'CONNECT');
const headerValue = fc.stringMatching(/^[\x20-\x7e]{0,40}$/);
const headerName = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,20}$/),
  fc.constantFrom(...PROTO_KEYS, 'x-forwarded-for', 'transfer-encoding-x', 'accept'),
);

export const ingressRequest = fc.record({
  method: fc.constantFrom(...METHODS),
  subPath: fc.oneof(
    fc.constant(''),
    hostileString.map((text) => `/${encodeURIComponent(text.toWellFormed())}`),
    fc.constantFrom('/..', '/%2e%2e/%2e%2e/v1/users/me', '/%00', '/a/b/c', '/?', '//x'),
  ),
  query: fc.array(fc.tuple(fc.oneof(fc.constantFrom(...PROTO_KEYS), hostileString), hostileString), { maxLength: 4 }),
  headers: fc.array(fc.tuple(headerName, headerValue), { maxLength: 4 }),
  contentType: fc.constantFrom(
    null,
    'application/json',
    'application/x-www-form-urlencoded',
    'text/plain',
    'multipart/form-data; boundary=x',
    'application/octet-stream',
    'application/json; charset=latin1',
  ),
  body: fc.oneof(
    fc.constant(null),
    hostileJson.map((value) => JSON.stringify(value) ?? 'null'),
    fc.uint8Array({ maxLength: 256 }).map((bytes) => Buffer.from(bytes)),
    hostileString,
    fc.constant('--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--\r\n'),
  ),
});

/**
 * SQLite's data_version on our connection: it changes when any other connection commits. The
 * engine is not started, so only the request under test writes (a full fingerprint would grow
 * with every stored request).
 */
function dataVersion(db) {
  return db.pragma('data_version', { simple: true });
}

function queued(db, sourceId) {
  return db.prepare('SELECT count(*) AS n FROM invocations WHERE source_id = ?').get(sourceId).n;
}

/** The ingress property against the endpoint `endpointPath` of source `sourceId`. */
export function ingressTarget({ base, db, endpointPath, sourceId, stats }) {
  return {
    name: 'HTTP ingress',
    property: (count) =>
      fc.asyncProperty(ingressRequest, async (input) => {
        count();
        const search = new URLSearchParams();
        for (const [name, value] of input.query) search.append(name.toWellFormed(), value.toWellFormed());
        const text = search.toString();
        const path = `${endpointPath}${input.subPath}${text ? `?${text}` : ''}`;
        const request = {
          method: input.method,
          path,
          headers: Object.fromEntries(input.headers),
          body: input.body,
          contentType: input.body === null ? null : input.contentType,
        };
        const before = dataVersion(db);
        const queuedBefore = queued(db, sourceId);
        const answer = await send(base, request);
        if (stats) {
          const bucket = `${Math.floor(answer.status / 100)}xx`;
          stats.byStatus[bucket] = (stats.byStatus[bucket] ?? 0) + 1;
          if (answer.status >= 400) {
            const code = /"code":"([A-Z_]+)"/.exec(answer.text)?.[1] ?? String(answer.status);
            stats.byCode[code] = (stats.byCode[code] ?? 0) + 1;
          }
        }
        assert.ok(
          answer.status < 500,
          `${input.method} ${path} answered ${answer.status}: ${answer.text.slice(0, 200)}`,
        );
        if (answer.status >= 400) {
          if (input.method !== 'HEAD') checkAnswer(request, answer);
          assert.equal(dataVersion(db), before, `${input.method} ${path} was refused but changed stored state`);
          return;
        }
        // An acknowledged request is queued, once; an OPTIONS is a CORS preflight the ingress answers itself.
        const expected = input.method === 'OPTIONS' ? queuedBefore : queuedBefore + 1;
        assert.equal(queued(db, sourceId), expected, `${input.method} ${path} answered ${answer.status}; queued runs`);
      }),
  };
}
