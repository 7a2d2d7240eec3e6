import { isSendKind, type SendRecord } from '@tributary/runtime';
import { parse, type Node } from 'acorn';

/**
 * The `$.send.<kind>({...})` calls written in a code step whose destinations are literal, for the
 * save-time check: a URL, bucket or channel given as a plain string is known before the step ever
 * runs, so a bad one is refused when the workflow is saved. Values computed at run time are left
 * out (they are checked when the step sends). Code that does not parse here gives nothing: the
 * component check reports it.
 */
export function literalSends(code: string): SendRecord[] {
  let program: Node;
  try {
    program = parse(code, { ecmaVersion: 'latest', sourceType: 'module', allowHashBang: true });
  } catch {
    return [];
  }
  const sends: SendRecord[] = [];
  visit(program, (node) => {
    if (node.type !== 'CallExpression') return;
    const call = node as unknown as { callee: AnyNode; arguments: AnyNode[] };
    const kind = sendKind(call.callee);
    if (!kind) return;
    const argument = call.arguments[0];
    const config: Record<string, unknown> = {};
    if (argument?.type === 'ObjectExpression') {
      for (const property of (argument['properties'] as AnyNode[] | undefined) ?? []) {
        if (property.type !== 'Property' || property['computed']) continue;
        const key = keyName(property['key'] as AnyNode);
        const value = literal(property['value'] as AnyNode);
        if (key !== null && value !== undefined) config[key] = value;
      }
    }
    if (checkable(kind, config)) sends.push({ kind, config });
  });
  return sends;
}

/** Whether what the check reads of this kind is known: the URL, bucket or channel (email: none). */
function checkable(kind: SendRecord['kind'], config: Record<string, unknown>): boolean {
  switch (kind) {
    case 'http':
      return 'url' in config;
    case 's3':
      return 'bucket' in config;
    case 'sse':
      return 'channel' in config;
    case 'email':
      return true;
    case 'emit':
      return false;
    default:
      return kind satisfies never;
  }
}

type AnyNode = Node & Record<string, unknown>;

function visit(node: unknown, found: (node: AnyNode) => void): void {
  if (Array.isArray(node)) {
    for (const item of node) visit(item, found);
    return;
  }
  if (!node || typeof node !== 'object' || typeof (node as { type?: unknown }).type !== 'string') return;
  found(node as AnyNode);
  for (const value of Object.values(node)) if (value && typeof value === 'object') visit(value, found);
}

/** `$.send.http` → 'http' (also `$.send['http']`). */
function sendKind(callee: AnyNode): SendRecord['kind'] | null {
  if (callee.type !== 'MemberExpression') return null;
  const send = callee['object'] as AnyNode;
  if (send.type !== 'MemberExpression') return null;
  const dollar = send['object'] as AnyNode;
  if (dollar.type !== 'Identifier' || dollar['name'] !== '$') return null;
  if (keyName(send['property'] as AnyNode) !== 'send') return null;
  const kind = keyName(callee['property'] as AnyNode);
  return kind !== null && isSendKind(kind) ? kind : null;
}

function keyName(node: AnyNode): string | null {
  if (node.type === 'Identifier') return node['name'] as string;
  if (node.type === 'Literal' && typeof node['value'] === 'string') return node['value'];
  return null;
}

/** A string literal or a template with no `${}`; anything else is not known before the run. */
function literal(node: AnyNode): string | undefined {
  if (node.type === 'Literal' && typeof node['value'] === 'string') return node['value'];
  if (node.type === 'TemplateLiteral' && (node['expressions'] as unknown[]).length === 0) {
    const [quasi] = node['quasis'] as { value: { cooked: string | null } }[];
    return quasi?.value.cooked ?? undefined;
  }
  return undefined;
}
