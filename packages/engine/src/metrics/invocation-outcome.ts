import type { InvocationOutcome } from '../ports/metrics.js';

/**
 * The metric outcome of an invocation's result: a few fixed values (a label must not take one value
 * per error message), the sandbox's limits told apart from the component's own failures.
 */
export function outcomeOf(result: {
  readonly ok: boolean;
  readonly error: { readonly code?: string } | null;
}): InvocationOutcome {
  if (result.ok) return 'success';
  switch (result.error?.code) {
    case 'TIMEOUT':
      return 'timeout';
    case 'OUT_OF_MEMORY':
      return 'out_of_memory';
    case 'CRASHED':
      return 'crashed';
    default:
      return 'error';
  }
}
