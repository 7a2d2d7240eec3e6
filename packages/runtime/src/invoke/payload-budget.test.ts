import { describe, expect, it } from 'vitest';
import { invokeComponent, resolveProps, validateComponent, type Component } from '@tributary/runtime';

function component(raw: Record<string, unknown>): Component {
  const { component: valid, issues } = validateComponent({ name: 'Budget', version: '0.0.1', ...raw });
  if (!valid) throw new Error(JSON.stringify(issues));
  return valid;
}

async function run(raw: Record<string, unknown>, maxPayloadBytes = 10_000) {
  const valid = component(raw);
  const props = resolveProps({ specs: valid.props, configured: {} });
  return invokeComponent({ component: valid, props, kind: 'run', timeoutMs: 5_000, maxPayloadBytes });
}

describe('payload limit of one invocation', () => {
  it('ends a console flood with PAYLOAD_TOO_LARGE, keeping what came before the limit', async () => {
    const result = await run({
      async run() {
        for (let i = 0; i < 1_000_000; i += 1) console.log(`line ${i} ${'x'.repeat(100)}`);
      },
    });
    expect(result.ok).toBe(false);
    expect(result.error?.code).toBe('PAYLOAD_TOO_LARGE');
    expect(result.error?.message).toContain('console output');
    const bytes = result.logs.reduce((total, entry) => total + entry.message.length, 0);
    expect(bytes).toBeLessThan(20_000);
    expect(result.logs.filter((entry) => entry.message.startsWith('line ')).length).toBeGreaterThan(50);
  });

  it('refuses a huge emit, and a caught limit error still fails the invocation', async () => {
    const result = await run({
      async run() {
        this.$emit({ small: true });
        try {
          this.$emit({ big: 'y'.repeat(20_000) });
        } catch {
          // The author swallows it; the invocation must fail all the same.
        }
      },
    });
    expect(result.error?.code).toBe('PAYLOAD_TOO_LARGE');
    expect(result.error?.message).toContain('$emit');
    expect(result.emits.map((emit) => emit.event)).toEqual([{ small: true }]);
  });

  it('counts exports and the return value of actions', async () => {
    const exported = await run({
      type: 'action',
      async run({ $ }: { $: { export: (name: string, value: unknown) => void } }) {
        $.export('blob', 'z'.repeat(20_000));
      },
    });
    expect(exported.error?.code).toBe('PAYLOAD_TOO_LARGE');
    const returned = await run({
      type: 'action',
      async run() {
        return 'r'.repeat(20_000);
      },
    });
    expect(returned.error?.code).toBe('PAYLOAD_TOO_LARGE');
    expect(returned.returnValue).toBeUndefined();
  });

  it('lets an invocation under the limit through', async () => {
    const result = await run({
      async run() {
        console.log('small');
        this.$emit({ ok: true });
      },
    });
    expect(result.ok).toBe(true);
  });
});
