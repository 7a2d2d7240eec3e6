import type { InvocationResult } from '@tributary/runtime';
import { REDACTED } from '../sources/configured-props.js';
import type { Checkpoint, PlanStep, RunRow, StepResult } from './workflow-store.js';

/** What a step's result does to its run: next step, delay, exit, failure or the end. */
export function stepOutcome(input: {
  readonly run: RunRow;
  readonly step: PlanStep;
  readonly index: number;
  /** The steps after this one, skipped when it ends the run. */
  readonly later: () => Checkpoint['skipped'];
  readonly isLast: boolean;
  readonly result: InvocationResult;
  readonly record: StepResult;
  readonly now: number;
}): Checkpoint {
  const { run, step, index, later, isLast, result, record, now } = input;
  const base = { runId: run.id, skipped: [] as Checkpoint['skipped'] };
  if (!result.ok) {
    const error = {
      code: record.error?.code ?? 'COMPONENT_ERROR',
      message: record.error?.message ?? '',
      step: step.name,
    };
    return {
      ...base,
      step: { index, name: step.name, status: 'failed', result: record },
      skipped: later(),
      run: finished('failed', index + 1, null, error, now),
      queue: { kind: 'remove' },
    };
  }
  const succeeded = { index, name: step.name, status: 'succeeded' as const, result: record };
  if (result.exit) {
    return {
      ...base,
      step: succeeded,
      skipped: later(),
      run: finished('exited', index + 1, result.exit, null, now),
      queue: { kind: 'remove' },
    };
  }
  if (isLast) {
    return {
      ...base,
      step: succeeded,
      run: finished('succeeded', index + 1, null, null, now),
      queue: { kind: 'remove' },
    };
  }
  if (result.delay) {
    const until = now + result.delay.ms;
    return {
      ...base,
      step: succeeded,
      run: { status: 'delayed', nextStep: index + 1, exit: null, error: null, resumeAt: until, finishedAt: null },
      queue: { kind: 'delay', until },
    };
  }
  return {
    ...base,
    step: succeeded,
    run: { status: 'running', nextStep: index + 1, exit: null, error: null, resumeAt: null, finishedAt: null },
    queue: { kind: 'keep' },
  };
}

export function finished(
  status: 'failed' | 'exited' | 'succeeded',
  nextStep: number,
  exit: { reason: string | null } | null,
  error: { code: string; message: string; step: string | null } | null,
  at: number,
): Checkpoint['run'] {
  return { status, nextStep, exit, error, resumeAt: null, finishedAt: at };
}

export function emptyResult(startedAt: number): StepResult {
  return {
    props: null,
    returnValue: null,
    exports: {},
    logs: [],
    sends: [],
    error: null,
    durationMs: 0,
    startedAt,
  };
}

export function redact(props: Record<string, unknown>, secret: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(props).map(([name, value]) => [name, secret.includes(name) ? REDACTED : value]),
  );
}
