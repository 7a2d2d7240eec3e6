import type { Generated } from 'kysely';

/** Rows of the embedded SQLite database. JSON columns hold text; times are epoch milliseconds. */
export interface Database {
  api_keys: {
    id: string;
    name: string;
    /** `hmac:<hex>` (HMAC-SHA-256 with the instance's pepper); bare hex SHA-256 before issue 14, rehashed at first use. */
    key_hash: string;
    key_prefix: string;
    created_at: number;
    last_used_at: number | null;
    revoked_at: number | null;
  };
  /** Browser sign-in sessions: each stands for the API key it was issued for, until it expires or is revoked. */
  browser_sessions: {
    id: string;
    token_hash: string;
    api_key_id: string;
    created_at: number;
    expires_at: number;
    revoked_at: number | null;
  };
  /** Secrets of the instance itself, sealed with the master key (`api_key_pepper`). */
  instance_secrets: {
    name: string;
    value_sealed: string;
    created_at: number;
  };
  components: {
    id: string;
    key: string | null;
    name: string | null;
    version: string | null;
    description: string | null;
    component_type: 'source' | 'action';
    code: string;
    code_hash: string;
    source_url: string | null;
    configurable_props: string;
    lock: string;
    created_at: number;
    updated_at: number;
  };
  registry: {
    key: string;
    component_id: string;
    version: string;
    /** The npm package whose import published this key; null when it was published on its own. */
    package: string | null;
    created_at: number;
    updated_at: number;
  };
  /** npm packages imported into the registry (issue 11). */
  registry_packages: {
    name: string;
    version: string;
    /** What the import was asked for (`@pipedream/x@^1`), kept for `upgrade`. */
    spec: string;
    /** JSON: the package.json `dependencies` ranges its components' imports are pinned to. */
    dependencies: string;
    /** JSON: the registry keys this package publishes. */
    keys: string;
    /** JSON: the components skipped at the last import, with their error. */
    skipped: string;
    created_at: number;
    updated_at: number;
  };
  sources: {
    id: string;
    component_id: string;
    name: string;
    name_slug: string;
    active: number;
    configured_props: string;
    endpoint_id: string | null;
    custom_response: number;
    timer: string | null;
    next_fire_at: number | null;
    created_at: number;
    updated_at: number;
  };
  source_state: {
    source_id: string;
    db: string;
    dedupe: string | null;
  };
  events: {
    seq: Generated<number>;
    source_id: string;
    id: string;
    indexed_at_ms: number;
    event: string;
    metadata: string;
  };
  logs: {
    seq: Generated<number>;
    source_id: string;
    invocation_id: string | null;
    ts: number;
    level: 'info' | 'warn' | 'error';
    message: string;
  };
  apps: {
    slug: string;
    name: string;
    description: string | null;
    auth_type: 'keys' | 'oauth2' | 'none';
    /** JSON: the catalog entry's fields. */
    fields: string;
    /** JSON: auth_mode, oauth, base_url, test_request of an operator's entry (null before migration 0008). */
    details: string | null;
    created_at: number;
    updated_at: number;
  };
  accounts: {
    id: string;
    app: string;
    name: string;
    /** Every field value, as one JSON object sealed with the SecretBox. */
    fields_sealed: string;
    /** JSON: the same object with secret fields replaced by "[REDACTED]", as the API shows it. */
    fields_shown: string;
    status: 'ok' | 'needs_reconnect';
    status_message: string | null;
    /** Epoch ms when the OAuth access token expires; null for key-based accounts and tokens without expiry. */
    oauth_expires_at: number | null;
    /** JSON `{ scopes, uid }` of an OAuth account; null for key-based ones. */
    oauth_meta: string | null;
    created_at: number;
    updated_at: number;
  };
  oauth_clients: {
    app: string;
    client_id: string;
    client_secret_sealed: string;
    /** JSON array of scopes replacing the catalog's defaults, or null. */
    scopes: string | null;
    created_at: number;
    updated_at: number;
  };
  oauth_attempts: {
    state: string;
    app: string;
    name: string | null;
    reconnect_account: string | null;
    /** sha256 of the browser binding cookie set by the start URL. */
    binding_hash: string;
    verifier_sealed: string;
    redirect_uri: string;
    /** `exchanging`: the callback claimed it and is trading the code. */
    status: 'pending' | 'exchanging' | 'connected' | 'failed';
    account_id: string | null;
    error_code: string | null;
    error_message: string | null;
    created_at: number;
    expires_at: number;
  };
  invocations: {
    id: string;
    source_id: string;
    trigger: 'http' | 'timer' | 'manual';
    event: string;
    status: 'queued' | 'running';
    attempts: number;
    created_at: number;
    started_at: number | null;
    /** Not claimed before this time: the backoff after a platform failure (0 = at once). */
    not_before: number;
    last_error: string | null;
  };
  /** Invocations that failed in the platform on every attempt, kept until retried or deleted. */
  dead_letters: {
    /** The invocation's id, kept through a retry. */
    id: string;
    source_id: string;
    trigger: 'http' | 'timer' | 'manual';
    event: string;
    attempts: number;
    last_error: string;
    /** When the invocation was first queued. */
    created_at: number;
    /** When its last attempt failed. */
    failed_at: number;
  };
}
