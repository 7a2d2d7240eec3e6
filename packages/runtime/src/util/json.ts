export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

export function isJsonValue(value: unknown): boolean {
  return findNonJson(value) === null;
}

/**
 * Returns a description of the first part of `value` that JSON cannot carry faithfully (a
 * function, symbol, bigint, circular reference or non-finite number), or null when there is none.
 * `JSON.stringify` alone would silently drop or null such parts, and authors deserve to know.
 */
export function findNonJson(value: unknown, at = '(value)', seen = new Set<object>()): string | null {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return null;
    case 'number':
      return Number.isFinite(value) ? null : `${at} is ${value}, which JSON cannot hold`;
    case 'undefined':
      return null;
    case 'function':
      return `${at} is a function`;
    case 'symbol':
      return `${at} is a symbol`;
    case 'bigint':
      return `${at} is a bigint`;
    case 'object': {
      if (value === null) return null;
      if (seen.has(value)) return `${at} is a circular reference`;
      if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return null;
      if (Buffer.isBuffer(value) || ArrayBuffer.isView(value)) return null;
      seen.add(value);
      const entries = Array.isArray(value)
        ? value.map((item, index) => [String(index), item] as const)
        : Object.entries(value);
      for (const [key, item] of entries) {
        const found = findNonJson(item, Array.isArray(value) ? `${at}[${key}]` : `${at}.${key}`, seen);
        if (found) return found;
      }
      seen.delete(value);
      return null;
    }
  }
}

/** A JSON round trip: what a value looks like after being stored (Dates become strings). */
export function jsonClone<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

export function jsonByteLength(value: unknown): number {
  const text = JSON.stringify(value);
  return text === undefined ? 0 : Buffer.byteLength(text, 'utf8');
}
