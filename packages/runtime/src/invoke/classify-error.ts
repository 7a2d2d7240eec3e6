import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppError, isAppError, type SerializedError } from '@tributary/contracts';

// Frames from Tributary's own code and from Node's internals say nothing to an author about their
// code. Run from the packages, that is the folder holding this runtime and its siblings; bundled
// into the sandbox's worker file, it is that one file (the folders above it also hold the server's
// copies of user code, whose frames must stay).
const HERE = fileURLToPath(import.meta.url);
const RUNTIME_DIR = /classify-error\.[cm]?[jt]s$/.test(HERE)
  ? `${path.resolve(path.dirname(HERE), '../../..')}${path.sep}`
  : HERE;

/** The stack with the runtime's own frames removed; the message line stays. */
export function authorStack(stack: string): string {
  return stack
    .split('\n')
    .filter(
      (line, index) =>
        index === 0 ||
        !/^\s+at /.test(line) ||
        !(line.includes(RUNTIME_DIR) || line.includes('node:internal') || line.includes('node:async_hooks')),
    )
    .join('\n');
}

/**
 * Turns anything a component threw into the error of its result: platform errors keep their code,
 * `ConfigurationError` (from @pipedream/platform or anywhere, matched by name because that is what
 * survives bundling and process boundaries) becomes CONFIGURATION_ERROR, the rest COMPONENT_ERROR.
 */
export function classifyError(thrown: unknown): SerializedError {
  if (isAppError(thrown)) return { ...thrown.toJSON(), ...(thrown.stack ? { stack: authorStack(thrown.stack) } : {}) };
  if (thrown instanceof Error) {
    if (thrown.name === 'ConfigurationError') return { code: 'CONFIGURATION_ERROR', message: thrown.message };
    const out: SerializedError = { code: 'COMPONENT_ERROR', message: thrown.message || thrown.name };
    if (thrown.stack) out.stack = authorStack(thrown.stack);
    return out;
  }
  return new AppError('COMPONENT_ERROR', `the component threw a non-Error value: ${safeString(thrown)}`).toJSON();
}

/** The log line for an error: the stack for code errors, the bare message for ConfigurationError. */
export function logLineFor(thrown: unknown, error: SerializedError): string {
  if (error.code === 'CONFIGURATION_ERROR') return error.message;
  if (isAppError(thrown) && thrown.stack) {
    // Name the platform error by its code (EMIT_INVALID, PAYLOAD_TOO_LARGE), not by its class.
    const frames = authorStack(thrown.stack)
      .split('\n')
      .filter((line) => /^\s+at /.test(line));
    return [`${thrown.code}: ${thrown.message}`, ...frames].join('\n');
  }
  if (thrown instanceof Error && thrown.stack) return authorStack(thrown.stack);
  return error.message;
}

function safeString(value: unknown): string {
  try {
    return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  } catch {
    return String(value);
  }
}
