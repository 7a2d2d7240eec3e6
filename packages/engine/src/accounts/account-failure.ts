import { AppError } from '@tributary/contracts';
import type { InvocationResult } from '@tributary/runtime';

/** Account errors that fail a run before it starts (the account needs reconnecting, or its refresh failed). */
export function isAccountFailure(error: unknown): error is AppError {
  if (!(error instanceof AppError)) return false;
  switch (error.code) {
    case 'ACCOUNT_NEEDS_RECONNECT':
    case 'OAUTH_PROVIDER_ERROR':
    case 'OAUTH_NOT_CONFIGURED':
      return true;
    default:
      return false;
  }
}

/** A run that failed before the component got control: no emits, no state change, the account's error. */
export function accountFailureResult(input: {
  readonly error: AppError;
  readonly type: InvocationResult['type'];
  readonly kind: InvocationResult['kind'];
  readonly state: InvocationResult['state'];
  readonly now: number;
}): InvocationResult {
  return {
    ok: false,
    invocationId: `inv_${input.now.toString(36)}`,
    type: input.type,
    kind: input.kind,
    returnValue: undefined,
    exports: {},
    summary: null,
    emits: [],
    deduped: [],
    logs: [{ level: 'error', message: input.error.message, ts: input.now }],
    exit: null,
    response: null,
    sends: [],
    error: input.error.toJSON(),
    state: input.state,
    startedAtMs: input.now,
    durationMs: 0,
  };
}
