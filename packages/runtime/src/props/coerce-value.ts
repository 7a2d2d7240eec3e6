import type { PropSpec } from '../types.js';
import { parsePropType } from './prop-catalogue.js';
import { staticOptionValues } from './static-options.js';
import { isJsonValue, isPlainObject } from '../util/json.js';

export type Coerced = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly reason: string };

const ok = (value: unknown): Coerced => ({ ok: true, value });
const fail = (reason: string): Coerced => ({ ok: false, reason });

/**
 * Coerces a configured value to its prop's type (contract §2.4): integers accept numeric strings
 * that parse exactly, booleans accept "true"/"false", arrays accept one scalar or a JSON-array
 * string, objects accept a JSON-object string. Then checks min/max and static options.
 */
export function coercePropValue(spec: PropSpec, value: unknown): Coerced {
  const { base, isArray } = parsePropType(spec.type);
  let result: Coerced;
  if (isArray) {
    result = coerceArray(base, value);
  } else {
    result = coerceScalar(base, value);
  }
  if (!result.ok) return result;
  const values = isArray ? (result.value as unknown[]) : [result.value];
  for (const item of values) {
    const bounds = checkBounds(spec, item);
    if (bounds) return fail(bounds);
    const option = checkOption(spec, item);
    if (option) return fail(option);
  }
  return result;
}

function coerceArray(base: string, value: unknown): Coerced {
  let list: unknown = value;
  if (typeof value === 'string' && value.trimStart().startsWith('[')) {
    try {
      list = JSON.parse(value);
    } catch {
      // Not a JSON array: a single scalar that happens to start with "[", wrapped below (§2.4).
      list = value;
    }
  }
  if (!Array.isArray(list)) list = [list];
  const out: unknown[] = [];
  for (const [index, item] of (list as unknown[]).entries()) {
    const coerced = coerceScalar(base, item);
    if (!coerced.ok) return fail(`element ${index} ${coerced.reason}`);
    out.push(coerced.value);
  }
  return ok(out);
}

function coerceScalar(base: string, value: unknown): Coerced {
  switch (base) {
    case 'string':
      return typeof value === 'string' ? ok(value) : fail(`must be a string, got ${describe(value)}`);
    case 'integer': {
      if (typeof value === 'number')
        return Number.isInteger(value) ? ok(value) : fail(`must be an integer, got ${value}`);
      if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) {
        const parsed = Number(value.trim());
        return Number.isSafeInteger(parsed) ? ok(parsed) : fail(`is outside the safe integer range`);
      }
      return fail(`must be an integer, got ${describe(value)}`);
    }
    case 'number': {
      if (typeof value === 'number') return Number.isFinite(value) ? ok(value) : fail('must be a finite number');
      if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return ok(Number(value));
      return fail(`must be a number, got ${describe(value)}`);
    }
    case 'boolean':
      if (typeof value === 'boolean') return ok(value);
      if (value === 'true' || value === 'false') return ok(value === 'true');
      return fail(`must be true or false, got ${describe(value)}`);
    case 'object': {
      let parsed = value;
      if (typeof value === 'string') {
        try {
          parsed = JSON.parse(value);
        } catch {
          return fail('must be an object (the string given is not valid JSON)');
        }
      }
      return isPlainObject(parsed) ? ok(parsed) : fail(`must be an object, got ${describe(parsed)}`);
    }
    case 'any':
      return isJsonValue(value) ? ok(value) : fail('must be a JSON value');
    case 'sql':
      return coerceSql(value);
    case 'http_request':
      return coerceHttpRequest(value);
    default:
      return fail(`has type "${base}", which takes no user value`);
  }
}

/** Pipedream's `sql` value, `{ query, params }`; a string is a query without parameters. */
function coerceSql(value: unknown): Coerced {
  if (typeof value === 'string') return ok({ query: value, params: [] });
  if (!isPlainObject(value) || typeof value['query'] !== 'string')
    return fail(`must be a query string or { "query": "…", "params": [] }, got ${describe(value)}`);
  const params = value['params'] ?? [];
  if (!Array.isArray(params) || !params.every((param) => isJsonValue(param)))
    return fail('"params" must be a list of values');
  return ok({ query: value['query'], params });
}

/** Pipedream's `http_request` value: the request's configuration; a string is its URL. */
function coerceHttpRequest(value: unknown): Coerced {
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = value.trimStart().startsWith('{') ? JSON.parse(value) : { url: value };
    } catch {
      return fail('must be a URL or a request object (the string given is not valid JSON)');
    }
  }
  if (!isPlainObject(parsed) || !isJsonValue(parsed))
    return fail(
      `must be a URL or a request object { url, method, headers, params, body, auth }, got ${describe(parsed)}`,
    );
  for (const field of ['url', 'method'] as const) {
    if (parsed[field] !== undefined && typeof parsed[field] !== 'string') return fail(`"${field}" must be a string`);
  }
  return ok(parsed);
}

function checkBounds(spec: PropSpec, item: unknown): string | null {
  if (typeof item !== 'number') return null;
  if (typeof spec.min === 'number' && item < spec.min) return `must be >= ${spec.min}, got ${item}`;
  if (typeof spec.max === 'number' && item > spec.max) return `must be <= ${spec.max}, got ${item}`;
  return null;
}

function checkOption(spec: PropSpec, item: unknown): string | null {
  const allowed = staticOptionValues(spec.options);
  if (allowed === null) return null;
  if (allowed.some((candidate) => candidate === item)) return null;
  return `must be one of ${allowed.map((candidate) => JSON.stringify(candidate)).join(', ')}, got ${JSON.stringify(item)}`;
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string')
    return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}
