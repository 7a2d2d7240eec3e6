import { AppError, errorMessage } from '@tributary/contracts/errors';
import type { Accounts } from '@tributary/runtime';

/** What flag parsing needs to know of a prop: its name and type. */
export interface PropShape {
  readonly name: string;
  readonly type: string;
}

/** The prop-related flags of `run`, `dev` and `options`, as typed. */
export interface PropFlags {
  /** `--prop NAME=VALUE`, repeatable. */
  readonly prop?: readonly string[];
  /** `--props JSON`. */
  readonly props?: string;
  /** `--auth APP=JSON`, repeatable. */
  readonly auth?: readonly string[];
}

/**
 * Turns `--props` and `--prop` into configured values. A `--prop` value is read by its prop's type:
 * string props take the text as given, every other type parses it as JSON (falling back to the raw
 * text, which coercion then accepts or refuses by name).
 */
export function configuredFromFlags(flags: PropFlags, specs: readonly PropShape[]): Record<string, unknown> {
  const configured: Record<string, unknown> = {};
  if (flags.props !== undefined) {
    const parsed = parseJson(flags.props, '--props');
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new AppError('USAGE_ERROR', '--props must be a JSON object, e.g. --props \'{"name":"World"}\'', {
        field: '--props',
      });
    }
    Object.assign(configured, parsed);
  }
  for (const pair of flags.prop ?? []) {
    const [name, text] = splitPair(pair, '--prop');
    const spec = specs.find((candidate) => candidate.name === name);
    configured[name] = spec?.type === 'string' ? text : parseLenient(text);
  }
  return configured;
}

/** `--auth APP=JSON` pairs, keyed by app slug or app prop name. */
export function accountsFromFlags(flags: PropFlags): Accounts {
  const accounts: Record<string, Record<string, unknown>> = {};
  for (const pair of flags.auth ?? []) {
    const [app, text] = splitPair(pair, '--auth');
    const parsed = parseJson(text, `--auth ${app}`);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new AppError('USAGE_ERROR', `--auth ${app} must be a JSON object, e.g. --auth ${app}='{"api_key":"..."}'`, {
        field: '--auth',
      });
    }
    accounts[app] = parsed as Record<string, unknown>;
  }
  return accounts;
}

export function parseJson(text: string, flag: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const reason = errorMessage(error);
    throw new AppError('USAGE_ERROR', `${flag} is not valid JSON: ${reason}`, { field: flag });
  }
}

function parseLenient(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function splitPair(pair: string, flag: string): [string, string] {
  const at = pair.indexOf('=');
  if (at <= 0) throw new AppError('USAGE_ERROR', `${flag} expects NAME=VALUE, got "${pair}"`, { field: flag });
  return [pair.slice(0, at), pair.slice(at + 1)];
}
