import { z } from 'zod';

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
  /** The last failed invocations of this process, newest first. */
  recent_failures: z.array(
    z.object({
      source_id: z.string(),
      /** Null once the source is deleted. */
      source_name: z.string().nullable(),
      invocation_id: z.string(),
      code: z.string(),
      message: z.string(),
      /** Epoch seconds. */
      at: z.number().int(),
    }),
  ),
});
export type ServerStatus = z.infer<typeof ServerStatus>;
