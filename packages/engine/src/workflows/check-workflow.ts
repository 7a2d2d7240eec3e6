import { AppError, WorkflowSpec, type WorkflowSpecT } from '@tributary/contracts';
import { findExpressions, parseExpression } from './expressions.js';

/**
 * Checks a workflow before anything is stored: the shape (the contracts schema), unique step
 * names, and every prop expression parses and reads only the trigger and earlier steps. Throws
 * the first problem as an `AppError` whose details name the step and the prop.
 */
export function checkWorkflow(input: unknown): WorkflowSpecT {
  const parsed = WorkflowSpec.safeParse(input);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
    const first = issues[0];
    throw new AppError(
      'VALIDATION_FAILED',
      first ? `${first.path || 'workflow'}: ${first.message}` : 'the workflow is not valid',
      { issues, ...(first ? { field: first.path } : {}) },
    );
  }
  const spec = parsed.data;
  const seen = new Set<string>();
  for (const [index, step] of spec.steps.entries()) {
    if (seen.has(step.name)) {
      throw new AppError('WORKFLOW_DUPLICATE_STEP', `steps[${index}]: a step named "${step.name}" comes before`, {
        step: step.name,
        field: `steps.${index}.name`,
      });
    }
    for (const found of findExpressions(step.props ?? {}, 'props')) {
      const prop = found.path.slice('props.'.length);
      const where = `step "${step.name}", prop "${prop}"`;
      const result = parseExpression(found.source);
      if (!result.ok) {
        throw new AppError(
          'WORKFLOW_EXPRESSION_INVALID',
          `${where}: {{ ${found.source} }} does not parse: ${result.message}`,
          { step: step.name, prop },
        );
      }
      for (const name of result.steps) {
        if (name === 'trigger' || seen.has(name)) continue;
        const later = spec.steps.some((other) => other.name === name);
        throw new AppError(
          'WORKFLOW_STEP_REFERENCE',
          later
            ? `${where}: steps.${name} runs after this step, so its results are not there yet`
            : `${where}: there is no step named "${name}" (steps are ${['trigger', ...seen].join(', ')})`,
          { step: step.name, prop, reference: name },
        );
      }
    }
    seen.add(step.name);
  }
  return spec;
}
