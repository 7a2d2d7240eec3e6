/**
 * Workflow prop expressions (`{{ steps.trigger.event.body.email }}`), evaluated in the worker that
 * runs the step, in a realm of the workflow's own (decision 0019). Each scope (a workflow) gets a
 * `node:vm` context; `steps` crosses into it as a copy and the values back as JSON would give them
 * (EVALUATOR_SOURCE), so what one
 * workflow's expressions leave on `globalThis` stays in its own context, away from other
 * workflows' expressions and from the step's code. Besides JavaScript's built-ins an expression
 * sees the few Node globals of `NODE_GLOBALS`, shared with this realm. The boundary keeps
 * workflows' expressions apart; it is not the security boundary (the worker process is, as for
 * the code steps of the same owner that share this realm).
 */
import { errorMessage } from '@tributary/contracts/errors';
import vm from 'node:vm';
import { ANY_EXPRESSION as ANY, WHOLE_EXPRESSION as WHOLE } from '../protocol/expression-patterns.js';
import type { ExpressionsOutcome } from '../protocol/messages.js';
import { pickSteps, stepsPathsOf, type StepsPath } from './steps-read.js';

/**
 * Runs inside a scope's context. A string that is one whole expression becomes the expression's
 * value (any JSON type); an expression inside other text is interpolated (objects as JSON).
 *
 * What crosses, and how (the copies through JSON text both ways took a tenth of a busy worker's
 * time for a step whose expression read and returned a kilobyte of text): `steps`, data parsed from
 * JSON, is copied into objects of this realm by `copyIn` (strings, numbers and booleans are shared,
 * objects and arrays made anew, so an expression that changes them changes its own copy); each
 * prop's value comes back as a list of [name, value] or [name, json] pairs: a primitive as it is
 * (the result JSON would give: a number that is not finite is null, -0 is 0, an undefined or a
 * function leaves the prop out), anything else as this realm's JSON text, parsed by the worker.
 */
const EVALUATOR_SOURCE = String.raw`(() => {
  const WHOLE = ${WHOLE};
  const ANY = ${ANY};
  const stringify = JSON.stringify;
  const compile = Function;
  const isArray = Array.isArray;
  const keysOf = Object.keys;
  const define = Object.defineProperty;
  // Compiled expressions by source: every run of a workflow evaluates the same few, and compiling
  // one costs far more than calling it. Each is a pure function of 'steps'.
  const compiled = new Map();
  const MAX_COMPILED = 256;
  const compiledOf = (source) => {
    let fn = compiled.get(source);
    if (fn === undefined) {
      fn = compile('steps', '"use strict"; return (' + source + '\n);');
      if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value);
      compiled.set(source, fn);
    }
    return fn;
  };
  // JSON data of the worker's realm as objects of this one, as JSON.parse(JSON.stringify(value)) would give.
  const copyIn = (value) => {
    if (value === null || typeof value !== 'object') return value === 0 ? 0 : value;
    if (isArray(value)) {
      const copy = new Array(value.length);
      for (let index = 0; index < value.length; index += 1) copy[index] = copyIn(value[index]);
      return copy;
    }
    const copy = {};
    for (const key of keysOf(value)) {
      // A key '__proto__' stays data, as JSON.parse made it.
      if (key === '__proto__') define(copy, key, { value: copyIn(value[key]), enumerable: true, writable: true, configurable: true });
      else copy[key] = copyIn(value[key]);
    }
    return copy;
  };
  return (props, input) => {
    const steps = copyIn(input);
    const failure = { prop: null, message: null };
    const evaluate = (source, prop) => {
      try {
        return compiledOf(source)(steps);
      } catch (error) {
        failure.prop = prop;
        failure.message = '{{ ' + source.trim() + ' }} threw: ' + (error && error.message ? error.message : String(error));
        throw failure;
      }
    };
    const text = (value) => (value !== null && typeof value === 'object' ? stringify(value) : String(value));
    const resolve = (value, prop) => {
      if (typeof value === 'string') {
        const whole = WHOLE.exec(value);
        if (whole && !whole[1].includes('}}')) return evaluate(whole[1], prop);
        return value.replace(ANY, (_, source) => text(evaluate(source, prop)));
      }
      if (isArray(value)) return value.map((item, index) => resolve(item, prop + '[' + index + ']'));
      if (value !== null && typeof value === 'object')
        return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolve(item, prop + '.' + key)]));
      return value;
    };
    try {
      const values = [];
      for (const name of keysOf(props)) {
        const value = resolve(props[name], name);
        const type = typeof value;
        if (value === null || type === 'string' || type === 'boolean') values.push(name, true, value);
        else if (type === 'number') values.push(name, true, value === 0 ? 0 : Number.isFinite(value) ? value : null);
        else {
          // Through JSON: a value that is not JSON (a function, undefined) cannot be a prop value.
          const json = stringify(value);
          if (json !== undefined) values.push(name, false, json);
        }
      }
      return { ok: true, values };
    } catch (error) {
      if (error === failure) return { ok: false, prop: failure.prop, message: failure.message };
      return { ok: false, prop: null, message: String(error && error.message ? error.message : error) };
    }
  };
})()`;

/** Node globals an expression may use on data (encodings, URLs); no process, require or network. */
const NODE_GLOBALS = {
  Buffer,
  URL,
  URLSearchParams,
  TextEncoder,
  TextDecoder,
  atob,
  btoa,
  structuredClone,
} as const;

/** What the evaluator answers (objects of the scope's realm, read field by field). */
type EvaluatorOutput =
  | { readonly ok: true; readonly values: readonly unknown[] }
  | { readonly ok: false; readonly prop: unknown; readonly message: unknown };

interface Scope {
  readonly context: vm.Context;
  /**
   * The evaluator made in the context, called directly: a call into another context's function
   * runs in that context, without a script run and the context global's interceptors per call.
   */
  readonly evaluate: (props: Record<string, unknown>, steps: unknown) => EvaluatorOutput;
}

/** Contexts kept per worker; the least recently used one goes past this (its globals with it). */
const MAX_SCOPES = 32;
/** Expressions whose reading of `steps` is kept (a workflow's runs evaluate the same few). */
const MAX_READINGS = 256;

export class ExpressionScopes {
  private readonly scopes = new Map<string, Scope>();
  private readonly readings = new Map<string, StepsPath[] | null>();

  /**
   * Evaluates `props` against `steps` in `scope`'s context. No `vm` timeout: it starts a watchdog
   * thread per call (measured ~76 µs of CPU against ~1 µs without, a third of a busy expression
   * worker's time), so a runaway expression is stopped as a runaway code step is, by the host
   * killing the worker at the step's deadline (TIMEOUT).
   */
  evaluate(scope: string, props: Record<string, unknown>, steps: unknown): ExpressionsOutcome {
    const { evaluate } = this.scopeOf(scope);
    let output: EvaluatorOutput;
    try {
      output = evaluate(props, this.readBy(props, steps ?? {}));
    } catch (error) {
      // Only an error thrown past the evaluator (a stack overflow) gets here.
      const message = errorMessage(error);
      return { ok: false, prop: null, message: `evaluating the expressions failed: ${message}` };
    }
    if (!output.ok) {
      const { prop, message } = output;
      return { ok: false, prop: typeof prop === 'string' ? prop : null, message: String(message) };
    }
    // A value that is not JSON (undefined) left its key out, as JSON.stringify does.
    const values: Record<string, unknown> = {};
    const list = output.values;
    for (let index = 0; index + 2 < list.length; index += 3) {
      const name = String(list[index]);
      const value = list[index + 2];
      setData(values, name, list[index + 1] === true ? value : (JSON.parse(String(value)) as unknown));
    }
    return { ok: true, props: values };
  }

  /** The part of `steps` the expressions of `props` read (steps-read.ts), or all of it. */
  private readBy(props: Record<string, unknown>, steps: unknown): unknown {
    const paths: StepsPath[] = [];
    for (const source of expressionSources(props)) {
      let reading = this.readings.get(source);
      if (reading === undefined) {
        reading = stepsPathsOf(source);
        if (this.readings.size >= MAX_READINGS) this.readings.clear();
        this.readings.set(source, reading);
      }
      if (reading === null) return steps;
      paths.push(...reading);
    }
    return pickSteps(steps, paths) ?? steps;
  }

  private scopeOf(name: string): Scope {
    const found = this.scopes.get(name);
    if (found) {
      // Most recently used last: the first key is the one to drop.
      this.scopes.delete(name);
      this.scopes.set(name, found);
      return found;
    }
    // A global without a prototype: `this.constructor` leads to no Function of this realm.
    const context = vm.createContext(Object.create(null) as object, {
      name: `expressions:${name}`,
      codeGeneration: { strings: true, wasm: false },
    });
    for (const [key, value] of Object.entries(NODE_GLOBALS))
      Object.defineProperty(context, key, { value, configurable: true, writable: true });
    const evaluate = vm.runInContext(EVALUATOR_SOURCE, context) as Scope['evaluate'];
    const scope = { context, evaluate };
    this.scopes.set(name, scope);
    if (this.scopes.size > MAX_SCOPES) {
      const oldest = this.scopes.keys().next().value;
      if (oldest !== undefined) this.scopes.delete(oldest);
    }
    return scope;
  }
}

/** Sets `name` as an own data property, `__proto__` included (as JSON.parse would). */
function setData(target: Record<string, unknown>, name: string, value: unknown): void {
  if (name === '__proto__')
    Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
  else target[name] = value;
}

/** The source of every `{{ }}` expression in the prop values, as the evaluator finds them. */
function expressionSources(value: unknown, into: string[] = []): string[] {
  if (typeof value === 'string') {
    const whole = WHOLE.exec(value);
    if (whole?.[1] !== undefined && !whole[1].includes('}}')) into.push(whole[1]);
    else for (const match of value.matchAll(ANY)) into.push(match[1] ?? '');
  } else if (Array.isArray(value)) {
    for (const item of value) expressionSources(item, into);
  } else if (value !== null && typeof value === 'object') {
    for (const item of Object.values(value)) expressionSources(item, into);
  }
  return into;
}
