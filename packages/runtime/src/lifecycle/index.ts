/**
 * The source lifecycle of contract §5.3 (deploy, update, activate, deactivate, delete, rollback),
 * shared by the server and `tributary run` / `tributary dev` so they cannot drift apart. No I/O:
 * hooks run through the caller's RunHook, and the outcome says what the caller stores.
 */
export { deploySource } from './deploy-source.js';
export type { DeploySourceOptions } from './deploy-source.js';
export { hookFailure } from './hook-failure.js';
export type {
  Applied,
  DeployOutcome,
  HookFailure,
  LifecycleCommit,
  LifecycleOutcome,
  Refused,
  RolledBack,
  RunHook,
  UpdateOutcome,
} from './lifecycle-types.js';
export { unexpectedOutcome } from './lifecycle-types.js';
export { removeSource } from './remove-source.js';
export type { RemoveSourceOptions } from './remove-source.js';
export { updateSource } from './update-source.js';
export type { UpdateSourceOptions } from './update-source.js';
