import { AppError } from '@tributary/contracts';
import { describe, expect, it } from 'vitest';
import { checkWorkflow } from './check-workflow.js';

const base = { name: 'wf', trigger: { type: 'manual' } };

function refusal(input: unknown): AppError {
  try {
    checkWorkflow(input);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('the workflow was accepted');
}

describe('checkWorkflow', () => {
  it('accepts steps that read the trigger and earlier steps', () => {
    const spec = checkWorkflow({
      ...base,
      steps: [
        { name: 'a', action: 'some-key', props: { x: '{{steps.trigger.event.body.email}}' } },
        {
          name: 'b',
          code: 'export default defineComponent({ async run() {} })',
          props: { y: ['{{ steps.a.$return_value + 1 }}'] },
        },
      ],
    });
    expect(spec.steps.map((step) => step.name)).toEqual(['a', 'b']);
  });

  it('refuses duplicate step names with WORKFLOW_DUPLICATE_STEP', () => {
    const error = refusal({
      ...base,
      steps: [
        { name: 'a', action: 'k' },
        { name: 'a', action: 'k' },
      ],
    });
    expect(error.code).toBe('WORKFLOW_DUPLICATE_STEP');
    expect(error.details).toMatchObject({ step: 'a', field: 'steps.1.name' });
  });

  it('refuses a reference to a later step, naming the step and the prop', () => {
    const error = refusal({
      ...base,
      steps: [
        { name: 'a', action: 'k', props: { to: '{{ steps.b.$return_value }}' } },
        { name: 'b', action: 'k' },
      ],
    });
    expect(error.code).toBe('WORKFLOW_STEP_REFERENCE');
    expect(error.message).toBe('step "a", prop "to": steps.b runs after this step, so its results are not there yet');
  });

  it('refuses a reference to an unknown step, also through steps["name"]', () => {
    const error = refusal({
      ...base,
      steps: [{ name: 'a', action: 'k', props: { deep: { to: '{{ steps["nope"].x }}' } } }],
    });
    expect(error.code).toBe('WORKFLOW_STEP_REFERENCE');
    expect(error.details).toMatchObject({ step: 'a', prop: 'deep.to', reference: 'nope' });
  });

  it('refuses an expression that does not parse, without running it', () => {
    const error = refusal({ ...base, steps: [{ name: 'a', action: 'k', props: { x: '{{ steps.trigger. }}' } }] });
    expect(error.code).toBe('WORKFLOW_EXPRESSION_INVALID');
    expect(error.message).toMatch(/^step "a", prop "x": \{\{ steps\.trigger\. \}\} does not parse/);
    const two = refusal({ ...base, steps: [{ name: 'a', action: 'k', props: { x: '{{ 1; process.exit() }}' } }] });
    expect(two.code).toBe('WORKFLOW_EXPRESSION_INVALID');
  });

  it('refuses a bad shape with VALIDATION_FAILED naming the field', () => {
    const error = refusal({ ...base, steps: [{ name: 'has space', action: 'k' }] });
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.message).toMatch(/^steps\.0\.name: /);
    expect(refusal({ ...base, steps: [{ name: 'a', action: 'k', code: 'x' }] }).code).toBe('VALIDATION_FAILED');
    expect(refusal({ ...base, steps: [{ name: 'trigger', action: 'k' }] }).code).toBe('VALIDATION_FAILED');
  });
});
