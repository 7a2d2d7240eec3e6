/** An object with named fields: neither null nor an array (a class instance counts too). */
export function isFields(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
