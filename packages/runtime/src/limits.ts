/** Default deadlines of one invocation (contract §10). */
export const DEFAULT_SOURCE_TIMEOUT_MS = 300_000;
export const DEFAULT_ACTION_TIMEOUT_MS = 30_000;
