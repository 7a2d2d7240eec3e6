/**
 * Runs a synchronous better-sqlite3 call and hands its outcome back as a promise. The SQLite
 * implementations keep their hot paths synchronous (a transaction that cannot interleave with
 * anything else on the connection, and no extra turns of the event loop) behind async ports.
 */
export function settle<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}
