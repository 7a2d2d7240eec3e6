// Fuzz target of the REST API: requests to every route of the OpenAPI document a real server
// publishes (so every route of the route table), with bodies built from each route's own JSON
// schema (mostly well-formed, to get past validation) and hostile ones (wrong types, prototype
// keys, deep nesting, bad JSON, wrong media types), hostile path parameters and queries. Every
// answer must be below 500 and, when refused, in the error shape with a registered code whose
// status it has, and must leave the database exactly as it was.
import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import http from 'node:http';
import { URL, URLSearchParams } from 'node:url';
import fc from 'fast-check';
import { ERROR_CODES } from '@tributary/contracts';
import { deepJson, hostileJson, hostileString, PROTO_KEYS } from './arbitraries.mjs';

/**
 * Routes of the route table left out: they reach the npm registry over the network (an import
 * installs packages). The document's other entries (SSE streams that stay open, `/e/` endpoints)
 * are not REST routes and are left out too.
 */
export const EXCLUDED_ROUTES = [
  { method: 'POST', path: '/v1/registry/packages', why: 'installs from the npm registry (network)' },
  { method: 'POST', path: '/v1/registry/upgrade', why: 'installs from the npm registry (network)' },
  { method: 'GET', path: '/v1/registry/outdated', why: 'asks the npm registry (network)' },
];

/** URLs a generated body may carry: none leaves this machine (private ones are refused; port 9 discards). */
const SAFE_URLS = [
  'http://127.0.0.1:9/x',
  'http://[::ffff:127.0.0.1]:9/',
  'http://169.254.169.254/latest/meta-data/',
  'http://localhost:9/',
  'ftp://127.0.0.1/x',
  'file:///etc/passwd',
  'javascript:alert(1)',
  'not a url',
  'http://',
  'http://user:pass@127.0.0.1:9/',
];

/** Path parameter values: known ids (so handlers go deep), traversal and encoding tricks, anything. */
function paramValue(known) {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...known) },
    { weight: 1, arbitrary: fc.constantFrom('..', '.', '%2e%2e', '%2F', '%00', '%zz', '%C0%AF', 'dc_', 'sc_', '*') },
    { weight: 2, arbitrary: hostileString.map((text) => encodeURIComponent(text.toWellFormed())) },
  );
}

/** A generator of values for a JSON schema (the input side, as z.toJSONSchema gives it). */
function fromSchema(schema, name, codes, depth = 0) {
  const hostile = fc.oneof(hostileJson, fc.constantFrom(deepJson(200), deepJson(40, 'object')));
  if (!schema || typeof schema !== 'object' || depth > 6) return hostileJson;
  const lower = (name ?? '').toLowerCase();
  if (lower.includes('url') || lower === 'endpoint') return fc.oneof(fc.constantFrom(...SAFE_URLS), hostile);
  if (lower === 'component_code' || lower === 'code') return fc.oneof(fc.constantFrom(...codes), hostileString);
  let valid;
  if (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf)) {
    valid = fc.oneof(...(schema.anyOf ?? schema.oneOf).map((item) => fromSchema(item, name, codes, depth + 1)));
  } else if (schema.const !== undefined) {
    valid = fc.constant(schema.const);
  } else if (Array.isArray(schema.enum)) {
    valid = fc.constantFrom(...schema.enum);
  } else {
    const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
    switch (type) {
      case 'string':
        valid = fc.oneof(
          fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 30, 30) }),
          hostileString,
        );
        break;
      case 'integer':
        valid = fc.integer({
          min: Math.max(schema.minimum ?? -1000, -1e9),
          max: Math.min(schema.maximum ?? 1000, 1e9),
        });
        break;
      case 'number':
        valid = fc.double({ noNaN: true, noDefaultInfinity: true });
        break;
      case 'boolean':
        valid = fc.boolean();
        break;
      case 'null':
        valid = fc.constant(null);
        break;
      case 'array':
        valid = fc.array(fromSchema(schema.items, name, codes, depth + 1), { maxLength: 4 });
        break;
      case 'object': {
        const properties = schema.properties ?? {};
        const entries = Object.entries(properties);
        const required = new Set(schema.required ?? []);
        const record = fc.record(
          Object.fromEntries(entries.map(([key, item]) => [key, fromSchema(item, key, codes, depth + 1)])),
          { requiredKeys: entries.map(([key]) => key).filter((key) => required.has(key)) },
        );
        const extra = fc.dictionary(
          fc.oneof(fc.constantFrom(...PROTO_KEYS), fc.string({ maxLength: 8 })),
          hostileJson,
          {
            maxKeys: 2,
          },
        );
        valid = fc.oneof(
          { weight: 4, arbitrary: record },
          {
            weight: 1,
            arbitrary: fc
              .tuple(record, extra)
              .map(([base, more]) => Object.assign(JSON.parse(JSON.stringify(more)), base)),
          },
        );
        break;
      }
      default:
        return hostileJson;
    }
  }
  return fc.oneof({ weight: 6, arbitrary: valid }, { weight: 1, arbitrary: hostile });
}

/** How a generated body goes on the wire. */
const bodyEncoding = fc.constantFrom(
  'json',
  'json',
  'json',
  'json',
  'json',
  'none',
  'empty-json',
  'broken-json',
  'text-plain',
  'proto-json',
);

function encodeBody(kind, value) {
  switch (kind) {
    case 'json':
      return { body: JSON.stringify(value) ?? 'null', contentType: 'application/json' };
    case 'none':
      return { body: null, contentType: null };
    case 'empty-json':
      return { body: '', contentType: 'application/json' };
    case 'broken-json':
      return { body: `${JSON.stringify(value) ?? ''}{`, contentType: 'application/json' };
    case 'text-plain':
      return { body: JSON.stringify(value) ?? '', contentType: 'text/plain' };
    case 'proto-json':
      return {
        body: '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}',
        contentType: 'application/json',
      };
  }
  throw new Error(`unknown body encoding ${kind}`);
}

/** Routes of the server's OpenAPI document, minus the excluded ones. */
export async function fetchRoutes(base, key) {
  const answer = await send(base, {
    method: 'GET',
    path: '/v1/openapi.json',
    headers: { authorization: `Bearer ${key}` },
  });
  assert.equal(answer.status, 200, `GET /v1/openapi.json answered ${answer.status}`);
  const document = JSON.parse(answer.text);
  const routes = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const upper = method.toUpperCase();
      if (!path.startsWith('/v1/') || /\/sse(\/|$)/.test(path)) continue;
      if (EXCLUDED_ROUTES.some((route) => route.method === upper && route.path === path)) continue;
      const parameters = operation.parameters ?? [];
      routes.push({
        method: upper,
        path,
        query: parameters.filter((parameter) => parameter.in === 'query'),
        body: operation.requestBody?.content?.['application/json']?.schema ?? null,
      });
    }
  }
  return routes;
}

/** A generated request to one of `routes`. */
export function requestArbitrary(routes, known, codes) {
  return fc.oneof(
    ...routes.map((route) => {
      const params = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
      const query = fc.record(
        Object.fromEntries(
          route.query.map((parameter) => [
            parameter.name,
            fc.oneof(
              fromSchema(parameter.schema, parameter.name, codes).map((value) =>
                typeof value === 'string' ? value : (JSON.stringify(value) ?? ''),
              ),
              hostileString,
            ),
          ]),
        ),
        { requiredKeys: [] },
      );
      const extraQuery = fc.array(
        fc.tuple(fc.oneof(fc.constantFrom(...PROTO_KEYS), fc.string({ maxLength: 6 })), hostileString),
        {
          maxLength: 2,
        },
      );
      return fc
        .record({
          params: fc.tuple(...params.map(() => paramValue(known))),
          query,
          extraQuery,
          body: route.body ? fromSchema(route.body, null, codes) : hostileJson,
          encoding: route.body ? bodyEncoding : fc.constantFrom('none', 'none', 'none', 'json', 'empty-json'),
        })
        .map((generated) => {
          let path = route.path;
          params.forEach((name, index) => {
            path = path.replace(`{${name}}`, generated.params[index]);
          });
          const search = new URLSearchParams();
          for (const [name, value] of Object.entries(generated.query)) search.append(name, value.toWellFormed());
          for (const [name, value] of generated.extraQuery) search.append(name.toWellFormed(), value.toWellFormed());
          const text = search.toString();
          return {
            route: `${route.method} ${route.path}`,
            method: route.method,
            path: text ? `${path}?${text}` : path,
            ...encodeBody(generated.encoding, generated.body),
          };
        });
    }),
  );
}

/** One request on a fresh connection; the path goes out exactly as written. */
export function send(base, { method, path, headers = {}, body = null, contentType = null }) {
  const url = new URL(base);
  const payload = body === null ? null : Buffer.from(body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        agent: false,
        headers: {
          ...headers,
          ...(contentType ? { 'content-type': contentType } : {}),
          ...(payload ? { 'content-length': payload.length } : {}),
        },
      },
      (response) => {
        const chunks = [];
        response.on('data', (chunk) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            contentType: String(response.headers['content-type'] ?? ''),
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', reject);
      },
    );
    request.setTimeout(60_000, () => request.destroy(new Error(`${method} ${path}: no answer in 60 s`)));
    request.on('error', reject);
    request.end(payload ?? undefined);
  });
}

/** Columns written by reads themselves, not state a request changes: left out of the fingerprint. */
const VOLATILE = { api_keys: ['last_used_at'] };

/**
 * A digest of every row of every table, on a connection of the caller's (WAL: reads see the last
 * commit and never block the server).
 */
export function fingerprint(db) {
  const hash = createHash('sha256');
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .all()
    .map((row) => row.name);
  for (const table of tables) {
    hash.update(`\u0000${table}\u0000`);
    for (const row of db.prepare(`SELECT * FROM "${table}" ORDER BY rowid`).all()) {
      for (const column of VOLATILE[table] ?? []) delete row[column];
      hash.update(JSON.stringify(row, (_key, value) => (Buffer.isBuffer(value) ? value.toString('hex') : value)));
    }
  }
  return hash.digest('hex');
}

/** Checks one answer: no 5xx; a refusal is the error shape with a registered code of its status. */
export function checkAnswer(request, answer) {
  const what = `${request.method} ${request.path} (${request.contentType ?? 'no body'})`;
  assert.ok(answer.status < 500, `${what} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
  if (answer.status < 400) return;
  assert.match(answer.contentType, /^application\/json/, `${what}: a ${answer.status} that is not JSON`);
  const body = JSON.parse(answer.text);
  assert.deepEqual(Object.keys(body), ['error'], `${what}: not the error shape: ${answer.text.slice(0, 200)}`);
  const { code, message } = body.error;
  assert.ok(Object.hasOwn(ERROR_CODES, code), `${what}: unregistered code ${code}`);
  assert.equal(ERROR_CODES[code].status, answer.status, `${what}: ${code} answered with ${answer.status}`);
  assert.equal(typeof message, 'string');
  assert.ok(message.length > 0);
}

/**
 * The REST property: each generated request is sent with the API key; a refused one must leave
 * the fingerprint unchanged. `stats` counts answers by status class and route.
 */
export function restTarget({ base, key, db, routes, known, codes, stats }) {
  let before = fingerprint(db);
  return {
    name: 'REST routes',
    property: (count) =>
      fc.asyncProperty(requestArbitrary(routes, known, codes), async (request) => {
        count();
        const answer = await send(base, { ...request, headers: { authorization: `Bearer ${key}` } });
        const after = fingerprint(db);
        const changed = after !== before;
        before = after;
        if (stats) {
          const bucket = `${Math.floor(answer.status / 100)}xx`;
          stats.byStatus[bucket] = (stats.byStatus[bucket] ?? 0) + 1;
          stats.routes.add(request.route);
          if (answer.status >= 400) {
            const code = /"code":"([A-Z_]+)"/.exec(answer.text)?.[1] ?? String(answer.status);
            stats.byCode[code] = (stats.byCode[code] ?? 0) + 1;
          }
        }
        checkAnswer(request, answer);
        if (answer.status >= 400)
          assert.ok(
            !changed,
            `${request.method} ${request.path} was refused (${answer.status}) but changed stored state`,
          );
      }),
  };
}
