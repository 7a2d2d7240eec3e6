import { ERROR_CODES, type ErrorCode } from '@tributary/contracts/errors';

/**
 * Exit codes of the local commands (run, dev, validate, options): 0 ok, 1 the component threw or
 * timed out, 2 usage, loading and validation errors (and Tributary's own failures).
 */
export const EXIT_OK = 0;
export const EXIT_COMPONENT_FAILED = 1;
export const EXIT_USAGE = 2;

export function exitCodeFor(code: ErrorCode): number {
  const category = ERROR_CODES[code].category;
  switch (category) {
    case 'component':
      return EXIT_COMPONENT_FAILED;
    case 'user':
    case 'internal':
      return EXIT_USAGE;
  }
}
