import { AppError, isAppError, type WorkflowStepT } from '@tributary/contracts';
import type { AccountService } from '../accounts/account-service.js';
import type { ComponentService, PendingComponent } from '../components/component-service.js';
import { describedProps } from '../sources/source-service.js';
import { splitExpressions } from './step-expressions.js';
import type { PlanStep } from './workflow-store.js';

/**
 * Code steps call a global `defineComponent` and declare no `type` (Pipedream's workflow editor
 * adds it): this local binding makes the definition an action without changing the author's code.
 * It shares the code's first line, so the line numbers of errors are the author's.
 */
const CODE_STEP_PRELUDE =
  "const defineComponent = (component) => ({ type: 'action', name: 'Code step', version: '0.0.0', ...component }); ";

/** Steps resolved and checked; their code steps' components are stored only by `store()`. */
export interface PlannedSteps {
  readonly plan: readonly PlanStep[];
  /** Stores the code steps' components (each code once) and gives the plan with their ids. */
  store(): Promise<PlanStep[]>;
}

/**
 * Resolves each step to a component: an action by registry key or `sc_` id, or the code of a code
 * step validated as an action (saved, content-addressed, by `store()`). Refusals name the step.
 */
export async function planSteps(
  steps: readonly WorkflowStepT[],
  components: ComponentService,
  accounts: Pick<AccountService, 'check'>,
): Promise<PlannedSteps> {
  const plan: PlanStep[] = [];
  const pending: PendingComponent[] = [];
  for (const [index, step] of steps.entries()) {
    const resolved = await resolve(step, index, components);
    pending.push(resolved);
    const component = resolved.row;
    // App props name connected accounts; one given as an expression is checked when it runs.
    const { fixed } = splitExpressions(step.props ?? {});
    await accounts.check(fixed, describedProps(component)).catch((error: unknown) => {
      throw isAppError(error)
        ? new AppError(error.code, `steps[${index}] "${step.name}": ${error.message}`, {
            ...error.details,
            step: step.name,
          })
        : error;
    });
    const secretProps = describedProps(component)
      .filter((prop) => prop.secret === true)
      .map((prop) => prop.name);
    plan.push({ name: step.name, componentId: component.id, props: step.props ?? {}, secretProps });
  }
  return {
    plan,
    async store() {
      const stored: PlanStep[] = [];
      for (const [index, step] of plan.entries()) {
        const row = await (pending[index] as PendingComponent).store();
        stored.push({ ...step, componentId: row.id });
      }
      return stored;
    },
  };
}

async function resolve(step: WorkflowStepT, index: number, components: ComponentService): Promise<PendingComponent> {
  const where = `steps[${index}] "${step.name}"`;
  if (step.file !== undefined) {
    throw new AppError('VALIDATION_FAILED', `${where}: "file" is read by the CLI; send the step's code as "code"`, {
      field: `steps.${index}.file`,
    });
  }
  if (step.action !== undefined) {
    const found = await components.find(step.action);
    if (!found) {
      throw new AppError(
        'WORKFLOW_COMPONENT_UNKNOWN',
        `${where}: no registry key or saved component "${step.action}"`,
        {
          step: step.name,
          field: `steps.${index}.action`,
        },
      );
    }
    if (found.component_type !== 'action') {
      throw new AppError('WORKFLOW_COMPONENT_UNKNOWN', `${where}: "${step.action}" is a source, not an action`, {
        step: step.name,
        field: `steps.${index}.action`,
      });
    }
    return { row: found, store: () => Promise.resolve(found) };
  }
  try {
    const saved = await components.check({ code: CODE_STEP_PRELUDE + (step.code ?? '') });
    if (saved.row.component_type !== 'action') {
      throw new AppError('WRONG_COMPONENT_TYPE', `${where}: a code step must be an action (use defineComponent)`, {
        step: step.name,
      });
    }
    return saved;
  } catch (error) {
    if (isAppError(error) && !error.message.startsWith(where)) {
      const { message, details } = inStepCode(error.message, error.details);
      throw new AppError(error.code, `${where}: ${message}`, { ...details, step: step.name });
    }
    throw error;
  }
}

/** A position on the first line counts the prelude's columns: they are taken off again. */
function inStepCode(
  message: string,
  details: Record<string, unknown>,
): { message: string; details: Record<string, unknown> } {
  const { file, line, column } = details;
  if (line !== 1 || typeof column !== 'number' || column < CODE_STEP_PRELUDE.length) return { message, details };
  const shifted = column - CODE_STEP_PRELUDE.length;
  return {
    message: typeof file === 'string' ? message.replace(`${file}:1:${column}`, `${file}:1:${shifted}`) : message,
    details: { ...details, column: shifted },
  };
}
