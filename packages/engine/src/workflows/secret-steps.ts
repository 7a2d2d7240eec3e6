import type { WorkflowSpecT } from '@tributary/contracts';
import { sealedAt } from '../secrets/sealed-places.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { REDACTED, sealProps } from '../sources/configured-props.js';
import type { PlanStep } from './workflow-store.js';

/**
 * Seals each step's secret props. A secret sent back as "[REDACTED]" (a workflow read from the API
 * and saved again) keeps the previous version's value for the step of the same name (values are
 * bound to the workflow, step and prop, not to one version).
 */
export function sealSteps(
  workflowId: string,
  steps: readonly PlanStep[],
  previous: readonly PlanStep[],
  box: SecretBox,
): PlanStep[] {
  return steps.map((step) => {
    const before = previous.find((candidate) => candidate.name === step.name)?.props ?? {};
    const kept = Object.fromEntries(
      Object.entries(step.props).map(([name, value]) => [
        name,
        value === REDACTED && step.secretProps.includes(name) && name in before ? before[name] : value,
      ]),
    );
    // Values kept from before are sealed already (objects), and sealProps seals strings only.
    const props = sealProps(
      kept,
      step.secretProps.map((name) => ({ name, type: 'string', secret: true })),
      box,
      (prop) => sealedAt.workflowStepProp(workflowId, step.name, prop),
    );
    return { ...step, props };
  });
}

/** The spec as the API shows it: secret prop values redacted. */
export function redactSpec(spec: WorkflowSpecT, steps: readonly PlanStep[]): WorkflowSpecT {
  return {
    ...spec,
    steps: spec.steps.map((step, index) => {
      const secret = steps[index]?.secretProps ?? [];
      if (!step.props || secret.length === 0) return step;
      const props = Object.fromEntries(
        Object.entries(step.props).map(([name, value]) => [name, secret.includes(name) ? REDACTED : value]),
      );
      return { ...step, props };
    }),
  };
}
