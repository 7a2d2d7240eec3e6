import { AppError, isAppError } from '@tributary/contracts';
import { declaredTimerValue, parseTimerValue, type TimerSchedule } from '../interfaces/timer.js';
import type { AppDefinition, PropSpec } from '../types.js';
import { isPlainObject, jsonByteLength } from '../util/json.js';
import { coercePropValue } from './coerce-value.js';
import { propKind } from './prop-catalogue.js';
import { propProblemsError } from './prop-problems.js';

export const MAX_PROP_VALUE_BYTES = 64 * 1024;

/** Credentials of connected accounts, keyed by app slug (or by the app prop's name). */
export type Accounts = Readonly<Record<string, Readonly<Record<string, unknown>>>>;

/**
 * Apps the host lets run without a connected account, by app slug: `none` (the catalog says the app
 * takes no credentials) or `unknown` (the catalog has no entry: run with an empty `$auth` and warn).
 * An app absent here needs credentials.
 */
export type AppAuthModes = Readonly<Record<string, 'none' | 'unknown'>>;

export interface ResolvedApp {
  readonly definition: AppDefinition;
  readonly auth: Readonly<Record<string, unknown>>;
}

/** Configured props turned into what `this` exposes, with the interface and service props picked out. */
export interface ResolvedProps {
  readonly specs: readonly PropSpec[];
  /** User-input prop values after defaults and coercion; optional props without a value are absent. */
  readonly values: Readonly<Record<string, unknown>>;
  readonly apps: Readonly<Record<string, ResolvedApp>>;
  readonly timer: { readonly prop: string; readonly schedule: TimerSchedule } | null;
  readonly http: { readonly prop: string; readonly customResponse: boolean } | null;
  readonly dbProps: readonly string[];
  /** Warnings for the invocation's log (an app prop running without credentials it may need). */
  readonly notices: readonly string[];
}

export interface ResolvePropsInput {
  readonly specs: readonly PropSpec[];
  readonly configured: Readonly<Record<string, unknown>>;
  readonly accounts?: Accounts;
  readonly appAuth?: AppAuthModes;
  /** Accept missing required values (options and additionalProps run on partial configuration). */
  readonly partial?: boolean;
}

/**
 * Applies defaults, coercion and every value rule to configured props (contract §2.2–§2.9, P14).
 * Checks every prop, then throws one AppError listing each that failed (`details.errors`).
 */
export function resolveProps(input: ResolvePropsInput): ResolvedProps {
  const known = new Set(input.specs.map((spec) => spec.name));
  const problems: AppError[] = [];
  for (const name of Object.keys(input.configured)) {
    if (!known.has(name)) {
      const declared = [...known].join(', ') || 'none';
      problems.push(
        new AppError('PROP_UNKNOWN', `unknown prop "${name}"; the component declares: ${declared}`, { prop: name }),
      );
    }
  }
  const resolved: Resolved = { values: {}, apps: {}, timer: null, http: null, dbProps: [], notices: [] };
  for (const spec of input.specs) {
    try {
      resolveOne(spec, input, resolved);
    } catch (error) {
      if (!isAppError(error) || error.details.prop !== spec.name) throw error;
      problems.push(error);
    }
  }
  if (problems.length > 0) throw propProblemsError(problems);
  return { specs: input.specs, ...resolved };
}

type Resolved = {
  values: Record<string, unknown>;
  apps: Record<string, ResolvedApp>;
  timer: ResolvedProps['timer'];
  http: ResolvedProps['http'];
  dbProps: string[];
  notices: string[];
};

/**
 * A string whose JSON form cannot reach the limit even if every character took 6 bytes (`\uXXXX`)
 * needs no serialization to know it (the common case: a prop is a short string, and serializing a
 * large one for every run only to measure it cost more than the rest of resolving).
 */
function surelySmall(value: unknown): boolean {
  return typeof value === 'string' && value.length * 6 + 2 <= MAX_PROP_VALUE_BYTES;
}

/** One prop's value into `out`; throws an AppError naming the prop when a rule fails. */
function resolveOne(spec: PropSpec, input: ResolvePropsInput, out: Resolved): void {
  const configured = input.configured[spec.name];
  if (configured !== undefined && !surelySmall(configured) && jsonByteLength(configured) > MAX_PROP_VALUE_BYTES) {
    throw new AppError('PROP_TOO_LARGE', `prop "${spec.name}" is larger than 64 KB once serialized`, {
      prop: spec.name,
      rule: 'P14',
    });
  }
  const kind = propKind(spec.type);
  switch (kind) {
    case 'input': {
      const value = resolveInput(spec, configured, input.partial === true);
      if (value !== undefined) out.values[spec.name] = value;
      break;
    }
    case 'app': {
      const slug = spec.appDefinition?.app ?? '';
      const found = findAccount(spec, input.accounts);
      const mode = found === null && Object.hasOwn(input.appAuth ?? {}, slug) ? input.appAuth?.[slug] : undefined;
      if (found === null && mode === undefined && spec.raw['optional'] !== true && input.partial !== true) {
        throw new AppError(
          'PROP_REQUIRED',
          `app prop "${spec.name}" needs a connected account for app "${slug}": set it to { "authProvisionId": "apn_…" } ` +
            `(an account of "${slug}"), or locally pass --auth ${slug}='{…}'`,
          { prop: spec.name, app: slug },
        );
      }
      if (mode === 'unknown') out.notices.push(unknownAppNotice(spec.name, slug));
      if (spec.appDefinition) out.apps[spec.name] = { definition: spec.appDefinition, auth: found ?? {} };
      break;
    }
    case 'interface':
      if (spec.type === '$.interface.timer') {
        const parsed = parseTimerValue(configured ?? declaredTimerValue(spec));
        if (!parsed.ok)
          throw new AppError('PROP_INVALID', `prop "${spec.name}": timer ${parsed.reason}`, { prop: spec.name });
        out.timer = { prop: spec.name, schedule: parsed.schedule };
      } else {
        out.http = { prop: spec.name, customResponse: spec.raw['customResponse'] === true };
      }
      break;
    case 'service':
      out.dbProps.push(spec.name);
      break;
    case 'alert':
    case 'inert':
    case 'unsupported':
      break;
  }
}

function resolveInput(spec: PropSpec, configured: unknown, partial: boolean): unknown {
  const value = configured === undefined || configured === null ? spec.default : configured;
  if (value === undefined || value === null) {
    if (spec.raw['optional'] === true || partial) return undefined;
    throw new AppError('PROP_REQUIRED', `prop "${spec.name}" is required (${spec.type})`, { prop: spec.name });
  }
  const coerced = coercePropValue(spec, value);
  if (!coerced.ok) {
    if (partial) return value;
    throw new AppError('PROP_INVALID', `prop "${spec.name}" ${coerced.reason}`, { prop: spec.name });
  }
  return coerced.value;
}

function findAccount(spec: PropSpec, accounts: Accounts | undefined): Record<string, unknown> | null {
  if (!accounts) return null;
  const bySlug = spec.appDefinition ? accounts[spec.appDefinition.app] : undefined;
  const found = accounts[spec.name] ?? bySlug;
  return isPlainObject(found) ? found : null;
}

/** The warning of an app the catalog does not know, run with an empty `$auth` (docs/accounts.md). */
export function unknownAppNotice(prop: string, slug: string): string {
  return (
    `app "${slug}" (prop "${prop}") is not in the app catalog, so it runs with an empty $auth; ` +
    `if it needs credentials, connect an account of "${slug}" (or locally pass --auth ${slug}='{…}')`
  );
}
