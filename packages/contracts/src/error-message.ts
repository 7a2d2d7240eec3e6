/**
 * What a caught value says, for a log line or an error's message: an `Error`'s message, anything
 * else (a thrown string, a rejection with a plain value) as text.
 */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
