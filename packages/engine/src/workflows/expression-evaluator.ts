import type { ComponentService } from '../components/component-service.js';
import type { SourceExecutor } from '../sources/source-executor.js';

/**
 * The platform's own action that evaluates a step's prop expressions. It runs in the sandbox like
 * any component (user expressions never run in the server process): it gets the step's props as
 * JSON and the run's `steps`, and returns the props with every `{{ ... }}` replaced. A string that
 * is one whole expression becomes the expression's value (any JSON type); an expression inside
 * other text is interpolated (objects as JSON).
 */
export const EVALUATOR_CODE = String.raw`export default {
  key: 'tributary-workflow-expressions',
  name: 'Workflow expressions',
  version: '1.0.0',
  type: 'action',
  props: { spec: { type: 'string', label: 'Props (JSON)' } },
  async run({ steps }) {
    const WHOLE = /^\{\{([\s\S]*?)\}\}$/;
    const ANY = /\{\{([\s\S]*?)\}\}/g;
    const failure = { prop: null, message: null };
    const evaluate = (source, prop) => {
      try {
        return new Function('steps', '"use strict"; return (' + source + '\n);')(steps);
      } catch (error) {
        failure.prop = prop;
        failure.message = '{{ ' + source.trim() + ' }} threw: ' + (error && error.message ? error.message : String(error));
        throw failure;
      }
    };
    const text = (value) => (value !== null && typeof value === 'object' ? JSON.stringify(value) : String(value));
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
    const props = JSON.parse(this.spec);
    try {
      const resolved = {};
      for (const [name, value] of Object.entries(props)) resolved[name] = resolve(value, name);
      // Through JSON: a value that is not JSON (a function, undefined) cannot be a prop value.
      return { ok: true, props: JSON.parse(JSON.stringify(resolved)) };
    } catch (error) {
      if (error === failure) return { ok: false, prop: failure.prop, message: failure.message };
      throw error;
    }
  },
};
`;

export type Evaluated =
  | { readonly ok: true; readonly props: Record<string, unknown> }
  | { readonly ok: false; readonly prop: string | null; readonly message: string };

export interface ExpressionEvaluatorOptions {
  readonly components: ComponentService;
  readonly executor: SourceExecutor;
  readonly timeoutMs: number;
}

/**
 * Evaluates prop expressions in the sandbox. Each workflow gets an evaluator of its own (the same
 * code with its id in a comment, so a worker of its own): an expression can leave globals behind
 * in its worker, and those must never be seen by another workflow's expressions.
 */
export class ExpressionEvaluator {
  private readonly componentIds = new Map<string, Promise<string>>();

  constructor(private readonly options: ExpressionEvaluatorOptions) {}

  async evaluate(
    workflowId: string,
    props: Record<string, unknown>,
    steps: Record<string, unknown>,
  ): Promise<Evaluated> {
    // No expression in any prop: nothing needs the sandbox.
    if (!JSON.stringify(props).includes('{{')) return { ok: true, props };
    const component = await this.options.components.get(await this.componentFor(workflowId));
    // A worker group per workflow: what one workflow's expressions leave on globalThis never
    // reaches another's (the owner's components share a realm, decision 0007; expressions do not).
    const handle = await this.options.executor.handle(component, `workflow-expressions:${workflowId}`);
    const result = await handle.invoke({
      kind: 'run',
      configured: { spec: JSON.stringify(props) },
      accounts: {},
      steps,
      state: { db: {}, dedupe: null },
      timeoutMs: this.options.timeoutMs,
      // Expressions keep nothing between runs that may be relied on: runs evaluate on several workers at once.
      concurrent: true,
    });
    if (!result.ok) return { ok: false, prop: null, message: result.error?.message ?? 'evaluating the props failed' };
    return result.returnValue as Evaluated;
  }

  private componentFor(workflowId: string): Promise<string> {
    let id = this.componentIds.get(workflowId);
    if (!id) {
      id = this.options.components.save({ code: `${EVALUATOR_CODE}// workflow ${workflowId}\n` }).then((row) => row.id);
      // A failed save is tried again next time rather than remembered.
      id.catch(() => this.componentIds.delete(workflowId));
      this.componentIds.set(workflowId, id);
    }
    return id;
  }
}
