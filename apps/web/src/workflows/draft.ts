/**
 * The builder's editable copy of a workflow file (docs/workflows.md) and its conversions: a draft
 * keeps what the form needs (a kind per trigger, a local key per step so React keeps a step's
 * editor across reorders, a code step's props as JSON text) and becomes the REST body on save.
 */
import type { WorkflowSpecT } from '../api/endpoints.js';

export type TriggerKind = 'http' | 'timer' | 'cron' | 'source' | 'emit' | 'manual';

export interface TriggerDraft {
  readonly kind: TriggerKind;
  readonly customResponse: boolean;
  readonly intervalSeconds: string;
  readonly cron: string;
  readonly timezone: string;
  readonly sourceId: string;
  readonly workflowId: string;
}

export interface StepDraft {
  /** Local identity, never sent. */
  readonly key: string;
  readonly name: string;
  readonly kind: 'action' | 'code';
  /** A registry key or the `sc_` id of a saved action. */
  readonly action: string;
  readonly code: string;
  /** An action step's prop values (expressions are strings). */
  readonly props: Record<string, unknown>;
  /** A code step's props as JSON text: its props are declared in its code. */
  readonly propsText: string;
}

export interface WorkflowDraft {
  readonly name: string;
  readonly trigger: TriggerDraft;
  readonly steps: readonly StepDraft[];
  /** Kept as they were: the builder has no controls for them. */
  readonly settings: WorkflowSpecT['settings'];
  readonly active: boolean;
}

let counter = 0;
export const newStepKey = (): string => `step-${(counter += 1)}`;

export const CODE_TEMPLATE = `export default defineComponent({
  props: {},
  async run({ steps, $ }) {
    return steps.trigger.event;
  },
});
`;

export function emptyStep(kind: StepDraft['kind'], name: string): StepDraft {
  return {
    key: newStepKey(),
    name,
    kind,
    action: '',
    code: kind === 'code' ? CODE_TEMPLATE : '',
    props: {},
    propsText: '{}',
  };
}

const BLANK_TRIGGER: TriggerDraft = {
  kind: 'manual',
  customResponse: false,
  intervalSeconds: '60',
  cron: '0 9 * * 1',
  timezone: '',
  sourceId: '',
  workflowId: '',
};

export function emptyDraft(): WorkflowDraft {
  return { name: '', trigger: BLANK_TRIGGER, steps: [emptyStep('code', 'step_1')], settings: undefined, active: true };
}

export function draftFromSpec(spec: WorkflowSpecT): WorkflowDraft {
  return {
    name: spec.name,
    trigger: triggerDraft(spec.trigger),
    settings: spec.settings,
    active: spec.active ?? true,
    steps: spec.steps.map((step) => ({
      key: newStepKey(),
      name: step.name,
      kind: step.code !== undefined ? 'code' : 'action',
      action: step.action ?? '',
      code: step.code ?? '',
      props: step.props ?? {},
      propsText: JSON.stringify(step.props ?? {}, null, 2),
    })),
  };
}

function triggerDraft(trigger: WorkflowSpecT['trigger']): TriggerDraft {
  switch (trigger.type) {
    case 'http':
      return { ...BLANK_TRIGGER, kind: 'http', customResponse: trigger.custom_response ?? false };
    case 'timer':
      return 'cron' in trigger
        ? { ...BLANK_TRIGGER, kind: 'cron', cron: trigger.cron, timezone: trigger.timezone ?? '' }
        : { ...BLANK_TRIGGER, kind: 'timer', intervalSeconds: String(trigger.interval_seconds) };
    case 'source':
      return { ...BLANK_TRIGGER, kind: 'source', sourceId: trigger.source_id };
    case 'emit':
      return { ...BLANK_TRIGGER, kind: 'emit', workflowId: trigger.workflow_id };
    case 'manual':
      return { ...BLANK_TRIGGER, kind: 'manual' };
  }
}

/** A problem the builder finds before sending: the field it names and what is wrong. */
export class DraftError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
  }
}

/** The REST body; the server checks everything else (and names the field it refuses). */
export function specFromDraft(draft: WorkflowDraft): WorkflowSpecT {
  return {
    name: draft.name,
    active: draft.active,
    ...(draft.settings ? { settings: draft.settings } : {}),
    trigger: triggerSpec(draft.trigger),
    steps: draft.steps.map((step, index) => {
      if (step.kind === 'action') return { name: step.name, action: step.action, props: step.props };
      let props: unknown;
      try {
        props = JSON.parse(step.propsText || '{}');
      } catch {
        throw new DraftError(`steps.${index}.props`, 'is not JSON');
      }
      if (!props || typeof props !== 'object' || Array.isArray(props))
        throw new DraftError(`steps.${index}.props`, 'must be a JSON object');
      return { name: step.name, code: step.code, props: props as Record<string, unknown> };
    }),
  };
}

function triggerSpec(trigger: TriggerDraft): WorkflowSpecT['trigger'] {
  switch (trigger.kind) {
    case 'http':
      return { type: 'http', ...(trigger.customResponse ? { custom_response: true } : {}) };
    case 'timer':
      return { type: 'timer', interval_seconds: Number(trigger.intervalSeconds) };
    case 'cron':
      return { type: 'timer', cron: trigger.cron, ...(trigger.timezone ? { timezone: trigger.timezone } : {}) };
    case 'source':
      return { type: 'source', source_id: trigger.sourceId };
    case 'emit':
      return { type: 'emit', workflow_id: trigger.workflowId };
    case 'manual':
      return { type: 'manual' };
  }
}

export function moveStep(steps: readonly StepDraft[], index: number, by: -1 | 1): StepDraft[] {
  const next = [...steps];
  const target = index + by;
  if (target < 0 || target >= next.length) return next;
  [next[index], next[target]] = [next[target] as StepDraft, next[index] as StepDraft];
  return next;
}

/** A name no step has yet: step_2, step_3, … */
export function freshStepName(steps: readonly StepDraft[]): string {
  for (let n = steps.length + 1; ; n += 1) {
    const name = `step_${n}`;
    if (!steps.some((step) => step.name === name)) return name;
  }
}
