/**
 * Request and response shapes of the REST API (contract §9). The server validates every request
 * with these and builds `/v1/openapi.json` from them, so the document cannot drift from the code.
 * Requests are strict: an unknown field is an error, not silently ignored.
 */
import { z } from 'zod';

const configuredProps = z.record(z.string(), z.unknown()).describe('Prop values by prop name');

/** C0 controls, DEL and C1 controls (NUL included): a name is one line of readable text. */
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;
/** A UTF-16 surrogate without its pair: not text, and not storable as UTF-8. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** A name a person gives and reads (source, account, API key, app, workflow): 1–200 characters of text. */
export const DisplayName = z
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

/**
 * How an app authenticates, finer than `auth_type` (which stays `keys` / `oauth2` / `none`): the OAuth
 * grant the server runs, or whether the key an account holds is an API key or a user name and password.
 */
export const AppAuthMode = z.enum([
  'oauth2_authorization_code',
  'oauth2_client_credentials',
  'api_key',
  'basic',
  'none',
]);

const HttpsOrLoopbackUrl = z
  .string()
  .max(2000)
  .url()
  .refine((url) => /^https:\/\//.test(url) || /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:|\/|$)/.test(url), {
    message: 'an OAuth endpoint is https:// (http:// only on loopback)',
  });

/** An app's OAuth 2 endpoints: where users sign in and where the server trades codes and refresh tokens. */
export const AppOAuth = z.strictObject({
  /** null for the client-credentials grant, which has no user sign-in. */
  authorize_url: HttpsOrLoopbackUrl.nullable(),
  token_url: HttpsOrLoopbackUrl,
  /** Answers who the user is (`oauth_uid`); null when the provider has no such endpoint. */
  userinfo_url: HttpsOrLoopbackUrl.nullable().default(null),
  /** Checked against an id_token's `iss`; defaults to the token URL's origin. */
  issuer: z.string().max(2000).nullable().default(null),
  scopes: z.array(z.string().min(1).max(500)).max(100).default([]),
  scope_delimiter: z.string().min(1).max(3).default(' '),
  /** Extra query parameters of the sign-in URL a provider needs (Google's `access_type=offline` for a refresh token). */
  authorize_params: z.record(z.string().min(1).max(100), z.string().max(500)).optional(),
  /** How the client secret goes to the token endpoint: in the form body (default) or as HTTP Basic. */
  token_auth: z.enum(['client_secret_post', 'client_secret_basic']).optional(),
});

/** A cheap request that shows an account's credentials work. */
export const AppTestRequest = z.strictObject({
  method: z.literal('GET'),
  url: z.string().max(2000).url(),
  /**
   * Headers that carry the credentials, `{{field}}` standing for an account field (`Bearer {{api_key}}`).
   * Without them, OAuth accounts send their access token as a Bearer token and `basic` ones their user name and password.
   */
  headers: z.record(z.string().min(1).max(100), z.string().max(2000)).optional(),
});

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
  auth_mode: AppAuthMode,
  oauth: AppOAuth.nullable(),
  base_url: z.string().nullable(),
  test_request: AppTestRequest.nullable(),
  /** Where the entry comes from: the generated catalog (docs/app-catalog.md), the server's built-ins, or the operator. */
  origin: z.enum(['catalog', 'builtin', 'operator']),
  /** Whether the operator has given this app's OAuth client id and secret (settings or environment). */
  oauth_client: z.enum(['settings', 'environment']).nullable(),
});

/** What an operator's entry may add to `auth_type` and `fields` (all optional; docs/app-catalog.md). */
const AppDetails = {
  auth_mode: AppAuthMode.optional(),
  oauth: AppOAuth.nullable().optional(),
  base_url: z.string().max(2000).url().nullable().optional(),
  test_request: AppTestRequest.nullable().optional(),
};

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
    ...AppDetails,
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
      ...AppDetails,
    }),
  ),
});

export const AccountStatus = z.enum(['ok', 'needs_reconnect']);

/** A connected account; secret fields come back as "[REDACTED]". */
export const Account = z.object({
  id: z.string().describe('apn_ id'),
  app: z.string(),
  name: z.string(),
  fields: z.record(z.string(), z.string()),
  /** `needs_reconnect`: the provider refused a refresh; runs using the account fail until it is connected again. */
  status: AccountStatus,
  status_message: z.string().nullable(),
  /** OAuth accounts: when the access token expires, the scopes granted and who signed in; null for key-based ones. */
  oauth: z
    .object({
      expires_at: z.number().int().nullable(),
      scopes: z.array(z.string()),
      uid: z.string().nullable(),
    })
    .nullable(),
  created_at: z.number().int(),
  updated_at: z.number().int(),
});

/** One account with the deployed sources whose app props use it (they fail while it needs reconnecting). */
export const AccountDetail = Account.extend({
  used_by: z.array(z.object({ id: z.string(), name: z.string() })),
});

/** What `POST /v1/accounts/{id}/test` found: the app's test request answered, or the token refreshed, or why not. */
export const AccountTestResult = z.object({
  account: z.string(),
  app: z.string(),
  status: z.enum(['ok', 'needs_reconnect', 'error']),
  /** What was tried: the catalog's test request, a token refresh (no test request), or nothing (no way to check). */
  checked: z.enum(['test_request', 'refresh', 'none']),
  /** The test request's HTTP status, when it was sent and answered. */
  http_status: z.number().int().nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  tested_at: z.number().int(),
});

export const CreateAccountBody = z.strictObject({
  app: z.string().min(1).max(64),
  name: DisplayName.optional(),
  fields: z.record(z.string(), z.string().max(16_384)),
});

export const AccountsQuery = PageQuery.extend({ app: z.string().min(1).max(64).optional() });

export const DeletedAccount = z.object({
  id: z.string(),
  used_by: z.array(
    z.object({ id: z.string().describe('dc_ id of a source or wf_ id of a workflow'), name: z.string() }),
  ),
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

/** Body of `PUT /v1/apps/{slug}/oauth-client`: the operator's OAuth client at the provider. */
export const PutOAuthClientBody = z.strictObject({
  client_id: z.string().min(1).max(2000),
  client_secret: z.string().min(1).max(4000),
  /** Scopes asked for at sign-in instead of the catalog's defaults. */
  scopes: z.array(z.string().min(1).max(500)).max(100).optional(),
});

/** An app's OAuth client as the API shows it: never the secret. */
export const OAuthClient = z.object({
  app: z.string(),
  client_id: z.string(),
  scopes: z.array(z.string()),
  source: z.enum(['settings', 'environment']),
  /** Register this at the provider as the client's redirect URI. */
  redirect_uri: z.string(),
});

/** Body of `POST /v1/oauth/connect`: start connecting an account (or reconnecting `account`). */
export const StartConnectBody = z.strictObject({
  app: AppSlug,
  name: z.string().min(1).max(200).optional(),
  /** An existing account of the app to refresh with the new sign-in (e.g. one that needs reconnecting). */
  account: z.string().min(1).max(100).optional(),
});

/** A connect attempt: open `start_url` in a browser, then poll `GET /v1/oauth/connect/{state}`. */
export const ConnectAttempt = z.object({
  state: z.string(),
  app: z.string(),
  status: z.enum(['pending', 'connected', 'failed']),
  /** The server URL that binds the browser to this attempt and sends it to the provider; null once finished. */
  start_url: z.string().nullable(),
  redirect_uri: z.string(),
  account: z.string().nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  expires_at: z.number().int(),
});

export type AppAuthModeT = z.infer<typeof AppAuthMode>;
export type AppOAuthT = z.infer<typeof AppOAuth>;
export type AppTestRequestT = z.infer<typeof AppTestRequest>;
export type AccountTestResultT = z.infer<typeof AccountTestResult>;
export type AccountStatusT = z.infer<typeof AccountStatus>;
export type PutOAuthClientBodyT = z.infer<typeof PutOAuthClientBody>;
export type OAuthClientT = z.infer<typeof OAuthClient>;
export type StartConnectBodyT = z.infer<typeof StartConnectBody>;
export type ConnectAttemptT = z.infer<typeof ConnectAttempt>;
