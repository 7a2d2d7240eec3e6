/**
 * The one registry of error codes a user can meet. Throw sites pick a code; status, category and
 * CLI exit code come from here, never from the throw site. `docs/errors.md` lists every code and a
 * test keeps the two in step. Retired codes are never reused.
 */

/** `user`: bad input or a broken rule. `component`: the author's code failed at run time. `internal`: a bug. */
export type ErrorCategory = 'user' | 'component' | 'internal';

interface ErrorCodeEntry {
  readonly status: number;
  readonly category: ErrorCategory;
  readonly description: string;
}

export const ERROR_CODES = {
  USAGE_ERROR: {
    status: 400,
    category: 'user',
    description: 'A command was called with missing or malformed arguments or flags.',
  },
  FILE_NOT_FOUND: {
    status: 404,
    category: 'user',
    description: 'The component file (or a file it imports) does not exist.',
  },
  COMPONENT_SYNTAX_ERROR: {
    status: 400,
    category: 'user',
    description: 'The component does not parse; the message gives file, line and column.',
  },
  MIXED_MODULE_FORMAT: {
    status: 400,
    category: 'user',
    description: 'One module mixes ESM (`import`/`export`) with CommonJS (`require`/`module.exports`).',
  },
  COMPONENT_LOAD_FAILED: {
    status: 400,
    category: 'user',
    description: 'Evaluating the component module threw before its definition could be read.',
  },
  PACKAGE_NOT_FOUND: {
    status: 400,
    category: 'user',
    description: 'A bare import names an npm package that is not available to the component.',
  },
  PACKAGE_INSTALL_FAILED: {
    status: 400,
    category: 'user',
    description:
      'Installing the npm packages a component imports failed; the message names the package and the reason.',
  },
  COMPONENT_INVALID: {
    status: 400,
    category: 'user',
    description: 'The component breaks a validation rule (C1–C17, P1–P13); `rule` names it.',
  },
  WRONG_COMPONENT_TYPE: {
    status: 400,
    category: 'user',
    description: 'A source was expected and an action was given, or the other way round.',
  },
  URL_REFUSED: {
    status: 400,
    category: 'user',
    description:
      'A component URL is not http(s), points at a private or loopback address, or could not be fetched within the limits.',
  },
  PROP_REQUIRED: {
    status: 400,
    category: 'user',
    description: 'A required prop has no configured value and no default.',
  },
  PROP_INVALID: {
    status: 400,
    category: 'user',
    description: 'A configured prop value has the wrong type, is out of range or is not an allowed option.',
  },
  PROP_TOO_LARGE: {
    status: 400,
    category: 'user',
    description: 'A configured prop value is larger than 64 KB once serialized (rule P14).',
  },
  PROP_UNKNOWN: {
    status: 400,
    category: 'user',
    description: 'A value was given for a prop the component does not declare.',
  },
  PROP_HAS_NO_OPTIONS: {
    status: 400,
    category: 'user',
    description: 'Options were asked for a prop that has neither static nor async options.',
  },
  EVENT_INVALID: {
    status: 400,
    category: 'user',
    description: 'The event given to a source run is not a JSON value, or is given to an action.',
  },
  STATE_INVALID: {
    status: 400,
    category: 'user',
    description: 'A local state directory holds a file Tributary cannot read.',
  },
  HOOK_FAILED: {
    status: 400,
    category: 'component',
    description: 'A deploy, activate or deactivate hook threw or timed out; the operation was not applied.',
  },
  COMPONENT_ERROR: {
    status: 500,
    category: 'component',
    description: "The component's own code threw.",
  },
  CONFIGURATION_ERROR: {
    status: 400,
    category: 'component',
    description: 'The component threw a `ConfigurationError`: a setup problem the user can fix.',
  },
  TIMEOUT: {
    status: 504,
    category: 'component',
    description: 'The invocation did not finish before its deadline.',
  },
  EMIT_INVALID: {
    status: 500,
    category: 'component',
    description: '`$emit` got a payload or metadata it cannot store (not JSON, reserved channel, bad id).',
  },
  DB_VALUE_INVALID: {
    status: 500,
    category: 'component',
    description: '`db.set` got a value that is not JSON-serializable.',
  },
  DB_SIZE_EXCEEDED: {
    status: 500,
    category: 'component',
    description: 'The source key-value store would grow past its size limit (60 KB).',
  },
  RESPOND_INVALID: {
    status: 500,
    category: 'component',
    description: '`http.respond` or `$.respond` got a status outside 100–599 or a body it cannot send.',
  },
  SEND_INVALID: {
    status: 500,
    category: 'component',
    description: 'A `$.send.*` call got a configuration the destination rejects.',
  },
  DESTINATION_INVALID: {
    status: 400,
    category: 'user',
    description:
      "A `$.send.*` destination cannot be delivered with this configuration: a URL that is not http(s) or reaches a private address, email without the operator's SMTP settings, s3 without an endpoint or with a bucket name S3 refuses.",
  },
  SUBSCRIPTION_INVALID: {
    status: 400,
    category: 'user',
    description:
      'A subscription names both or neither of `listener_id` and `listener_url`, an emitter or listener that cannot subscribe, or a listener URL that is not http(s).',
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    category: 'component',
    description: 'Logs, events, exports and return value of one invocation passed the 6 MB payload limit.',
  },
  OUT_OF_MEMORY: {
    status: 500,
    category: 'component',
    description: "The component's worker process went over its memory cap and was stopped.",
  },
  CRASHED: {
    status: 500,
    category: 'component',
    description: "The component's worker process exited during an invocation (process.exit, a fatal error, a signal).",
  },
  NOT_SUPPORTED: {
    status: 500,
    category: 'component',
    description: 'The component called a platform API that Tributary does not provide.',
  },
  UNAUTHORIZED: {
    status: 401,
    category: 'user',
    description: 'The request has no API key, or one that is not valid.',
  },
  PACKAGE_HAS_NO_COMPONENTS: {
    status: 400,
    category: 'user',
    description: 'An npm package given to the registry import holds no action or source component.',
  },
  REGISTRY_KEY_TAKEN: {
    status: 409,
    category: 'user',
    description:
      'A registry key is already published by another npm package (or on its own); the message names the owner.',
  },
  CSRF_HEADER_MISSING: {
    status: 403,
    category: 'user',
    description:
      'A state-changing request signed in with the browser session cookie did not send the X-Tributary-Client header (CSRF defence).',
  },
  NOT_FOUND: {
    status: 404,
    category: 'user',
    description: 'No component, source, event or route with that id, key or name.',
  },
  VERSION_CONFLICT: {
    status: 409,
    category: 'user',
    description: 'That key is already published at that version with different code (rule C7): bump the version.',
  },
  NAME_CONFLICT: {
    status: 409,
    category: 'user',
    description: 'A name or key is already taken, or a name matches several sources or workflows.',
  },
  SOURCE_BUSY: {
    status: 409,
    category: 'user',
    description:
      'An update found the source running in another process, which did not stop its run within the wait (stop requests reach other processes through Redis); nothing changed: retry.',
  },
  VALIDATION_FAILED: {
    status: 400,
    category: 'user',
    description:
      'A request body or query is malformed: not JSON, unknown fields, wrong types; `details.issues` lists each.',
  },
  BODY_TOO_LARGE: {
    status: 413,
    category: 'user',
    description: 'A request body is larger than the route allows (512 KB for HTTP endpoints).',
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    category: 'user',
    description:
      'A request body has a content type the route does not take (JSON for the API; no file uploads to endpoints).',
  },
  HEADERS_TOO_LARGE: {
    status: 431,
    category: 'user',
    description: "A request's headers (cookies included) are larger than the server's 16 KB limit.",
  },
  REQUEST_TIMEOUT: {
    status: 408,
    category: 'user',
    description: 'A request was not received in full within the time the server allows.',
  },
  MALFORMED_REQUEST: {
    status: 400,
    category: 'user',
    description: 'A request is not valid HTTP/1.1: an unknown method, a broken request line or header.',
  },
  RATE_LIMITED: {
    status: 429,
    category: 'user',
    description:
      'An HTTP endpoint got more requests than its rate limit allows (10/s, bursts of 50); retry after the Retry-After seconds.',
  },
  SERVER_UNREACHABLE: {
    status: 502,
    category: 'user',
    description: 'The CLI could not reach the Tributary server at the API URL (not running, wrong URL, network down).',
  },
  EGRESS_UNENFORCEABLE: {
    status: 503,
    category: 'user',
    description:
      'Components cannot run: the egress policy needs bubblewrap network namespaces, which this machine does not give (install bubblewrap, or set TRIBUTARY_EGRESS=open).',
  },
  SANDBOX_WORKER_STALE: {
    status: 503,
    category: 'user',
    description:
      'Components cannot run: the sandbox worker bundle speaks another protocol version than the host (built from other code); run `npm run build`.',
  },
  SSE_CLIENT_TOO_SLOW: {
    status: 503,
    category: 'user',
    description:
      'An SSE client read more slowly than its stream was written: past the buffer limit the server closed the stream (reconnect with Last-Event-ID).',
  },
  REDIS_UNREACHABLE: {
    status: 503,
    category: 'user',
    description:
      'The server could not connect to the Redis at TRIBUTARY_REDIS_URL when it started (not running, wrong URL, auth).',
  },
  DATABASE_UNREACHABLE: {
    status: 503,
    category: 'user',
    description:
      'The server could not reach its PostgreSQL database at start (TRIBUTARY_DATABASE_URL: wrong host, port, database or credentials, or the database is down).',
  },
  DATABASE_NOT_WRITABLE: {
    status: 503,
    category: 'user',
    description:
      'The PostgreSQL user of TRIBUTARY_DATABASE_URL may not create or change the tables at start (it should own the database, or have CREATE on its schema).',
  },
  WORKFLOW_STEP_REFERENCE: {
    status: 400,
    category: 'user',
    description: 'A workflow step refers to a step that does not exist or comes later (`steps.<name>`).',
  },
  WORKFLOW_DUPLICATE_STEP: {
    status: 400,
    category: 'user',
    description: 'Two steps of a workflow have the same name.',
  },
  WORKFLOW_EXPRESSION_INVALID: {
    status: 400,
    category: 'user',
    description:
      'A `{{ ... }}` prop expression does not parse, or threw when the run evaluated it; the message names the step and the prop.',
  },
  WORKFLOW_COMPONENT_UNKNOWN: {
    status: 400,
    category: 'user',
    description:
      'A workflow step names a registry key or saved component that does not exist, or one that is not an action.',
  },
  WORKFLOW_RUN_NOT_DELAYED: {
    status: 409,
    category: 'user',
    description: 'Only a run waiting on `$.flow.delay` can be cancelled; this one is not.',
  },
  OAUTH_NOT_CONFIGURED: {
    status: 400,
    category: 'user',
    description:
      'The app cannot connect through OAuth: it has no OAuth endpoints in the catalog, or the operator has not given its client id and secret (settings or TRIBUTARY_OAUTH_<SLUG>_CLIENT_ID/SECRET).',
  },
  OAUTH_STATE_INVALID: {
    status: 400,
    category: 'user',
    description:
      'An OAuth redirect came back with a `state` that is unknown, expired, already used, or started in another browser; start connecting again.',
  },
  OAUTH_ACCESS_DENIED: {
    status: 400,
    category: 'user',
    description:
      'The provider sent the user back with an error instead of a code (the user refused, or the provider rejected the request); the message quotes the error the provider gave.',
  },
  OAUTH_PROVIDER_ERROR: {
    status: 502,
    category: 'user',
    description:
      "The provider's token endpoint refused the request (a wrong client secret, a code or refresh token it does not accept) or answered with something that is not an OAuth JSON answer, such as an HTML page.",
  },
  ACCOUNT_NEEDS_RECONNECT: {
    status: 409,
    category: 'user',
    description:
      "The provider refused to refresh a connected account's token; runs that use the account fail until it is connected again (the message names the account).",
  },
  ACCOUNT_TEST_FAILED: {
    status: 502,
    category: 'user',
    description:
      'A connected account\'s test request (the app\'s "who am I" endpoint) could not be reached or did not answer 2xx; the message names the request and the HTTP status, never the credentials.',
  },
  MASTER_KEY_INVALID: {
    status: 400,
    category: 'user',
    description:
      'TRIBUTARY_MASTER_KEY or TRIBUTARY_MASTER_KEY_FILE is not usable: both are set, the file does not exist, or a key is not 32 bytes as base64 or hex (the message names the variable and which key; it never shows a key).',
  },
  SECRET_UNREADABLE: {
    status: 500,
    category: 'user',
    description:
      'A stored secret does not open: it was sealed with a master key that is not given (the message names the key id), or it was changed or copied from another row or column (the message names the table, row and column).',
  },
  KEY_ROTATION_REFUSED: {
    status: 400,
    category: 'user',
    description:
      '`tributary keys rotate` cannot go on: TRIBUTARY_MASTER_KEY holds one key (put the new key first), or the key file cannot be written.',
  },
  INTERNAL: {
    status: 500,
    category: 'internal',
    description: 'A bug in Tributary itself; the message says where.',
  },
} as const satisfies Record<string, ErrorCodeEntry>;

export type ErrorCode = keyof typeof ERROR_CODES;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CODES, value);
}
