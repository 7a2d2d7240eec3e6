import type { AppError } from '@tributary/contracts';
import type { InvocationResult, InvocationState } from '../invoke/invoke-component.js';
import type { HookName } from '../types.js';

/**
 * The one port the lifecycle needs: run one hook of one version of a source's code from a state.
 * `Code` is whatever the caller uses to tell versions apart (a sandbox handle with its configured
 * props, a stored row): the caller owns the sandbox, the props and the storage, the lifecycle only
 * decides which version runs which hook, from which state, and what is kept.
 */
export type RunHook<Code> = (code: Code, hook: HookName, state: InvocationState) => Promise<InvocationResult>;

/** What the caller stores when an operation ends: these hooks' logs and events, and this state. */
export interface LifecycleCommit {
  readonly results: readonly InvocationResult[];
  readonly state: InvocationState;
}

/** The hook that failed an operation, and the HOOK_FAILED error that reports it. */
export interface HookFailure {
  readonly hook: HookName;
  readonly result: InvocationResult;
  readonly error: AppError;
}

/** The operation happened: store `commit`. */
export interface Applied {
  readonly kind: 'applied';
  /** Every hook that ran, in order (for live output; what is stored is `commit`). */
  readonly ran: readonly InvocationResult[];
  readonly commit: LifecycleCommit;
}

/** A hook failed and nothing changes: store nothing, the previous code, props and state stay. */
export interface Refused {
  readonly kind: 'refused';
  readonly ran: readonly InvocationResult[];
  readonly failure: HookFailure;
}

/**
 * The new code's `activate` failed during an update: the previous code and props stay, its
 * `activate` ran again, and `commit` holds what the rollback left (so a webhook it registered again
 * is the one `db` remembers).
 */
export interface RolledBack {
  readonly kind: 'rolled-back';
  readonly ran: readonly InvocationResult[];
  readonly failure: HookFailure;
  readonly commit: LifecycleCommit;
  /** False when the previous code's `activate` failed too: the source is live but may not be registered. */
  readonly reactivated: boolean;
}

export type DeployOutcome = Applied | Refused;
export type UpdateOutcome = Applied | Refused | RolledBack;
export type LifecycleOutcome = UpdateOutcome;

/** The `default:` of a switch over an outcome's kind: a compile error when a kind is left out. */
export function unexpectedOutcome(outcome: never): never {
  throw new Error(`unexpected lifecycle outcome ${JSON.stringify(outcome)}`);
}
