import { isAppError } from '@tributary/contracts';
import { propProblemsOf, type PropProblem } from '@tributary/runtime';
import type { ComponentHandle, PropsInfo } from '@tributary/sandbox';

type Accounts = Readonly<Record<string, Readonly<Record<string, unknown>>>>;
type AppAuthModes = Readonly<Record<string, 'none' | 'unknown'>>;

/** Values tried, in order, for a required prop the form has not filled yet, by prop type. */
const STAND_INS: Record<string, readonly unknown[]> = {
  string: ['', 'placeholder'],
  integer: [1, 0],
  boolean: [false],
  'string[]': [[]],
  'integer[]': [[]],
  object: [{}],
  any: [''],
};

/** Enough for every prop of any real component; stops a loop on a component that keeps adding props. */
const MAX_ATTEMPTS = 64;

/**
 * The props of a component once `additionalProps()` ran, for a form that is still being filled in
 * (POST /v1/components/props). The worker's `props` call wants every required value, which a form
 * half-way through never has — and the props `additionalProps()` adds are required more often than
 * not — so each missing one gets a stand-in of its type (and a missing app prop an empty account)
 * until the call goes through. Stand-ins only fill props the caller left unset, so the values
 * `additionalProps()` depends on (those with `reloadProps`) are the caller's own.
 */
export async function propsForForm(input: {
  readonly handle: ComponentHandle;
  readonly configured: Readonly<Record<string, unknown>>;
  readonly accounts: Accounts;
  readonly appAuth?: AppAuthModes;
  readonly timeoutMs: number;
}): Promise<PropsInfo> {
  const configured: Record<string, unknown> = { ...input.configured };
  const accounts: Record<string, Readonly<Record<string, unknown>>> = { ...input.accounts };
  const tried = new Map<string, number>();
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await input.handle.configure(configured, accounts, input.timeoutMs, input.appAuth);
    } catch (error) {
      if (attempt >= MAX_ATTEMPTS || !isAppError(error)) throw error;
      // Every prop that failed is listed; the caller's own values are never replaced.
      const problems = propProblemsOf(error);
      if (problems.length === 0 || problems.some((problem) => problem.prop in input.configured)) throw error;
      for (const problem of problems) if (!standIn(problem, configured, accounts, tried)) throw error;
    }
  }
}

function standIn(
  problem: PropProblem,
  configured: Record<string, unknown>,
  accounts: Record<string, Readonly<Record<string, unknown>>>,
  tried: Map<string, number>,
): boolean {
  const { prop, code, message } = problem;
  if (code === 'PROP_REQUIRED' && message.startsWith(`app prop "${prop}"`)) {
    if (prop in accounts) return false;
    accounts[prop] = {};
    return true;
  }
  if (code !== 'PROP_REQUIRED' && code !== 'PROP_INVALID') return false;
  // The runtime names the type in its message: `prop "depth" is required (integer)`.
  const type =
    code === 'PROP_REQUIRED'
      ? /\(([^)]+)\)$/.exec(message)?.[1]
      : typeof configured[prop] === 'string'
        ? 'string'
        : typeOfTried(configured[prop]);
  const candidates = type ? STAND_INS[type] : undefined;
  const next = tried.get(prop) ?? 0;
  if (!candidates || next >= candidates.length) return false;
  configured[prop] = candidates[next];
  tried.set(prop, next + 1);
  return true;
}

function typeOfTried(value: unknown): string | undefined {
  if (typeof value === 'number') return 'integer';
  if (typeof value === 'boolean') return 'boolean';
  return undefined;
}
