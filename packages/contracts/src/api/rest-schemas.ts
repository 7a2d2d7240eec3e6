/**
 * Request and response shapes of the REST API (contract §9). The server validates every request
 * with these and builds `/v1/openapi.json` from them, so the document cannot drift from the code.
 * Requests are strict: an unknown field is an error, not silently ignored.
 */
import { z } from 'zod';

const configuredProps = z.record(z.string(), z.unknown()).describe('Prop values by prop name');

export const SaveComponentBody = z
  .strictObject({
    component_code: z.string().min(1).optional(),
    component_url: z.string().min(1).optional(),
  })
  .refine((body) => body.component_code !== undefined || body.component_url !== undefined, {
    message: 'give component_code or component_url',
    path: ['component_code'],
  });

export const PublishComponentBody = SaveComponentBody;

export const DeploySourceBody = z
  .strictObject({
    component_id: z.string().min(1).optional(),
    component_code: z.string().min(1).optional(),
    component_key: z.string().min(1).optional(),
    component_url: z.string().min(1).optional(),
    name: z.string().min(1).max(200).optional(),
    configured_props: configuredProps.optional(),
  })
  .refine(
    (body) => [body.component_id, body.component_code, body.component_key, body.component_url].some((value) => value !== undefined),
    { message: 'give one of component_id, component_code, component_key or component_url', path: ['component_code'] },
  );

export const UpdateSourceBody = z.strictObject({
  component_id: z.string().min(1).optional(),
  component_code: z.string().min(1).optional(),
  component_key: z.string().min(1).optional(),
  component_url: z.string().min(1).optional(),
  name: z.string().min(1).max(200).optional(),
  active: z.boolean().optional(),
  configured_props: configuredProps.optional(),
});

export const RunSourceBody = z.strictObject({ event: z.unknown().optional() });

export const PageQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(10),
  before: z.string().min(1).optional(),
  after: z.string().min(1).optional(),
});

export const EventsQuery = PageQuery.extend({ expand: z.enum(['event']).optional() });

export const DeleteEventsQuery = z.strictObject({ start_id: z.string().min(1).optional(), end_id: z.string().min(1).optional() });

export const DeleteSourceQuery = z.strictObject({ force: z.enum(['true', 'false']).optional() });

export const SavedComponent = z.object({
  id: z.string(),
  key: z.string().nullable(),
  name: z.string().nullable(),
  version: z.string().nullable(),
  description: z.string().nullable(),
  component_type: z.enum(['source', 'action']),
  code: z.string(),
  code_hash: z.string(),
  configurable_props: z.array(z.record(z.string(), z.unknown())),
  created_at: z.number().int(),
  updated_at: z.number().int(),
});

export const DeployedSource = z.object({
  id: z.string(),
  owner_id: z.string(),
  component_id: z.string(),
  component_key: z.string().nullable(),
  configured_props: z.record(z.string(), z.unknown()),
  active: z.boolean(),
  name: z.string(),
  name_slug: z.string(),
  endpoint_url: z.string().nullable(),
  created_at: z.number().int(),
  updated_at: z.number().int(),
});

export const EventSummary = z.object({
  id: z.string(),
  indexed_at_ms: z.number().int(),
  event: z.unknown(),
  metadata: z.record(z.string(), z.unknown()),
});

export const LogEntry = z.object({
  id: z.string(),
  ts: z.number().int(),
  level: z.enum(['info', 'warn', 'error']),
  message: z.string(),
  invocation_id: z.string().nullable(),
});

export const PageInfo = z.object({
  total_count: z.number().int(),
  count: z.number().int(),
  start_cursor: z.string().nullable(),
  end_cursor: z.string().nullable(),
});

export const ErrorBody = z.object({
  error: z.object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()).optional() }),
});

export const User = z.object({ id: z.string(), username: z.string(), email: z.string().nullable() });

export const Invocation = z.object({ invocation_id: z.string() });

/** `{ data: T }`, the single-object envelope. */
export function single<T extends z.ZodType>(schema: T) {
  return z.object({ data: schema });
}

/** `{ page_info, data: T[] }`, the list envelope. */
export function list<T extends z.ZodType>(schema: T) {
  return z.object({ page_info: PageInfo, data: z.array(schema) });
}
