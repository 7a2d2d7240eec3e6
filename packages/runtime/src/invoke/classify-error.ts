import { AppError, isAppError, type SerializedError } from '@tributary/contracts';

/**
 * Turns anything a component threw into the error of its result: platform errors keep their code,
 * `ConfigurationError` (from @pipedream/platform or anywhere, matched by name because that is what
 * survives bundling and process boundaries) becomes CONFIGURATION_ERROR, the rest COMPONENT_ERROR.
 */
export function classifyError(thrown: unknown): SerializedError {
  if (isAppError(thrown)) return { ...thrown.toJSON(), ...(thrown.stack ? { stack: thrown.stack } : {}) };
  if (thrown instanceof Error) {
    if (thrown.name === 'ConfigurationError') return { code: 'CONFIGURATION_ERROR', message: thrown.message };
    const out: SerializedError = { code: 'COMPONENT_ERROR', message: thrown.message || thrown.name };
    if (thrown.stack) out.stack = thrown.stack;
    return out;
  }
  return new AppError('COMPONENT_ERROR', `the component threw a non-Error value: ${safeString(thrown)}`).toJSON();
}

/** The log line for an error: the stack for code errors, the bare message for ConfigurationError. */
export function logLineFor(thrown: unknown, error: SerializedError): string {
  if (error.code === 'CONFIGURATION_ERROR') return error.message;
  if (thrown instanceof Error && thrown.stack) return thrown.stack;
  return error.message;
}

function safeString(value: unknown): string {
  try {
    return typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
