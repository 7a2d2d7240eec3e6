import type { InvocationResult, InvocationState } from '../invoke/invoke-component.js';
import { hookFailure } from './hook-failure.js';
import type { RunHook, UpdateOutcome } from './lifecycle-types.js';

export interface UpdateSourceOptions<Code> {
  /** The code and props running now. */
  readonly current: Code;
  /** The code and props to run from now on (the same as `current` to only activate or deactivate). */
  readonly next: Code;
  readonly wasActive: boolean;
  readonly wantsActive: boolean;
  /** The stored state (db and dedupe) of the source. */
  readonly state: InvocationState;
  readonly runHook: RunHook<Code>;
}

/**
 * Update, deactivate and activate (contract §5.3): `deactivate` of the current code when it was
 * active, then `activate` of the next code when it should be. An inactive source runs no hook
 * unless it is being activated.
 *
 * - `deactivate` fails: refused, nothing changes (the source stays active with its code).
 * - the next `activate` fails on an active source: rolled back, the current code's `activate` runs
 *   again from the state `deactivate` left, and what it leaves is stored, because it may have
 *   registered a new webhook whose id only that state holds.
 * - the next `activate` fails on an inactive source: refused, it stays inactive.
 */
export async function updateSource<Code>(options: UpdateSourceOptions<Code>): Promise<UpdateOutcome> {
  const { current, next, runHook } = options;
  const ran: InvocationResult[] = [];
  let state = options.state;
  if (options.wasActive) {
    const deactivate = await runHook(current, 'deactivate', state);
    ran.push(deactivate);
    if (!deactivate.ok) return { kind: 'refused', ran, failure: hookFailure('deactivate', deactivate) };
    state = deactivate.state;
  }
  if (!options.wantsActive) return { kind: 'applied', ran, commit: { results: [...ran], state } };
  const activate = await runHook(next, 'activate', state);
  ran.push(activate);
  if (activate.ok) return { kind: 'applied', ran, commit: { results: [...ran], state: activate.state } };
  const failure = hookFailure('activate', activate);
  if (!options.wasActive) return { kind: 'refused', ran, failure };
  const reactivate = await runHook(current, 'activate', state).catch(() => null);
  if (reactivate) ran.push(reactivate);
  // The failed activate's log is kept; its events are not, as they were deduped against a state
  // that the rollback throws away.
  const results = ran.map((result) => (result === activate ? { ...result, emits: [] } : result));
  return {
    kind: 'rolled-back',
    ran,
    failure,
    reactivated: reactivate?.ok === true,
    commit: { results, state: reactivate?.ok ? reactivate.state : state },
  };
}
