import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CallResult, ComponentHandle } from '@tributary/sandbox';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { testSandbox } from './sandbox-harness.js';

/**
 * A workflow step's `{{ }}` prop expressions are evaluated in the worker that runs the step, in a
 * realm of the workflow's own (`expressions.scope`), before its props resolve (decision 0019).
 */
const sourcesDir = mkdtempSync(path.join(os.tmpdir(), 'tributary-expressions-'));
afterAll(() => rmSync(sourcesDir, { recursive: true, force: true }));

/** An action that counts its runs in its worker and returns its props and that count. */
function writeStep(): string {
  const file = path.join(sourcesDir, 'expression-step.mjs');
  writeFileSync(
    file,
    `export default {
  key: 'expression-step',
  name: 'Expression step',
  version: '0.0.1',
  type: 'action',
  props: { fixed: { type: 'string' }, value: { type: 'any', optional: true } },
  async run() {
    globalThis.runs = (globalThis.runs ?? 0) + 1;
    return { fixed: this.fixed, value: this.value ?? null, runs: globalThis.runs };
  },
};
`,
  );
  return file;
}

async function openStep(): Promise<ComponentHandle> {
  const env = testSandbox({ maxWorkersPerGroup: 1 });
  onTestFinished(() => env.dispose());
  const prepared = await env.sandbox.prepare(writeStep());
  return env.sandbox.open(prepared, { key: 'expression-step', purpose: 'run', group: 'expressions-owner' });
}

function run(
  handle: ComponentHandle,
  scope: string,
  expression: unknown,
  options: { timeoutMs?: number; concurrent?: boolean } = {},
): Promise<CallResult> {
  return handle.invoke({
    kind: 'run',
    configured: { fixed: 'as given' },
    accounts: {},
    steps: { trigger: { event: { who: 'Ada', list: [1, 2] } } },
    state: { db: {}, dedupe: null },
    expressions: { scope, props: { value: expression } },
    timeoutMs: options.timeoutMs ?? 5000,
    ...(options.concurrent ? { concurrent: true } : {}),
  });
}

describe('prop expressions evaluated in the step worker', () => {
  it('gives the step its evaluated props and reports them, whole values keeping their type', async () => {
    const handle = await openStep();
    const whole = await run(handle, 'wf_a', '{{ steps.trigger.event.list }}');
    expect(whole.ok).toBe(true);
    expect(whole.expressions).toEqual({ ok: true, props: { value: [1, 2] } });
    expect(whole.returnValue).toMatchObject({ fixed: 'as given', value: [1, 2] });
    const text = await run(handle, 'wf_a', { greeting: 'Hello, {{ steps.trigger.event.who }}!' });
    expect(text.returnValue).toMatchObject({ value: { greeting: 'Hello, Ada!' } });
    // JavaScript's built-ins and a few Node globals for data; nothing of the process.
    const globals = await run(
      handle,
      'wf_a',
      '{{ [Buffer.from(steps.trigger.event.who).toString("base64"), new URL("https://x.test/a?b=1").searchParams.get("b"), typeof process, typeof require, typeof fetch, this === undefined] }}',
    );
    expect(globals.returnValue).toMatchObject({ value: ['QWRh', '1', 'undefined', 'undefined', 'undefined', true] });
  });

  it('gives values as JSON would, and keeps what an expression changes in steps to the expression', async () => {
    const handle = await openStep();
    const values = await handle.invoke({
      kind: 'run',
      configured: { fixed: 'as given' },
      accounts: {},
      // A key named __proto__ stays data, as JSON.parse made it.
      steps: { trigger: { event: JSON.parse('{"who":"Ada","__proto__":{"x":1},"zero":-0}') as unknown } },
      state: { db: {}, dedupe: null },
      expressions: {
        scope: 'wf_json',
        props: {
          value: {
            nan: '{{ NaN }}',
            infinite: '{{ -Infinity }}',
            zero: '{{ -0 }}',
            date: '{{ new Date(0) }}',
            nested: '{{ ({ list: [1, undefined, () => 1], gone: undefined, at: new Date(0) }) }}',
            keys: '{{ Object.keys(steps.trigger.event) }}',
            own: '{{ Object.getPrototypeOf(steps.trigger.event) === Object.prototype && steps.trigger.event.__proto__.x }}',
            zeroIn: '{{ Object.is(steps.trigger.event.zero, -0) }}',
          },
          fn: '{{ () => 1 }}',
          missing: '{{ undefined }}',
        },
      },
      timeoutMs: 5000,
    });
    expect(values.expressions).toEqual({
      ok: true,
      props: {
        value: {
          nan: null,
          infinite: null,
          zero: 0,
          date: '1970-01-01T00:00:00.000Z',
          nested: { list: [1, null, null], at: '1970-01-01T00:00:00.000Z' },
          keys: ['who', '__proto__', 'zero'],
          own: 1,
          zeroIn: false,
        },
      },
    });
    // A top-level value JSON cannot hold leaves its prop out; a BigInt fails the prop as JSON would.
    expect(Object.keys(values.expressions?.ok ? values.expressions.props : {})).toEqual(['value']);
    const big = await run(handle, 'wf_json', '{{ 1n }}');
    expect(big.expressions).toMatchObject({ ok: false, prop: null });
    expect(big.error?.code).toBe('WORKFLOW_EXPRESSION_INVALID');

    // The expression changes its own copy of steps: the step's code sees the event as sent.
    const writer = path.join(sourcesDir, 'steps-reader.mjs');
    writeFileSync(
      writer,
      `export default { key: 'steps-reader', name: 'Steps reader', version: '0.0.1', type: 'action',
  props: { fixed: { type: 'string' }, value: { type: 'any', optional: true } },
  async run({ steps }) { return { value: this.value, who: steps.trigger.event.who, list: steps.trigger.event.list }; } };
`,
    );
    const env = testSandbox({ maxWorkersPerGroup: 1 });
    onTestFinished(() => env.dispose());
    const reader = await env.sandbox.open(await env.sandbox.prepare(writer), {
      key: 'steps-reader',
      purpose: 'run',
      group: 'expressions-owner',
    });
    const changed = await run(
      reader,
      'wf_json',
      '{{ (steps.trigger.event.who = "Eve", steps.trigger.event.list.push(3), steps.trigger.event.who) }}',
    );
    expect(changed.error).toBeNull();
    expect(changed.returnValue).toEqual({ value: 'Eve', who: 'Ada', list: [1, 2] });
  });

  it("keeps one scope's globals from another's, and the step's realm from both", async () => {
    const handle = await openStep();
    expect((await run(handle, 'wf_writer', '{{ (globalThis.leak = "secret") }}')).returnValue).toMatchObject({
      value: 'secret',
    });
    // The same worker (maxWorkersPerGroup 1) runs every call: only the realm differs.
    expect((await run(handle, 'wf_writer', '{{ String(globalThis.leak) }}')).returnValue).toMatchObject({
      value: 'secret',
    });
    expect((await run(handle, 'wf_reader', '{{ String(globalThis.leak) }}')).returnValue).toMatchObject({
      value: 'undefined',
    });
    // The step's own globals (its run count) are not on an expression's globalThis either.
    expect((await run(handle, 'wf_reader', '{{ String(globalThis.runs) }}')).returnValue).toMatchObject({
      value: 'undefined',
    });
  });

  it('leaves the step unrun when an expression throws, naming the prop', async () => {
    const handle = await openStep();
    const failed = await run(handle, 'wf_a', { deep: ['{{ steps.trigger.event.missing.deeper }}'] });
    expect(failed.ok).toBe(false);
    expect(failed.error?.code).toBe('WORKFLOW_EXPRESSION_INVALID');
    expect(failed.expressions).toMatchObject({ ok: false, prop: 'value.deep[0]' });
    expect(failed.expressions?.ok === false && failed.expressions.message).toMatch(
      /^\{\{ steps\.trigger\.event\.missing\.deeper \}\} threw: /,
    );
    // The step did not run: the next call is its first.
    expect((await run(handle, 'wf_a', 'plain')).returnValue).toMatchObject({ runs: 1 });
  });

  it('gives every expression the values it reads, however it reads steps (only the fields named cross when it names them)', async () => {
    const handle = await openStep();
    const cases: [string, unknown][] = [
      // Member chains: only these fields are copied into the realm, with the same values.
      ['{{ steps.trigger.event.who.toUpperCase() }}', 'ADA'],
      ['{{ steps.trigger.event.list.length + steps.trigger.event.list[1] }}', 4],
      ['{{ typeof steps.trigger.event.nothing }}', 'undefined'],
      // Anything else sees all of steps.
      ['{{ Object.keys(steps.trigger.event).join() }}', 'who,list'],
      ['{{ Object.keys(steps).join() + steps.trigger.event.who }}', 'triggerAda'],
      ['{{ steps["trigger"].event.who }}', 'Ada'],
      ['{{ Object.keys(arguments[0].trigger.event).join() }}', 'who,list'],
      ['{{ Object.keys(eval("steps").trigger.event).join() }}', 'who,list'],
      ['{{ Object.keys(st\\u0065ps.trigger.event).join() }}', 'who,list'],
      ['{{ JSON.stringify({ ...steps }) }}', '{"trigger":{"event":{"who":"Ada","list":[1,2]}}}'],
    ];
    for (const [expression, value] of cases) {
      const result = await run(handle, 'wf_a', {
        both: [expression, `${expression} and {{ steps.trigger.event.who }}`],
      });
      expect(result.expressions, expression).toEqual({
        ok: true,
        props: { value: { both: [value, `${String(value)} and Ada`] } },
      });
    }
  });

  it('stops a runaway expression at the deadline as it stops runaway code: the worker is replaced', async () => {
    const handle = await openStep();
    const before = await run(handle, 'wf_a', '{{ 1 }}');
    expect(before.returnValue).toMatchObject({ runs: 1 });
    const stopped = await run(handle, 'wf_a', '{{ (() => { for (;;); })() }}', { timeoutMs: 300 });
    expect(stopped.ok).toBe(false);
    expect(stopped.error?.code).toBe('TIMEOUT');
    // A fresh worker: the component's count starts again.
    expect((await run(handle, 'wf_a', '{{ 2 }}')).returnValue).toMatchObject({ value: 2, runs: 1 });
  });

  it('evaluates each gathered call against its own steps and scope', async () => {
    const handle = await openStep();
    await run(handle, 'wf_a', '{{ 0 }}', { concurrent: true });
    const results = await Promise.all(
      ['wf_a', 'wf_b', 'wf_a'].map((scope, index) =>
        run(handle, scope, `{{ (globalThis.seen = (globalThis.seen ?? 0) + 1) * 10 + ${index} }}`, {
          concurrent: true,
        }),
      ),
    );
    expect(results.map((result) => (result.returnValue as { value: number }).value)).toEqual([10, 11, 22]);
  });
});
