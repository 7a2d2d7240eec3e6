import type { AppAuthModes, Accounts } from '@tributary/runtime';
import type { AppPropDescription } from '../accounts/account-service.js';
import { authProvisionIdOf } from '../accounts/auth-provision.js';
import { splitExpressions } from './step-expressions.js';
import type { PlanStep } from './workflow-store.js';

/**
 * What every call of one step of one saved version shares, worked out at its first call: the props
 * split into fixed values and `{{ }}` expressions, whether an app prop is an expression (its
 * account is known only after they are evaluated), whether a fixed prop names a connected account,
 * and the component's app props. A version never changes, so neither does this; per run only the
 * `steps` differ. Steps with secret props are not kept: their opened values stay out of memory
 * between calls (StepCalls.get returns null for them).
 */
export interface StepCall {
  readonly props: Readonly<Record<string, unknown>>;
  readonly fixed: Readonly<Record<string, unknown>>;
  readonly expressions: Readonly<Record<string, unknown>> | null;
  /** An app prop holds an expression: its expressions are evaluated in a request of their own first. */
  readonly appExpression: boolean;
  /** A fixed prop names a connected account (`{ authProvisionId }`): credentials are opened per call. */
  readonly accounts: boolean;
  readonly appProps: readonly AppPropDescription[];
}

/** The calls of one step, from its opened props and what its component described of its props. */
export function stepCall(props: Readonly<Record<string, unknown>>, described: readonly AppPropDescription[]): StepCall {
  const appProps = described.filter((prop) => prop.type === 'app');
  const { fixed, expressions } = splitExpressions(props);
  return {
    props,
    fixed,
    expressions,
    appExpression: expressions !== null && appProps.some((prop) => Object.hasOwn(expressions, prop.name)),
    accounts: namesAccount(fixed),
    appProps,
  };
}

/** Whether a prop value names a connected account (`{ authProvisionId }`). */
export function namesAccount(props: Readonly<Record<string, unknown>>): boolean {
  return Object.values(props).some((value) => authProvisionIdOf(value) !== null);
}

/** No accounts and no app auth modes: what a step without app props sends. */
export const NO_ACCOUNTS: Accounts = Object.freeze({});
export const NO_APP_AUTH: AppAuthModes = Object.freeze({});

/**
 * The StepCall of each step without secret props, by its plan (a version's plan objects live as
 * long as the version is cached, and a new version is new objects).
 */
export class StepCalls {
  private readonly byStep = new WeakMap<PlanStep, StepCall>();

  get(step: PlanStep): StepCall | undefined {
    return this.byStep.get(step);
  }

  keep(step: PlanStep, call: StepCall): void {
    if (step.secretProps.length === 0) this.byStep.set(step, call);
  }
}
