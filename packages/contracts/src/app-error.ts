import { ERROR_CODES, type ErrorCategory, type ErrorCode } from './error-codes.js';

/** Optional structured context of an error: which rule, prop or field it is about. */
export interface AppErrorDetails {
  readonly rule?: string;
  readonly prop?: string;
  readonly field?: string;
  readonly file?: string;
  readonly line?: number;
  readonly column?: number;
  readonly [key: string]: unknown;
}

/** Plain shape in which errors cross process boundaries and reach JSON output. */
export interface SerializedError {
  code: ErrorCode;
  message: string;
  rule?: string;
  details?: AppErrorDetails;
  stack?: string;
}

/**
 * The one error class of the platform. Its status and category come from the registry.
 *
 * @example
 * throw new AppError('PROP_INVALID', 'prop "repeat" must be <= 5', { prop: 'repeat' });
 */
export class AppError extends Error {
  override readonly name = 'AppError';
  readonly code: ErrorCode;
  readonly details: AppErrorDetails;

  constructor(code: ErrorCode, message: string, details: AppErrorDetails = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.details = details;
  }

  get status(): number {
    return ERROR_CODES[this.code].status;
  }

  get category(): ErrorCategory {
    return ERROR_CODES[this.code].category;
  }

  toJSON(): SerializedError {
    const out: SerializedError = { code: this.code, message: this.message };
    if (this.details.rule !== undefined) out.rule = this.details.rule;
    if (Object.keys(this.details).length > 0) out.details = this.details;
    return out;
  }
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}
