/**
 * Workflows (issue 10): the workflow file (docs/workflows.md) and the REST shapes of
 * `/v1/workflows`. The file and the REST body are the same object, so a file the CLI reads is sent
 * as it is (once its local step files are read into `code`).
 */
import { z } from 'zod';
import { Delivery, DisplayName } from './rest-schemas.js';

/** A step name: used as `steps.<name>` in expressions, so it must be a JavaScript identifier. */
export const StepName = z
  .string()
  .regex(/^[A-Za-z_$][A-Za-z0-9_$]{0,63}$/, 'a step name is a JavaScript identifier of 1–64 characters')
  .refine((name) => name !== 'trigger', '"trigger" is the name of the trigger, not of a step')
  // `steps.__proto__` or `steps.constructor` would reach Object.prototype, not a step.
  .refine(
    (name) => !(name in Object.prototype),
    'a step name may not be a name every object has (__proto__, constructor, toString, ...)',
  );

const Interval = z.strictObject({
  type: z.literal('timer'),
  interval_seconds: z.number().int().min(1).max(31_536_000),
});
const Cron = z.strictObject({
  type: z.literal('timer'),
  cron: z.string().min(1).max(200),
  timezone: z.string().min(1).max(100).optional(),
});

export const WorkflowTrigger = z.union([
  z.strictObject({
    type: z.literal('http'),
    /** The run answers the request with `$.respond()` (30 s, then 504) instead of 202 at once. */
    custom_response: z.boolean().optional(),
  }),
  Interval,
  Cron,
  /** Each event the deployed source emits (after its dedupe) starts a run. */
  z.strictObject({ type: z.literal('source'), source_id: z.string().min(1) }),
  /** Each `$.send.emit(event)` of a step of that workflow starts a run with the event. */
  z.strictObject({ type: z.literal('emit'), workflow_id: z.string().min(1) }),
  /** Only RUN NOW or replays start runs. */
  z.strictObject({ type: z.literal('manual') }),
]);

export const WorkflowStep = z
  .strictObject({
    name: StepName,
    /** A registry key, or the `sc_` id of a saved component (an action). */
    action: z.string().min(1).max(200).optional(),
    /** A code step: `export default defineComponent({ props, async run({ steps, $ }) {...} })`. */
    code: z.string().min(1).max(1_048_576).optional(),
    /** CLI only: a local file, read into `code` before the workflow is sent or run. */
    file: z.string().min(1).max(1000).optional(),
    /** Prop values; a string may be an expression, `{{ steps.trigger.event.body }}`. */
    props: z.record(z.string(), z.unknown()).optional(),
  })
  .refine((step) => [step.action, step.code, step.file].filter((value) => value !== undefined).length === 1, {
    message: 'a step has exactly one of action, code or file',
    path: ['action'],
  });

export const WorkflowSettings = z.strictObject({
  /** Runs of this workflow at once; absent: no limit. */
  concurrency: z.number().int().min(1).max(100).optional(),
  /** Runs kept per workflow; older ones are dropped (default 1,000). */
  keep_runs: z.number().int().min(1).max(100_000).optional(),
});

export const WorkflowSpec = z.strictObject({
  name: DisplayName,
  active: z.boolean().optional(),
  settings: WorkflowSettings.optional(),
  trigger: WorkflowTrigger,
  steps: z.array(WorkflowStep).min(1).max(100),
});

export const CreateWorkflowBody = WorkflowSpec;
export const UpdateWorkflowBody = WorkflowSpec;

export const RunStatus = z.enum(['queued', 'running', 'delayed', 'succeeded', 'exited', 'failed', 'cancelled']);

export const Workflow = z.object({
  id: z.string(),
  name: z.string(),
  active: z.boolean(),
  version: z.number().int(),
  spec: WorkflowSpec,
  /** The `/e/...` URL when the trigger is `http`. */
  endpoint_url: z.string().nullable(),
  /** Runs dropped so far to keep the last `keep_runs`. */
  runs_dropped: z.number().int(),
  /** The newest run (`created_at` in epoch ms), or null before the first. */
  last_run: z.object({ id: z.string(), status: RunStatus, created_at: z.number().int() }).nullable(),
  created_at: z.number().int(),
  updated_at: z.number().int(),
});

export const StepStatus = z.enum(['pending', 'running', 'succeeded', 'failed', 'skipped', 'delayed']);

export const StepRun = z.object({
  name: z.string(),
  status: StepStatus,
  /** Props after expressions were evaluated; secret props are `"[REDACTED]"`. */
  props: z.record(z.string(), z.unknown()).nullable(),
  return_value: z.unknown(),
  exports: z.record(z.string(), z.unknown()),
  logs: z.array(z.object({ level: z.string(), message: z.string(), ts: z.number() })),
  sends: z.array(z.object({ kind: z.string(), config: z.record(z.string(), z.unknown()) })),
  error: z.object({ code: z.string(), message: z.string(), stack: z.string().optional() }).nullable(),
  duration_ms: z.number().nullable(),
  started_at: z.number().nullable(),
});

export const WorkflowRun = z.object({
  id: z.string(),
  workflow_id: z.string(),
  version: z.number().int(),
  trigger: z.enum(['http', 'timer', 'source', 'manual', 'emit', 'replay']),
  status: RunStatus,
  event: z.unknown(),
  steps: z.array(StepRun),
  exit: z.object({ reason: z.string().nullable() }).nullable(),
  error: z.object({ code: z.string(), message: z.string(), step: z.string().nullable() }).nullable(),
  /** When a delayed run resumes (epoch ms). */
  resume_at: z.number().nullable(),
  created_at: z.number().int(),
  finished_at: z.number().nullable(),
});

/** One run as `GET /v1/workflow-runs/{id}` answers it: with its steps' deliveries, in send order. */
export const WorkflowRunDetail = WorkflowRun.extend({ deliveries: z.array(Delivery) });

export const RunWorkflowBody = z.strictObject({ event: z.unknown().optional() });
export const TestStepBody = z.strictObject({
  /** The trigger event the step sees as `steps.trigger.event`. */
  event: z.unknown().optional(),
  /** What earlier steps returned, as `{ name: { $return_value, ...exports } }`. */
  steps: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
});
export const WorkflowRunsQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  before: z.string().optional(),
  /** Only runs in this status; `page_info.total_count` then counts only those. */
  status: RunStatus.optional(),
});

export const StartedRun = z.object({ run_id: z.string() });

export type WorkflowSpecT = z.infer<typeof WorkflowSpec>;
export type WorkflowStepT = z.infer<typeof WorkflowStep>;
export type WorkflowTriggerT = z.infer<typeof WorkflowTrigger>;
export type WorkflowT = z.infer<typeof Workflow>;
export type WorkflowRunT = z.infer<typeof WorkflowRun>;
export type WorkflowRunDetailT = z.infer<typeof WorkflowRunDetail>;
export type StepRunT = z.infer<typeof StepRun>;
export type RunStatusT = z.infer<typeof RunStatus>;
export type StepStatusT = z.infer<typeof StepStatus>;
