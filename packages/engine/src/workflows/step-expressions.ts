/**
 * Which of a step's props hold `{{ }}` expressions, and the props once the worker evaluated them.
 * Expressions are evaluated in the sandbox, in the worker that runs the step (decision 0019).
 */

/** Whether a prop value holds a `{{ }}` expression anywhere inside it. */
function holdsExpression(value: unknown): boolean {
  return JSON.stringify(value ?? null).includes('{{');
}

/** The props split into those with expressions (evaluated in the worker; null when none) and the rest. */
export function splitExpressions(props: Readonly<Record<string, unknown>>): {
  readonly fixed: Record<string, unknown>;
  readonly expressions: Record<string, unknown> | null;
} {
  const fixed: Record<string, unknown> = {};
  const expressions: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(props)) {
    if (holdsExpression(value)) expressions[name] = value;
    else fixed[name] = value;
  }
  return { fixed, expressions: Object.keys(expressions).length > 0 ? expressions : null };
}

/**
 * The props with each expression prop replaced by its value, in their order. A prop whose value is
 * not JSON (undefined) is left out, as it would be after a trip through JSON.
 */
export function withEvaluated(
  props: Readonly<Record<string, unknown>>,
  expressions: Readonly<Record<string, unknown>>,
  evaluated: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const merged: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(props)) {
    if (!(name in expressions)) merged[name] = value;
    else if (name in evaluated) merged[name] = evaluated[name];
  }
  return merged;
}
