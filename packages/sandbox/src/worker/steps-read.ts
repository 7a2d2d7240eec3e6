/**
 * The parts of `steps` a workflow's expressions can read. Expressions see `steps` as a copy made
 * through JSON (expression-scopes.ts), and a trigger event alone is often kilobytes (an HTTP
 * event holds its body three times: parsed, `bodyRaw`, `rawBody`) while an expression reads one
 * field: copying only what the expressions name took most of the copying away. The reading is
 * found by scanning the expressions' text, conservatively: unless every use of `steps` is a plain
 * member chain (`steps.trigger.event.body`, `?.` allowed), the whole of `steps` is copied.
 */
import { isFields } from '../protocol/is-fields.js';

/** A member chain read from `steps`, its keys in order. */
export type StepsPath = readonly string[];

const MEMBER = /\s*(?:\?\.|\.)\s*([A-Za-z_$][\w$]*)/y;
const IDENTIFIER_CHAR = /[\w$]/;
/**
 * Ways to reach the `steps` binding other than its name: `arguments[0]`, a direct `eval`, a name
 * written with a unicode escape (`st\u0065ps`). An expression using one reads the whole of `steps`.
 */
const OTHER_WAYS_IN = /\\|\barguments\b|\beval\b/;

/**
 * The member chains one expression reads from `steps`, or null when it may read `steps` some
 * other way (passed whole, spread, destructured, indexed with `[ ]`, named in a string): then it
 * needs all of it. An expression that does not name `steps` reads nothing.
 */
export function stepsPathsOf(source: string): StepsPath[] | null {
  if (OTHER_WAYS_IN.test(source)) return null;
  const paths: StepsPath[] = [];
  for (let at = source.indexOf('steps'); at >= 0; at = source.indexOf('steps', at + 5)) {
    const before = at > 0 ? source.charAt(at - 1) : '';
    const after = source.charAt(at + 5);
    // Part of a longer name (`mysteps`, `steps2`): another binding.
    if (IDENTIFIER_CHAR.test(before) || IDENTIFIER_CHAR.test(after)) continue;
    // A property of something else (`x.steps`); a spread (`...steps`) is the binding itself.
    if (before === '.' && source.slice(Math.max(0, at - 3), at) !== '...') continue;
    const path: string[] = [];
    MEMBER.lastIndex = at + 5;
    for (let member = MEMBER.exec(source); member; member = MEMBER.exec(source)) path.push(member[1] ?? '');
    if (path.length === 0) return null;
    paths.push(path);
  }
  return paths;
}

interface Branch {
  readonly kind: 'branch';
  readonly children: Map<string, Tree>;
}
interface Leaf {
  readonly kind: 'leaf';
  readonly value: unknown;
}
type Tree = Branch | Leaf;

/**
 * The part of `steps` that `paths` read: along each path, the value at its deepest key that is an
 * own property of a plain object (an array, a string or a number is kept whole, so its own
 * `length` or a method's name ends the path there). Reading along the same paths from this part
 * and from the whole gives the same values. Null when a path stops at `steps` itself (a name it
 * does not have, a method of `steps`): then the whole is needed.
 */
export function pickSteps(steps: unknown, paths: readonly StepsPath[]): Record<string, unknown> | null {
  const root: Branch = { kind: 'branch', children: new Map() };
  for (const path of paths) {
    let value = steps;
    let depth = 0;
    for (const key of path) {
      if (!isFields(value) || !Object.hasOwn(value, key)) break;
      value = value[key];
      depth += 1;
    }
    if (depth === 0) return null;
    place(root, path.slice(0, depth), value);
  }
  return build(root);
}

function place(root: Branch, path: StepsPath, value: unknown): void {
  let branch = root;
  for (const [index, key] of path.entries()) {
    const found = branch.children.get(key);
    if (index === path.length - 1) {
      // The whole value holds every longer path below it.
      branch.children.set(key, { kind: 'leaf', value });
      return;
    }
    if (found?.kind === 'leaf') return;
    const next: Branch = found ?? { kind: 'branch', children: new Map() };
    branch.children.set(key, next);
    branch = next;
  }
}

function build(branch: Branch): Record<string, unknown> {
  // Object.fromEntries defines own properties: a key `__proto__` stays data, as JSON.parse made it.
  return Object.fromEntries(
    [...branch.children].map(([key, tree]) => [key, tree.kind === 'leaf' ? tree.value : build(tree)]),
  );
}
