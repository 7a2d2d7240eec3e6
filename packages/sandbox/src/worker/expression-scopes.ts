/**
 * Workflow prop expressions (`{{ steps.trigger.event.body.email }}`), evaluated in the worker that
 * runs the step, in a realm of the workflow's own (decision 0019). Each scope (a workflow) gets a
 * `node:vm` context; `steps` crosses into it and the values back as JSON text, so what one
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
 */
const EVALUATOR_SOURCE = String.raw`(() => {
  const WHOLE = ${WHOLE};
  const ANY = ${ANY};
  const parse = JSON.parse;
  const stringify = JSON.stringify;
  const compile = Function;
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
  return (input) => {
    const { props, steps } = parse(input);
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
      if (Array.isArray(value)) return value.map((item, index) => resolve(item, prop + '[' + index + ']'));
      if (value !== null && typeof value === 'object')
        return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolve(item, prop + '.' + key)]));
      return value;
    };
    try {
      const resolved = {};
      for (const [name, value] of Object.entries(props)) resolved[name] = resolve(value, name);
      // Through JSON: a value that is not JSON (a function, undefined) cannot be a prop value.
      return stringify({ ok: true, props: resolved });
    } catch (error) {
      if (error === failure) return stringify({ ok: false, prop: failure.prop, message: failure.message });
      return stringify({ ok: false, prop: null, message: String(error && error.message ? error.message : error) });
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

/** The call each evaluation runs: its input is handed over in a context global, removed after. */
const CALL = new vm.Script('__tributaryEvaluate(__tributaryInput)');

interface Scope {
  readonly context: vm.Context;
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
    const { context } = this.scopeOf(scope);
    const input = JSON.stringify({ props, steps: this.readBy(props, steps ?? {}) });
    Object.defineProperty(context, '__tributaryInput', { value: input, configurable: true, writable: true });
    let output: unknown;
    try {
      output = CALL.runInContext(context);
    } catch (error) {
      // Only an error thrown past the evaluator (a stack overflow) gets here.
      const message = errorMessage(error);
      return { ok: false, prop: null, message: `evaluating the expressions failed: ${message}` };
    } finally {
      delete (context as Record<string, unknown>)['__tributaryInput'];
    }
    // A value that is not JSON (undefined) leaves its key out, as JSON.stringify does.
    return JSON.parse(String(output)) as ExpressionsOutcome;
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
    const evaluator: unknown = vm.runInContext(EVALUATOR_SOURCE, context);
    Object.defineProperty(context, '__tributaryEvaluate', { value: evaluator, configurable: false, writable: false });
    const scope = { context };
    this.scopes.set(name, scope);
    if (this.scopes.size > MAX_SCOPES) {
      const oldest = this.scopes.keys().next().value;
      if (oldest !== undefined) this.scopes.delete(oldest);
    }
    return scope;
  }
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
