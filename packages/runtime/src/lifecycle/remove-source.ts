import type { InvocationState } from '../invoke/invoke-component.js';
import { hookFailure } from './hook-failure.js';
import type { DeployOutcome, RunHook } from './lifecycle-types.js';

export interface RemoveSourceOptions<Code> {
  readonly code: Code;
  readonly wasActive: boolean;
  readonly state: InvocationState;
  /** Remove even when `deactivate` fails, for a source whose `deactivate` can no longer succeed. */
  readonly force: boolean;
  readonly runHook: RunHook<Code>;
}

/**
 * Delete (contract §5.3): `deactivate` when the source is active (an inactive one already ran it),
 * then the caller removes the source. A failing `deactivate` refuses the delete unless forced.
 * The applied commit is empty: what a removed source leaves is removed with it.
 */
export async function removeSource<Code>(options: RemoveSourceOptions<Code>): Promise<DeployOutcome> {
  if (!options.wasActive) return { kind: 'applied', ran: [], commit: { results: [], state: options.state } };
  const deactivate = await options.runHook(options.code, 'deactivate', options.state);
  if (deactivate.ok || options.force)
    return { kind: 'applied', ran: [deactivate], commit: { results: [], state: deactivate.state } };
  return { kind: 'refused', ran: [deactivate], failure: hookFailure('deactivate', deactivate) };
}
