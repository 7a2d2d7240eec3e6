import type { InvocationResult, InvocationState } from '../invoke/invoke-component.js';
import { hookFailure } from './hook-failure.js';
import type { DeployOutcome, RunHook } from './lifecycle-types.js';

export interface DeploySourceOptions<Code> {
  readonly code: Code;
  /** The state the new source starts from (empty on the server; a fresh local state directory). */
  readonly state: InvocationState;
  readonly runHook: RunHook<Code>;
}

/**
 * Deploy (contract §5.3): `deploy`, then `activate` from the state `deploy` left. If either fails,
 * `deactivate` runs so the source can undo what it registered, its failure is ignored, and no
 * source exists afterwards: the outcome is refused and nothing is stored.
 */
export async function deploySource<Code>(options: DeploySourceOptions<Code>): Promise<DeployOutcome> {
  const { code, runHook } = options;
  const deploy = await runHook(code, 'deploy', options.state);
  const activate = deploy.ok ? await runHook(code, 'activate', deploy.state) : null;
  if (deploy.ok && activate?.ok) {
    return { kind: 'applied', ran: [deploy, activate], commit: { results: [deploy, activate], state: activate.state } };
  }
  const failed = activate ?? deploy;
  const cleanup = await runHook(code, 'deactivate', failed.state).catch(() => null);
  const ran: InvocationResult[] = [deploy, ...(activate ? [activate] : []), ...(cleanup ? [cleanup] : [])];
  return { kind: 'refused', ran, failure: hookFailure(activate ? 'activate' : 'deploy', failed) };
}
