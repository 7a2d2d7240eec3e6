import { z } from 'zod';

const failed = {
  code: z.string(),
  message: z.string(),
  /** Epoch seconds. */
  at: z.number().int(),
};

/** A source invocation that failed (the component's error, a sandbox limit, or the platform). */
const SourceFailure = z.object({
  kind: z.literal('source'),
  source_id: z.string(),
  /** Null once the source is deleted. */
  source_name: z.string().nullable(),
  invocation_id: z.string(),
  ...failed,
});

/** A workflow run that failed at a step, or that the platform gave up on (`step` null). */
const WorkflowFailure = z.object({
  kind: z.literal('workflow'),
  workflow_id: z.string(),
  /** Null once the workflow is deleted. */
  workflow_name: z.string().nullable(),
  run_id: z.string(),
  step: z.string().nullable(),
  ...failed,
});

/** `GET /v1/status`: how the server is doing, for `tributary status` and the web app's Settings. */
export const ServerStatus = z.object({
  version: z.string(),
  /** Epoch seconds when the server started. */
  started_at: z.number().int(),
  uptime_seconds: z.number().int(),
  storage: z.enum(['sqlite', 'postgres']),
  ready: z.boolean(),
  /** Why `/readyz` fails (empty when ready). */
  not_ready: z.array(z.object({ check: z.enum(['database', 'runner', 'scheduler']), message: z.string() })),
  queue: z.array(
    z.object({
      kind: z.enum(['source', 'workflow', 'delivery']),
      depth: z.number().int(),
      oldest_age_seconds: z.number(),
    }),
  ),
  pool: z.object({ workers: z.number().int(), busy: z.number().int(), memory_bytes: z.number().int() }),
  /** The last failed source invocations and workflow runs of this process, newest first. */
  recent_failures: z.array(z.discriminatedUnion('kind', [SourceFailure, WorkflowFailure])),
});
export type ServerStatus = z.infer<typeof ServerStatus>;
