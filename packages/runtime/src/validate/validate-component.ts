import { AppError, errorMessage } from '@tributary/contracts';
import { normalizeProp } from '../props/normalize-prop.js';
import { parsePropType } from '../props/prop-catalogue.js';
import type { AuthorFunction, Component, ComponentType, DedupeStrategy, HookName, PropSpec } from '../types.js';
import { isPlainObject } from '../util/json.js';
import { IssueList, type ValidationIssue, type ValidationPurpose } from './issues.js';
import { checkPropRules } from './prop-rules.js';

export interface ValidationResult {
  /** The normalised component, or null when any rule failed. */
  readonly component: Component | null;
  readonly issues: readonly ValidationIssue[];
}

const HOOK_NAMES: readonly HookName[] = ['deploy', 'activate', 'deactivate'];
const DEDUPE: readonly DedupeStrategy[] = ['unique', 'greatest', 'last'];
const RESERVED_NAMES = ['run', 'hooks', 'methods'];
// semver.org's grammar: MAJOR.MINOR.PATCH with optional pre-release and build metadata.
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

/**
 * Checks a component object against rules C1–C17 (and P1–P13 for each prop) and normalises it.
 * Errors make `component` null; warnings never do. A definition that throws while it is read (a
 * getter, a Proxy trap) is the author's code failing at load: COMPONENT_LOAD_FAILED, not a crash.
 */
export function validateComponent(raw: unknown, purpose: ValidationPurpose = 'run'): ValidationResult {
  try {
    return checkComponent(raw, purpose);
  } catch (error) {
    const message = errorMessage(error);
    throw new AppError(
      'COMPONENT_LOAD_FAILED',
      `reading the component definition threw: ${message}`,
      {},
      { cause: error },
    );
  }
}

function checkComponent(raw: unknown, purpose: ValidationPurpose): ValidationResult {
  const issues = new IssueList();
  if (!isPlainObject(raw)) {
    const got =
      raw === null
        ? 'null'
        : Array.isArray(raw)
          ? 'an array'
          : raw === undefined
            ? 'nothing (no default export)'
            : typeof raw;
    issues.error(
      'C1',
      `the module must export a component object (export default {...} or module.exports = {...}); it exports ${got}`,
    );
    return { component: null, issues: issues.items };
  }
  const type = checkType(raw, issues);
  if (typeof raw['run'] !== 'function') {
    issues.error('C3', raw['run'] === undefined ? 'the component has no run() method' : '"run" must be a function', {
      field: 'run',
    });
  }
  checkMetadata(raw, purpose, issues);
  const methods = checkMethods(raw, issues);
  const hooks = checkHooks(raw, type, issues);
  const dedupe = checkDedupe(raw, type, issues);
  const props = checkProps(raw, type, methods, issues);
  if (raw['additionalProps'] !== undefined && typeof raw['additionalProps'] !== 'function') {
    issues.error('C17', '"additionalProps" must be an async function', { field: 'additionalProps' });
  }
  if (issues.hasErrors || type === null) return { component: null, issues: issues.items };
  const component: Component = {
    type,
    ...optionalString(raw, 'key'),
    ...optionalString(raw, 'name'),
    ...optionalString(raw, 'version'),
    ...optionalString(raw, 'description'),
    ...(dedupe ? { dedupe } : {}),
    props,
    methods,
    hooks,
    run: raw['run'] as AuthorFunction,
    ...(typeof raw['additionalProps'] === 'function'
      ? { additionalProps: raw['additionalProps'] as AuthorFunction }
      : {}),
    raw,
  };
  return { component, issues: issues.items };
}

function checkType(raw: Record<string, unknown>, issues: IssueList): ComponentType | null {
  const type = raw['type'];
  if (type === undefined) return 'source';
  if (type === 'source' || type === 'action') return type;
  const hint = type === 'app' ? ' (this file defines an app; import it from a source or action)' : '';
  issues.error('C2', `"type" must be "source" or "action", got ${JSON.stringify(type)}${hint}`, { field: 'type' });
  return null;
}

function checkMetadata(raw: Record<string, unknown>, purpose: ValidationPurpose, issues: IssueList): void {
  const name = raw['name'];
  if (typeof name !== 'string' || name.trim() === '') {
    const message = '"name" is missing or empty';
    if (purpose === 'run') issues.warn('C4', message, { field: 'name' });
    else issues.error('C4', message, { field: 'name' });
  }
  const version = raw['version'];
  if (version === undefined) {
    if (purpose === 'publish') issues.error('C5', '"version" is required to publish', { field: 'version' });
    else issues.warn('C5', '"version" is missing; it is required to publish', { field: 'version' });
  } else if (typeof version !== 'string' || !SEMVER.test(version)) {
    // Contract C6: semver is required only to publish to the registry, which is what Tributary's
    // publish is (PUT /v1/components/{key}, "semver required"); anywhere else it is a warning.
    const message = `"version" ${JSON.stringify(version)} is not semantic versioning (MAJOR.MINOR.PATCH)`;
    if (purpose === 'publish') issues.error('C6', message, { field: 'version' });
    else issues.warn('C6', `${message}; publishing to the registry requires it`, { field: 'version' });
  }
}

function checkMethods(raw: Record<string, unknown>, issues: IssueList): Record<string, AuthorFunction> {
  const declared = raw['methods'];
  const methods: Record<string, AuthorFunction> = {};
  if (declared === undefined) return methods;
  if (!isPlainObject(declared)) {
    issues.error('C12', '"methods" must be an object of functions', { field: 'methods' });
    return methods;
  }
  for (const [name, value] of Object.entries(declared)) {
    if (typeof value !== 'function') {
      issues.error('C12', `method "${name}" must be a function, got ${typeof value}`, { field: `methods.${name}` });
      continue;
    }
    // A name every object has (`constructor`, `__proto__`, `toString`) would replace or reach
    // Object.prototype's on `this`, so it is reserved too.
    if (name.startsWith('$') || RESERVED_NAMES.includes(name) || name in Object.prototype) {
      issues.error('C13', `method name "${name}" is reserved`, { field: `methods.${name}` });
      continue;
    }
    methods[name] = value as AuthorFunction;
  }
  return methods;
}

function checkHooks(
  raw: Record<string, unknown>,
  type: ComponentType | null,
  issues: IssueList,
): Partial<Record<HookName, AuthorFunction>> {
  const declared = raw['hooks'];
  const hooks: Partial<Record<HookName, AuthorFunction>> = {};
  if (declared === undefined) return hooks;
  if (type === 'action') {
    issues.error('C9', 'actions cannot have hooks; hooks are for sources only', { field: 'hooks' });
    return hooks;
  }
  if (!isPlainObject(declared)) {
    issues.error('C11', '"hooks" must be an object', { field: 'hooks' });
    return hooks;
  }
  for (const [name, value] of Object.entries(declared)) {
    if (!(HOOK_NAMES as readonly string[]).includes(name)) {
      issues.error(
        'C11',
        `unknown hook "${name}"; hooks are ${HOOK_NAMES.join(', ')} (there is no update or delete hook)`,
        {
          field: `hooks.${name}`,
        },
      );
    } else if (typeof value !== 'function') {
      issues.error('C11', `hook "${name}" must be a function`, { field: `hooks.${name}` });
    } else {
      hooks[name as HookName] = value as AuthorFunction;
    }
  }
  return hooks;
}

function checkDedupe(
  raw: Record<string, unknown>,
  type: ComponentType | null,
  issues: IssueList,
): DedupeStrategy | undefined {
  const dedupe = raw['dedupe'];
  if (dedupe === undefined) return undefined;
  if (type === 'action') {
    issues.error('C10', '"dedupe" is for sources only, not actions', { field: 'dedupe' });
    return undefined;
  }
  if (typeof dedupe !== 'string' || !(DEDUPE as readonly string[]).includes(dedupe)) {
    issues.error('C10', `"dedupe" must be one of ${DEDUPE.join(', ')}, got ${JSON.stringify(dedupe)}`, {
      field: 'dedupe',
    });
    return undefined;
  }
  return dedupe as DedupeStrategy;
}

function checkProps(
  raw: Record<string, unknown>,
  type: ComponentType | null,
  methods: Record<string, AuthorFunction>,
  issues: IssueList,
): PropSpec[] {
  const declared = raw['props'];
  if (declared === undefined) return [];
  if (!isPlainObject(declared)) {
    issues.error('C17', '"props" must be an object', { field: 'props' });
    return [];
  }
  const specs: PropSpec[] = [];
  const counts = { http: 0, timer: 0 };
  for (const [name, value] of Object.entries(declared)) {
    if (name.startsWith('$') || RESERVED_NAMES.includes(name)) {
      issues.error('C13', `prop name "${name}" is reserved`, { prop: name });
    } else if (Object.hasOwn(methods, name)) {
      issues.error('C13', `prop "${name}" has the same name as a method`, { prop: name });
    }
    const spec = normalizeProp(name, value, issues);
    if (!spec) continue;
    if (type)
      checkPropRules(
        spec,
        { componentType: type, hasAdditionalProps: typeof raw['additionalProps'] === 'function' },
        issues,
      );
    const base = parsePropType(spec.type).base;
    if (base === '$.interface.http') counts.http += 1;
    if (base === '$.interface.timer') counts.timer += 1;
    specs.push(spec);
  }
  if (counts.http > 1)
    issues.error('C16', 'a source may declare at most one $.interface.http prop', { field: 'props' });
  if (counts.timer > 1)
    issues.error('C16', 'a source may declare at most one $.interface.timer prop', { field: 'props' });
  return specs;
}

function optionalString(raw: Record<string, unknown>, field: string): Record<string, string> {
  const value = raw[field];
  return typeof value === 'string' ? { [field]: value } : {};
}
