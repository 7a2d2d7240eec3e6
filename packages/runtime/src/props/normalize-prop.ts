import type { AppDefinition, AuthorFunction, PropSpec } from '../types.js';
import { isPlainObject } from '../util/json.js';
import type { IssueList } from '../validate/issues.js';

const MAX_PROP_DEFINITION_DEPTH = 5;

/** Normalises an app object (`type: "app"`); reports P12 when it has no string `app` slug. */
export function normalizeApp(raw: Record<string, unknown>, issues: IssueList, prop?: string): AppDefinition {
  if (typeof raw['app'] !== 'string' || raw['app'] === '') {
    issues.error('P12', `app prop${prop ? ` "${prop}"` : ''} needs a string "app" slug`, prop ? { prop } : {});
  }
  const propDefinitions = isPlainObject(raw['propDefinitions']) ? raw['propDefinitions'] : {};
  const methods: Record<string, AuthorFunction> = {};
  if (raw['methods'] !== undefined && !isPlainObject(raw['methods'])) {
    issues.error('C12', `app "${String(raw['app'])}": methods must be an object of functions`, prop ? { prop } : {});
  }
  for (const [name, value] of Object.entries(isPlainObject(raw['methods']) ? raw['methods'] : {})) {
    if (typeof value === 'function') methods[name] = value as AuthorFunction;
    else issues.error('C12', `app "${String(raw['app'])}": method "${name}" must be a function`, prop ? { prop } : {});
  }
  return { type: 'app', app: String(raw['app'] ?? ''), propDefinitions, methods, raw };
}

export function isAppObject(value: unknown): value is Record<string, unknown> {
  return isPlainObject(value) && value['type'] === 'app';
}

/**
 * Expands one prop declaration into a PropSpec: shorthand strings, app objects and
 * `propDefinition` references (resolved recursively, component-level fields winning).
 * Returns null when the declaration is unusable; the reason is in `issues`.
 */
export function normalizeProp(name: string, declared: unknown, issues: IssueList): PropSpec | null {
  if (typeof declared === 'string') return { name, type: declared, raw: { type: declared } };
  if (!isPlainObject(declared)) {
    issues.error('P1', `prop "${name}" must be an object or a type string`, { prop: name });
    return null;
  }
  if (declared['type'] === 'app') {
    return { name, type: 'app', appDefinition: normalizeApp(declared, issues, name), raw: declared };
  }
  let merged: Record<string, unknown> = declared;
  let fromApp: AppDefinition | undefined;
  let inputValues: AuthorFunction | undefined;
  for (let depth = 0; merged['propDefinition'] !== undefined; depth += 1) {
    if (depth >= MAX_PROP_DEFINITION_DEPTH) {
      issues.error('P10', `prop "${name}": propDefinition nests deeper than ${MAX_PROP_DEFINITION_DEPTH}`, {
        prop: name,
      });
      return null;
    }
    const resolved = resolvePropDefinition(name, merged, issues);
    if (!resolved) return null;
    fromApp = resolved.app;
    inputValues ??= resolved.inputValues;
    merged = resolved.merged;
  }
  const type = merged['type'];
  if (typeof type !== 'string' || type === '') {
    issues.error('P1', `prop "${name}" needs a "type" (or a "propDefinition")`, { prop: name });
    return null;
  }
  return {
    ...pickKnown(merged),
    name,
    type,
    ...(fromApp ? { fromApp } : {}),
    ...(inputValues ? { inputValues } : {}),
    raw: merged,
  };
}

function resolvePropDefinition(
  name: string,
  declared: Record<string, unknown>,
  issues: IssueList,
): { merged: Record<string, unknown>; app: AppDefinition; inputValues?: AuthorFunction } | null {
  const reference = declared['propDefinition'];
  const fail = (message: string): null => {
    issues.error('P10', `prop "${name}": ${message}`, { prop: name });
    return null;
  };
  if (!Array.isArray(reference) || reference.length < 2 || reference.length > 3) {
    return fail('propDefinition must be [app, "definitionName"] or [app, "definitionName", inputValuesFn]');
  }
  const [appObject, definitionName, inputValues] = reference as [unknown, unknown, unknown];
  if (!isAppObject(appObject)) return fail('propDefinition[0] must be an app object (type: "app")');
  if (typeof definitionName !== 'string') return fail('propDefinition[1] must be the name of a propDefinition');
  const definitions = isPlainObject(appObject['propDefinitions']) ? appObject['propDefinitions'] : {};
  const definition = definitions[definitionName];
  if (!isPlainObject(definition)) {
    const known = Object.keys(definitions);
    return fail(
      `app "${String(appObject['app'])}" has no propDefinition "${definitionName}"` +
        (known.length > 0 ? ` (it has: ${known.join(', ')})` : ''),
    );
  }
  if (inputValues !== undefined && typeof inputValues !== 'function') {
    return fail('propDefinition[2] must be a function of the configured props');
  }
  const { propDefinition: _reference, ...overrides } = declared;
  void _reference;
  const app = normalizeApp(appObject, issues);
  return {
    merged: { ...definition, ...overrides },
    app,
    ...(typeof inputValues === 'function' ? { inputValues: inputValues as AuthorFunction } : {}),
  };
}

const KNOWN_FIELDS = [
  'label',
  'description',
  'optional',
  'default',
  'options',
  'useQuery',
  'secret',
  'min',
  'max',
  'disabled',
  'hidden',
  'reloadProps',
  'customResponse',
  'alertType',
  'content',
] as const;

function pickKnown(raw: Record<string, unknown>): Partial<PropSpec> {
  const out: Record<string, unknown> = {};
  for (const field of KNOWN_FIELDS) if (raw[field] !== undefined) out[field] = raw[field];
  return out as Partial<PropSpec>;
}
