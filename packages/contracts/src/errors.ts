/**
 * @module @tributary/contracts/errors
 * The error-code registry and the platform error class without the API schemas (and zod): what a
 * process that only reports errors, like the CLI printing its help, needs to load.
 */
export { ERROR_CODES, isErrorCode } from './error-codes.js';
export type { ErrorCategory, ErrorCode } from './error-codes.js';
export { AppError, isAppError } from './app-error.js';
export type { AppErrorDetails, SerializedError } from './app-error.js';
export { errorMessage } from './error-message.js';
export { workflowNameConflict } from './workflow-name-conflict.js';
