import { AppError } from '@tributary/contracts';
import type { InvocationResult } from '../invoke/invoke-component.js';
import type { HookName } from '../types.js';
import type { HookFailure } from './lifecycle-types.js';

/**
 * The failure of one hook, as every front end reports it: HOOK_FAILED naming the hook, the cause's
 * code (COMPONENT_ERROR, TIMEOUT, ...) and the hook's own log lines (docs/lifecycle.md).
 */
export function hookFailure(hook: HookName, result: InvocationResult): HookFailure {
  const cause = result.error?.code ?? 'COMPONENT_ERROR';
  const error = new AppError(
    'HOOK_FAILED',
    `the ${hook} hook failed: ${cause}: ${result.error?.message ?? 'unknown error'}`,
    {
      hook,
      cause_code: cause,
      logs: result.logs.map((entry) => `${entry.level}: ${entry.message}`),
    },
  );
  return { hook, result, error };
}
