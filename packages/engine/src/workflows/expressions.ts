/**
 * Prop expressions (`{{ steps.trigger.event.body.email }}`), read without running them: the server
 * only parses an expression (acorn builds a syntax tree and executes nothing) to report syntax
 * errors and the steps it refers to at save time. Evaluation happens in the sandbox.
 */
import { errorMessage } from '@tributary/contracts';
import { ANY_EXPRESSION } from '@tributary/sandbox';
import { parseExpressionAt, type Node } from 'acorn';

/** One `{{ ... }}` found in a prop value, with where it is in the value (`path`, for messages). */
export interface FoundExpression {
  readonly path: string;
  readonly source: string;
}

/** Every expression in a prop value (strings anywhere inside arrays and objects). */
export function findExpressions(value: unknown, path: string): FoundExpression[] {
  if (typeof value === 'string') {
    return [...value.matchAll(ANY_EXPRESSION)].map((match) => ({ path, source: (match[1] ?? '').trim() }));
  }
  if (Array.isArray(value)) return value.flatMap((item, index) => findExpressions(item, `${path}[${index}]`));
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([key, item]) => findExpressions(item, `${path}.${key}`));
  return [];
}

export type ParsedExpression =
  { readonly ok: true; readonly steps: readonly string[] } | { readonly ok: false; readonly message: string };

/**
 * Parses one expression: it must be a single JavaScript expression. Returns the step names it
 * reads as `steps.<name>` or `steps["<name>"]`; a computed `steps[x]` cannot be checked before
 * it runs and is left to the run.
 */
export function parseExpression(source: string): ParsedExpression {
  if (source === '') return { ok: false, message: 'the expression is empty' };
  let tree: Node;
  try {
    // preserveParens: the node of "(a = b)" then ends after its ")", so trailing text is seen exactly.
    tree = parseExpressionAt(source, 0, { ecmaVersion: 'latest', sourceType: 'module', preserveParens: true });
  } catch (error) {
    return { ok: false, message: errorMessage(error) };
  }
  if (source.slice(tree.end).trim() !== '') {
    return { ok: false, message: `unexpected "${source.slice(tree.end).trim()}" after the expression` };
  }
  const steps = new Set<string>();
  visit(tree, (node) => {
    if (node.type !== 'MemberExpression') return;
    const member = node as unknown as {
      object: { type: string; name?: string };
      property: { type: string; name?: string; value?: unknown };
      computed: boolean;
    };
    if (member.object.type !== 'Identifier' || member.object.name !== 'steps') return;
    if (!member.computed && member.property.type === 'Identifier' && member.property.name)
      steps.add(member.property.name);
    if (member.computed && member.property.type === 'Literal' && typeof member.property.value === 'string')
      steps.add(member.property.value);
  });
  return { ok: true, steps: [...steps] };
}

function visit(node: unknown, onNode: (node: Node) => void): void {
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const item of node) visit(item, onNode);
    return;
  }
  const record = node as Record<string, unknown>;
  if (typeof record['type'] === 'string') onNode(node as Node);
  for (const [key, child] of Object.entries(record)) if (key !== 'loc') visit(child, onNode);
}
