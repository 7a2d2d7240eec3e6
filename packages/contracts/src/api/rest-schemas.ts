/**
 * Request and response shapes of the REST API (contract §9). The server validates every request
 * with these and builds `/v1/openapi.json` from them, so the document cannot drift from the code.
 * Requests are strict: an unknown field is an error, not silently ignored.
 */
import { z } from 'zod';

const configuredProps = z.record(z.string(), z.unknown()).describe('Prop values by prop name');

/** C0 controls and DEL (NUL included): a name is one line of readable text. */
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;
/** A UTF-16 surrogate without its pair: not text, and not storable as UTF-8. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** A name a person gives and reads (source, account, API key, app): 1–200 characters of text. */
const DisplayName = z
  .string()
  .min(1)
  .max(200)
  .refine((value) => !CONTROL_CHARACTER.test(value), 'a name may not contain control characters (NUL, newline, ...)')
  .refine((value) => !LONE_SURROGATE.test(value), 'a name may not contain a lone UTF-16 surrogate');

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
    name: DisplayName.optional(),
    configured_props: configuredProps.optional(),
  })
  .refine(
    (body) =>
      [body.component_id, body.component_code, body.component_key, body.component_url].some(
        (value) => value !== undefined,
      ),
    { message: 'give one of component_id, component_code, component_key or component_url', path: ['component_code'] },
  );

export const UpdateSourceBody = z.strictObject({
  component_id: z.string().min(1).optional(),
  component_code: z.string().min(1).optional(),
  component_key: z.string().min(1).optional(),
  component_url: z.string().min(1).optional(),
  name: DisplayName.optional(),
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

export const DeleteEventsQuery = z.strictObject({
  start_id: z.string().min(1).optional(),
  end_id: z.string().min(1).optional(),
});

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
  next_run_at: z
    .number()
    .int()
    .nullable()
    .describe('When the timer fires next (epoch seconds); null without a timer or while inactive'),
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

/**
 * An invocation that failed in the platform (not in the component's code) on every attempt, kept
 * until it is retried or deleted (docs/server.md, "Retries and dead letters"). Times in epoch seconds.
 */
export const DeadLetter = z.object({
  id: z.string(),
  source_id: z.string(),
  trigger: z.enum(['http', 'timer', 'manual']),
  event: z.unknown(),
  attempts: z.number().int(),
  last_error: z.string(),
  created_at: z.number().int(),
  failed_at: z.number().int(),
});

export const DeadLettersQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(10),
  /** The next page: dead letters that failed before this one (its id). */
  before: z.string().min(1).optional(),
  /** Only this source's (id, name slug or name). */
  source_id: z.string().min(1).optional(),
});

/** `{ data: T }`, the single-object envelope. */
export function single<T extends z.ZodType>(schema: T) {
  return z.object({ data: schema });
}

/** `{ page_info, data: T[] }`, the list envelope. */
export function list<T extends z.ZodType>(schema: T) {
  return z.object({ page_info: PageInfo, data: z.array(schema) });
}

// ---- Issue 5/6 additions: app catalog, connected accounts, configure/props, actions, API keys ----

/** An app's slug: lowercase letters, digits, `_` and `-`, as in an app file's `app:` field. */
export const AppSlug = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9][a-z0-9_-]*$/, 'an app slug is lowercase letters, digits, "_" and "-"');

export const AppAuthType = z.enum(['keys', 'oauth2', 'none']);

export const AppField = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a field name is a JavaScript identifier'),
  label: z.string().min(1).max(200),
  secret: z.boolean(),
  optional: z.boolean(),
  description: z.string().max(2000).nullable(),
});

/** An app catalog entry: how an app authenticates and which fields an account of it holds. */
export const App = z.object({
  slug: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  auth_type: AppAuthType,
  fields: z.array(AppField),
});

/** Body of `PUT /v1/apps/{slug}`; also one entry (plus `slug`) of an `--apps-file`. */
export const PutAppBody = z
  .strictObject({
    name: DisplayName,
    description: z.string().max(2000).nullable().optional(),
    auth_type: AppAuthType,
    fields: z
      .array(
        AppField.extend({
          secret: z.boolean().default(false),
          optional: z.boolean().default(false),
          description: z.string().max(2000).nullable().default(null),
        }),
      )
      .max(50),
  })
  .refine((body) => new Set(body.fields.map((field) => field.name)).size === body.fields.length, {
    message: 'field names must be unique',
    path: ['fields'],
  });

/** The `--apps-file` / `TRIBUTARY_APPS_FILE` format: `{ "apps": [{ slug, name, ... }] }`. */
export const AppsFile = z.strictObject({
  apps: z.array(
    z.strictObject({
      slug: AppSlug,
      name: DisplayName,
      description: z.string().max(2000).nullable().optional(),
      auth_type: AppAuthType,
      fields: z
        .array(
          AppField.extend({
            secret: z.boolean().default(false),
            optional: z.boolean().default(false),
            description: z.string().max(2000).nullable().default(null),
          }),
        )
        .max(50),
    }),
  ),
});

/** A connected account; secret fields come back as "[REDACTED]". */
export const Account = z.object({
  id: z.string().describe('apn_ id'),
  app: z.string(),
  name: z.string(),
  fields: z.record(z.string(), z.string()),
  created_at: z.number().int(),
  updated_at: z.number().int(),
});

export const CreateAccountBody = z.strictObject({
  app: z.string().min(1).max(64),
  name: DisplayName.optional(),
  fields: z.record(z.string(), z.string().max(16_384)),
});

export const AccountsQuery = PageQuery.extend({ app: z.string().min(1).max(64).optional() });

export const DeletedAccount = z.object({
  id: z.string(),
  used_by: z.array(z.object({ id: z.string().describe('dc_ id'), name: z.string() })),
});

/** An app prop's configured value: the connected account it uses. */
export const AuthProvision = z.strictObject({ authProvisionId: z.string().min(1) });

export const ConfigureComponentBody = z.strictObject({
  id: z.string().min(1).describe('sc_ id or registry key'),
  prop_name: z.string().min(1),
  configured_props: configuredProps.optional(),
  page: z.number().int().min(0).max(10_000).optional(),
  prev_context: z.record(z.string(), z.unknown()).optional(),
  query: z.string().max(1000).optional(),
});

const Observation = z.object({ level: z.string(), message: z.string(), ts: z.number() });

export const ConfigureComponentResult = z.object({
  options: z.array(z.object({ label: z.string(), value: z.unknown() })),
  string_options: z.array(z.string()).nullable(),
  context: z.record(z.string(), z.unknown()).nullable(),
  errors: z.array(z.string()),
  observations: z.array(Observation),
});

export const ReloadPropsBody = z
  .strictObject({
    id: z.string().min(1).optional().describe('sc_ id or registry key'),
    component_code: z
      .string()
      .min(1)
      .optional()
      .describe('code not saved yet (an edit before saving), validated as a deploy would, in place of id'),
    configured_props: configuredProps.optional(),
  })
  .refine((body) => (body.id === undefined) !== (body.component_code === undefined), {
    message: 'give exactly one of id and component_code',
    path: ['id'],
  });

export const ReloadPropsResult = z.object({
  dynamic_props: z.object({ configurable_props: z.array(z.record(z.string(), z.unknown())) }),
  errors: z.array(z.string()),
  observations: z.array(Observation),
});

export const RunActionBody = z.strictObject({
  id: z.string().min(1).describe('sc_ id or registry key'),
  configured_props: configuredProps.optional(),
  timeout_seconds: z.number().int().min(1).max(300).optional(),
});

/** An emit's metadata: the runtime's fields; extra ones are kept. */
const Metadata = z.looseObject({
  id: z.union([z.string(), z.number()]).optional(),
  name: z.string(),
  summary: z.string(),
  ts: z.number(),
});

/** Exactly the object `tributary run --json` prints locally (docs/cli.md). */
export const RunReport = z.object({
  ok: z.boolean(),
  type: z.enum(['source', 'action']).nullable(),
  return_value: z.unknown(),
  exports: z.record(z.string(), z.unknown()),
  summary: z.string().nullable(),
  emits: z.array(z.object({ event: z.unknown(), metadata: Metadata })),
  deduped: z.array(z.object({ event: z.unknown(), metadata: Metadata, reason: z.string() })),
  logs: z.array(z.object({ level: z.string(), message: z.string() })),
  exit: z.object({ reason: z.string().nullable() }).nullable(),
  response: z
    .object({ status: z.number().int(), headers: z.record(z.string(), z.string()), body: z.string().nullable() })
    .nullable(),
  sends: z.array(
    z.object({
      kind: z.string(),
      config: z.record(z.string(), z.unknown()),
      /** Over the server: how the send's delivery stands when the run answers (docs/destinations.md). */
      delivery: z
        .object({
          id: z.string(),
          run_id: z.string(),
          status: z.enum(['pending', 'delivering', 'delivered', 'failed']),
          attempts: z.number().int(),
          last_error: z.string().nullable(),
          next_attempt_at: z.number().int().nullable(),
        })
        .optional(),
    }),
  ),
  hooks: z.array(z.object({ name: z.string(), ok: z.boolean() })),
  warnings: z.array(
    z.object({ rule: z.string(), message: z.string(), prop: z.string().optional(), field: z.string().optional() }),
  ),
  error: z
    .object({ code: z.string(), message: z.string(), rule: z.string().optional(), stack: z.string().optional() })
    .nullable(),
});

export const ApiKey = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  created_at: z.number().int(),
  last_used_at: z.number().int().nullable(),
  revoked_at: z.number().int().nullable(),
});

export const CreatedApiKey = ApiKey.extend({ key: z.string().describe('the full key, shown only once') });

export const CreateApiKeyBody = z.strictObject({ name: DisplayName });

export type SavedComponentT = z.infer<typeof SavedComponent>;
export type DeployedSourceT = z.infer<typeof DeployedSource>;
export type EventSummaryT = z.infer<typeof EventSummary>;
export type LogEntryT = z.infer<typeof LogEntry>;
export type PageInfoT = z.infer<typeof PageInfo>;
export type ErrorBodyT = z.infer<typeof ErrorBody>;
export type UserT = z.infer<typeof User>;
export type AppT = z.infer<typeof App>;
export type AppFieldT = z.infer<typeof AppField>;
export type AppAuthTypeT = z.infer<typeof AppAuthType>;
export type PutAppBodyT = z.input<typeof PutAppBody>;
export type AppsFileT = z.input<typeof AppsFile>;
export type AccountT = z.infer<typeof Account>;
export type CreateAccountBodyT = z.infer<typeof CreateAccountBody>;
export type DeletedAccountT = z.infer<typeof DeletedAccount>;
export type ConfigureComponentBodyT = z.infer<typeof ConfigureComponentBody>;
export type ConfigureComponentResultT = z.infer<typeof ConfigureComponentResult>;
export type ReloadPropsBodyT = z.infer<typeof ReloadPropsBody>;
export type ReloadPropsResultT = z.infer<typeof ReloadPropsResult>;
export type RunActionBodyT = z.infer<typeof RunActionBody>;
export type RunReportT = z.infer<typeof RunReport>;
export type ApiKeyT = z.infer<typeof ApiKey>;
export type CreatedApiKeyT = z.infer<typeof CreatedApiKey>;
export type CreateApiKeyBodyT = z.infer<typeof CreateApiKeyBody>;

// ---- Issue 10: subscriptions and their webhook deliveries ----

/** `POST`/`DELETE /v1/subscriptions` query (Pipedream's shape): one of listener_id and listener_url. */
export const SubscriptionQuery = z.strictObject({
  emitter_id: z.string().min(1).max(200),
  listener_id: z.string().max(200).optional(),
  listener_url: z.string().max(2048).optional(),
  /** The channel (`metadata.name` of the emits); empty or absent: the default channel. */
  event_name: z.string().max(128).optional(),
});

export const Subscription = z.object({
  id: z.string(),
  emitter_id: z.string(),
  listener_id: z.string().nullable(),
  listener_url: z.string().nullable(),
  event_name: z.string(),
  created_at: z.number().int(),
  /** Only in the answer that created a webhook subscription: the key its signatures are made with. */
  secret: z.string().optional(),
});

/** One attempt of a delivery. */
export const DeliveryAttempt = z.object({
  attempt: z.number().int(),
  at: z.number().int(),
  duration_ms: z.number().int(),
  ok: z.boolean(),
  detail: z.string(),
});

/** A delivery (a `$.send.*` call or a webhook POST), its configuration's secrets redacted. */
export const Delivery = z.object({
  id: z.string(),
  kind: z.enum(['http', 'email', 's3', 'emit', 'sse', 'webhook']),
  run_id: z.string(),
  step_name: z.string().nullable(),
  subscription_id: z.string().nullable(),
  target: z.string(),
  config: z.record(z.string(), z.unknown()),
  status: z.enum(['pending', 'delivering', 'delivered', 'failed']),
  attempts: z.number().int(),
  max_attempts: z.number().int(),
  last_error: z.string().nullable(),
  next_attempt_at: z.number().int().nullable(),
  created_at: z.number().int(),
  delivered_at: z.number().int().nullable(),
  log: z.array(DeliveryAttempt),
});

export const DeliveriesQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(10),
  /** The next page: deliveries queued before this one (its id). */
  before: z.string().min(1).optional(),
});

/** `GET /v1/deliveries?run_id=`: every delivery of one run, in the order its sends were made. */
export const DeliveriesByRunQuery = z.strictObject({ run_id: z.string().min(1).max(200) });
