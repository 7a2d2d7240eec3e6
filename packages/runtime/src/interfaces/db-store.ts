import { AppError } from '@tributary/contracts';
import type { Json } from '../types.js';
import { findNonJson, jsonByteLength, jsonClone } from '../util/json.js';

export const DB_SIZE_LIMIT_BYTES = 60 * 1024;

/**
 * `$.service.db` of one invocation: synchronous get/set over a snapshot of the source's store.
 * Writes are visible at once and survive a later throw (contract §3.3).
 */
export class DbStore {
  private readonly data: Map<string, Json>;

  constructor(
    snapshot: Readonly<Record<string, Json>>,
    private readonly limitBytes = DB_SIZE_LIMIT_BYTES,
    /** Sees every accepted write (undefined = delete), so a host can keep writes of a killed worker. */
    private readonly onSet?: (key: string, value: Json | undefined) => void,
  ) {
    this.data = new Map(Object.entries(jsonClone(snapshot)));
  }

  get(key: unknown): Json | undefined {
    const value = this.data.get(String(key));
    return value === undefined ? undefined : jsonClone(value);
  }

  set(key: unknown, value: unknown): void {
    if (typeof key !== 'string')
      throw new AppError('DB_VALUE_INVALID', `db.set: the key must be a string, got ${typeof key}`);
    if (value === undefined) {
      this.data.delete(key);
      this.onSet?.(key, undefined);
      return;
    }
    const problem = findNonJson(value, `value of "${key}"`);
    if (problem)
      throw new AppError('DB_VALUE_INVALID', `db.set("${key}"): ${problem}; values must be JSON-serializable`);
    const stored = jsonClone(value) as Json;
    const previous = this.data.get(key);
    this.data.set(key, stored);
    const size = jsonByteLength(Object.fromEntries(this.data));
    if (size > this.limitBytes) {
      if (previous === undefined) this.data.delete(key);
      else this.data.set(key, previous);
      throw new AppError(
        'DB_SIZE_EXCEEDED',
        `db.set("${key}"): db size limit exceeded (${size} bytes > ${this.limitBytes}); the value was not stored`,
      );
    }
    this.onSet?.(key, stored);
  }

  snapshot(): Record<string, Json> {
    return Object.fromEntries(this.data);
  }

  /** The object components see as `this.db`: plain functions, so destructuring keeps working. */
  facade(): { get: (key: string) => Json | undefined; set: (key: string, value: unknown) => void } {
    return Object.freeze({
      get: (key: string) => this.get(key),
      set: (key: string, value: unknown) => this.set(key, value),
    });
  }
}
