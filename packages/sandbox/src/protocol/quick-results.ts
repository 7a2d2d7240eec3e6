/**
 * The worker messages every invocation sends (`result`, `item_result`, `respond`, `batch_done`,
 * `log`), recognised without zod when they are exactly what the schemas of messages.ts accept
 * with nothing to strip or copy. The worker is the untrusted side, so this accepts only the plain
 * case: no emits, no sends, no error, no key the schemas do not name, every value of its type.
 * Anything else answers false and goes to the full parse, so what is accepted here is what zod
 * gives, key for key (quick-results.test.ts compares both on mutated messages). Written by hand
 * because zod's parse copies every object of a result (a workflow step's return value, exports,
 * `db`), about 3 % of the server's main thread per workflow run.
 */

/** Whether `raw` (already of this protocol's version) is a plain invocation message. */
export function isQuickWorkerMessage(raw: Record<string, unknown>): boolean {
  if (!isId(raw['id'])) return false;
  const type = raw['type'] as string;
  switch (type) {
    case 'batch_done':
      return hasOnly(raw, BATCH_DONE_KEYS) && isCount(raw['count']);
    case 'respond':
      return hasOnly(raw, STREAMED_KEYS.respond) && isItem(raw) && isResponse(raw['response']);
    case 'log':
      return hasOnly(raw, STREAMED_KEYS.log) && isItem(raw) && isLogEntries(raw['entries']);
    case 'item_result':
      return hasOnly(raw, ITEM_RESULT_KEYS) && isCount(raw['item']) && isResult(raw['result']);
    case 'result':
      return hasOnly(raw, RESULT_KEYS) && isResult(raw['result']);
    default:
      return false;
  }
}

const BATCH_DONE_KEYS = new Set(['v', 'type', 'id', 'count']);
const STREAMED_KEYS = {
  respond: new Set(['v', 'type', 'id', 'item', 'response']),
  log: new Set(['v', 'type', 'id', 'item', 'entries']),
};
const ITEM_RESULT_KEYS = new Set(['v', 'type', 'id', 'item', 'result']);
const RESULT_KEYS = new Set(['v', 'type', 'id', 'result']);
const INVOCATION_RESULT_KEYS = new Set([
  'ok',
  'invocationId',
  'type',
  'kind',
  'returnValue',
  'exports',
  'summary',
  'emits',
  'deduped',
  'logs',
  'exit',
  'delay',
  'response',
  'sends',
  'error',
  'state',
  'startedAtMs',
  'durationMs',
  'expressions',
]);
const RESPONSE_KEYS = new Set(['status', 'headers', 'bodyBase64']);
const EXIT_KEYS = new Set(['reason']);
const DELAY_KEYS = new Set(['ms']);
const STATE_KEYS = new Set(['db', 'dedupe']);
const EVALUATED_KEYS = new Set(['ok', 'props']);
const FAILED_EXPRESSION_KEYS = new Set(['ok', 'prop', 'message']);
const LOG_ENTRY_KEYS = new Set(['level', 'message', 'ts']);
const LEVELS = new Set(['info', 'warn', 'error']);
const COMPONENT_TYPES = new Set(['source', 'action']);
const KINDS = new Set(['run', 'deploy', 'activate', 'deactivate']);

/** A plain JSON object (what z.object and z.record take), not an array or null. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

/** Every own key is one the schema names (so zod would strip nothing) and none is undefined. */
function hasOnly(value: Record<string, unknown>, keys: ReadonlySet<string>): boolean {
  for (const key of Object.keys(value)) if (!keys.has(key) || value[key] === undefined) return false;
  return true;
}

const isId = (value: unknown): boolean => typeof value === 'string' && value.length >= 1 && value.length <= 64;
const isCount = (value: unknown): boolean => Number.isInteger(value) && (value as number) >= 0;
const isFiniteNumber = (value: unknown): boolean => typeof value === 'number' && Number.isFinite(value);
const isStringOrNull = (value: unknown): boolean => value === null || typeof value === 'string';
const isEmptyArray = (value: unknown): boolean => Array.isArray(value) && value.length === 0;

/** A streamed message's `item`: absent, or the index of an item. */
const isItem = (raw: Record<string, unknown>): boolean => !('item' in raw) || isCount(raw['item']);

function isResponse(value: unknown): boolean {
  if (!isPlainObject(value) || !hasOnly(value, RESPONSE_KEYS)) return false;
  const status = value['status'];
  const headers = value['headers'];
  if (!Number.isInteger(status) || (status as number) < 100 || (status as number) > 599) return false;
  if (!isPlainObject(headers) || !Object.values(headers).every((header) => typeof header === 'string')) return false;
  return isStringOrNull(value['bodyBase64']);
}

function isLogEntries(value: unknown): boolean {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every(
      (entry) =>
        isPlainObject(entry) &&
        hasOnly(entry, LOG_ENTRY_KEYS) &&
        LEVELS.has(entry['level'] as string) &&
        typeof entry['message'] === 'string' &&
        isFiniteNumber(entry['ts']),
    )
  );
}

function isResult(value: unknown): boolean {
  if (!isPlainObject(value) || !hasOnly(value, INVOCATION_RESULT_KEYS)) return false;
  const r = value;
  return (
    typeof r['ok'] === 'boolean' &&
    typeof r['invocationId'] === 'string' &&
    COMPONENT_TYPES.has(r['type'] as string) &&
    KINDS.has(r['kind'] as string) &&
    isPlainObject(r['exports']) &&
    isStringOrNull(r['summary']) &&
    isEmptyArray(r['emits']) &&
    isEmptyArray(r['deduped']) &&
    isEmptyArray(r['logs']) &&
    isEmptyArray(r['sends']) &&
    r['error'] === null &&
    isExit(r['exit']) &&
    (!('delay' in r) || r['delay'] === null || isDelay(r['delay'])) &&
    (r['response'] === null || isResponse(r['response'])) &&
    isState(r['state']) &&
    isFiniteNumber(r['startedAtMs']) &&
    isFiniteNumber(r['durationMs']) &&
    (!('expressions' in r) || isExpressions(r['expressions']))
  );
}

function isExit(value: unknown): boolean {
  return (
    value === null ||
    (isPlainObject(value) && hasOnly(value, EXIT_KEYS) && 'reason' in value && isStringOrNull(value['reason']))
  );
}

function isDelay(value: unknown): boolean {
  return isPlainObject(value) && hasOnly(value, DELAY_KEYS) && isFiniteNumber(value['ms']);
}

function isState(value: unknown): boolean {
  return isPlainObject(value) && hasOnly(value, STATE_KEYS) && 'dedupe' in value && isPlainObject(value['db']);
}

function isExpressions(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  if (value['ok'] === true) return hasOnly(value, EVALUATED_KEYS) && isPlainObject(value['props']);
  return (
    value['ok'] === false &&
    hasOnly(value, FAILED_EXPRESSION_KEYS) &&
    'prop' in value &&
    isStringOrNull(value['prop']) &&
    typeof value['message'] === 'string'
  );
}
