import { createHash, randomBytes } from 'node:crypto';
import { AppError, type AppT, type ConnectAttemptT } from '@tributary/contracts';
import type { Kysely } from 'kysely';
import * as oauth from 'oauth4webapi';
import type { AccountService } from '../accounts/account-service.js';
import type { AppCatalog } from '../apps/app-catalog.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { sealedAt } from '../secrets/sealed-places.js';
import type { Database } from '../store/schema.js';
import type { OAuthClients } from './oauth-clients.js';
import { fetchUserId, TokenEndpoint } from './token-endpoint.js';

export interface OAuthConnectOptions {
  readonly db: Kysely<Database>;
  readonly box: SecretBox;
  readonly catalog: AppCatalog;
  readonly clients: OAuthClients;
  readonly accounts: AccountService;
  /** The server's public base URL: the start URL and the redirect URI are built from it. */
  readonly publicUrl: string;
  readonly now: () => number;
  /** How long a sign-in may take (default 10 minutes). */
  readonly attemptTtlMs?: number;
}

type AttemptRow = Database['oauth_attempts'];

/** The cookie that binds an attempt to the browser that opened its start URL. */
export function bindingCookieName(state: string): string {
  return `tributary_oauth_${state}`;
}

const hash = (value: string): string => createHash('sha256').update(value).digest('base64url');

/**
 * Connecting an account through OAuth 2 (docs/accounts.md#connect-through-oauth): authorization code
 * with PKCE, or client credentials. `start` records an attempt; its start URL sets a cookie with a
 * random binding and sends the browser to the provider; the callback accepts the `state` only with
 * that cookie, once, before it expires. The account is written only after the provider gave tokens.
 */
export class OAuthConnect {
  constructor(private readonly options: OAuthConnectOptions) {}

  get redirectUri(): string {
    return this.options.clients.redirectUri;
  }

  async start(input: {
    readonly app: string;
    readonly name?: string;
    readonly account?: string;
  }): Promise<{ attempt: ConnectAttemptT; binding: string | null }> {
    const app = await this.options.catalog.find(input.app);
    if (!app)
      throw new AppError('VALIDATION_FAILED', `no app "${input.app}" in the catalog; GET /v1/apps lists them`, {
        field: 'app',
      });
    const config = oauthOf(app);
    const client = await this.options.clients.resolveOrThrow(app.slug);
    if (input.account !== undefined) {
      const account = await this.options.accounts.get(input.account);
      if (account.app !== app.slug)
        throw new AppError(
          'VALIDATION_FAILED',
          `account ${account.id} is an account of app "${account.app}", not "${app.slug}"`,
          { field: 'account' },
        );
    }
    const now = this.options.now();
    await this.purge(now);
    const state = oauth.generateRandomState();
    const expiresAt = now + this.ttlMs;
    const name = input.name ?? null;
    const reconnect = input.account ?? null;
    if (app.auth_mode === 'oauth2_client_credentials') {
      // No user signs in: the server asks the token endpoint right away.
      const endpoint = new TokenEndpoint(app.slug, config, client, this.options.now);
      const tokens = await endpoint.clientCredentials(client.scopes ?? config.scopes);
      const account = await this.options.accounts.saveOAuth({
        app: app.slug,
        name: name ?? `${app.name} account`,
        tokens,
        uid: null,
        reconnect,
      });
      const row: AttemptRow = {
        ...this.emptyAttempt(state, app.slug, name, reconnect, now, expiresAt),
        status: 'connected',
        account_id: account.id,
      };
      await this.options.db.insertInto('oauth_attempts').values(row).execute();
      return { attempt: this.toApi(row), binding: null };
    }
    const binding = randomBytes(24).toString('base64url');
    const row: AttemptRow = {
      ...this.emptyAttempt(state, app.slug, name, reconnect, now, expiresAt),
      binding_hash: hash(binding),
      verifier_sealed: this.options.box.seal(oauth.generateRandomCodeVerifier(), sealedAt.oauthVerifier(state)),
    };
    await this.options.db.insertInto('oauth_attempts').values(row).execute();
    return { attempt: this.toApi(row, binding), binding };
  }

  private get ttlMs(): number {
    return this.options.attemptTtlMs ?? 600_000;
  }

  /**
   * Removes attempts that expired more than one TTL ago, on every new attempt, so the table holds
   * only recent sign-ins. The extra TTL lets a CLI or page still poll how a late attempt ended.
   */
  async purge(now = this.options.now()): Promise<number> {
    const result = await this.options.db
      .deleteFrom('oauth_attempts')
      .where('expires_at', '<', now - this.ttlMs)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** The provider's sign-in URL for a start URL's state and binding (the server then sets the cookie). */
  async begin(state: string, binding: string): Promise<string> {
    const row = await this.pending(state);
    if (row.binding_hash !== hash(binding))
      throw new AppError('OAUTH_STATE_INVALID', 'this start URL is not the one the connect command printed', {
        field: 'binding',
      });
    const app = await this.options.catalog.get(row.app);
    const config = oauthOf(app);
    const client = await this.options.clients.resolveOrThrow(app.slug);
    const url = new URL(config.authorize_url ?? '');
    const scopes = client.scopes ?? config.scopes;
    // The provider's own parameters first, so the protocol's below always win.
    for (const [name, value] of Object.entries(config.authorize_params ?? {})) url.searchParams.set(name, value);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', client.clientId);
    url.searchParams.set('redirect_uri', row.redirect_uri);
    url.searchParams.set('state', row.state);
    if (scopes.length > 0) url.searchParams.set('scope', scopes.join(config.scope_delimiter));
    url.searchParams.set(
      'code_challenge',
      await oauth.calculatePKCECodeChallenge(
        this.options.box.open(row.verifier_sealed, sealedAt.oauthVerifier(row.state)),
      ),
    );
    url.searchParams.set('code_challenge_method', 'S256');
    return url.href;
  }

  /**
   * The provider's redirect back. Unknown, expired, reused or unbound states are refused without
   * touching any attempt; anything after that ends the attempt, connected or failed with the reason.
   */
  async complete(params: URLSearchParams, cookie: (name: string) => string | undefined): Promise<ConnectAttemptT> {
    const state = params.get('state') ?? '';
    if (state === '')
      throw new AppError('OAUTH_STATE_INVALID', 'the redirect has no `state`; start connecting again', {
        field: 'state',
      });
    const row = await this.pending(state);
    const binding = cookie(bindingCookieName(state));
    if (binding === undefined || hash(binding) !== row.binding_hash)
      throw new AppError(
        'OAUTH_STATE_INVALID',
        'this sign-in was started in another browser (its cookie is missing); start connecting again from this browser',
        { field: 'state' },
      );
    // Claim the attempt: a second redirect with the same state (a reload, a replay) finds it taken.
    const claimed = await this.options.db
      .updateTable('oauth_attempts')
      .set({ status: 'exchanging' })
      .where('state', '=', state)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) !== 1)
      throw new AppError('OAUTH_STATE_INVALID', 'this sign-in was already used; start connecting again', {
        field: 'state',
      });
    try {
      const account = await this.exchange(row, params);
      await this.finish(state, { status: 'connected', account_id: account });
    } catch (error) {
      const failure =
        error instanceof AppError ? error : new AppError('INTERNAL', `connecting failed: ${(error as Error).message}`);
      await this.finish(state, { status: 'failed', error_code: failure.code, error_message: failure.message });
      throw failure;
    }
    return this.status(state);
  }

  async status(state: string): Promise<ConnectAttemptT> {
    const row = await this.options.db
      .selectFrom('oauth_attempts')
      .selectAll()
      .where('state', '=', state)
      .executeTakeFirst();
    if (!row) throw new AppError('NOT_FOUND', `no connect attempt "${state}"`, { state });
    return this.toApi(row);
  }

  private async exchange(row: AttemptRow, params: URLSearchParams): Promise<string> {
    const error = params.get('error');
    if (error !== null) {
      const description = params.get('error_description');
      throw new AppError(
        'OAUTH_ACCESS_DENIED',
        `app "${row.app}": the provider sent the sign-in back with "${error.slice(0, 100)}"${description ? `: ${description.slice(0, 300)}` : ''}`,
        { app: row.app },
      );
    }
    const app = await this.options.catalog.get(row.app);
    const config = oauthOf(app);
    const client = await this.options.clients.resolveOrThrow(app.slug);
    const endpoint = new TokenEndpoint(app.slug, config, client, this.options.now);
    const server = { issuer: config.issuer ?? new URL(config.token_url).origin, token_endpoint: config.token_url };
    let callback: URLSearchParams;
    try {
      callback = oauth.validateAuthResponse(server, { client_id: client.clientId }, params, row.state);
    } catch (problem) {
      throw new AppError(
        'OAUTH_ACCESS_DENIED',
        `app "${row.app}": the redirect is not a valid sign-in answer: ${(problem as Error).message}`,
      );
    }
    const tokens = await endpoint.exchangeCode(
      callback,
      row.redirect_uri,
      this.options.box.open(row.verifier_sealed, sealedAt.oauthVerifier(row.state)),
    );
    const uid =
      tokens.subject ?? (config.userinfo_url ? await fetchUserId(config.userinfo_url, tokens.accessToken) : null);
    const account = await this.options.accounts.saveOAuth({
      app: app.slug,
      name: row.name ?? (uid ? `${app.name} (${uid})` : `${app.name} account`),
      tokens,
      uid,
      reconnect: row.reconnect_account,
    });
    return account.id;
  }

  private async pending(state: string): Promise<AttemptRow> {
    const row = await this.options.db
      .selectFrom('oauth_attempts')
      .selectAll()
      .where('state', '=', state)
      .executeTakeFirst();
    if (!row)
      throw new AppError('OAUTH_STATE_INVALID', 'this sign-in is unknown to the server; start connecting again', {
        field: 'state',
      });
    if (row.status !== 'pending')
      throw new AppError('OAUTH_STATE_INVALID', 'this sign-in was already used; start connecting again', {
        field: 'state',
      });
    if (row.expires_at <= this.options.now())
      throw new AppError('OAUTH_STATE_INVALID', 'this sign-in expired; start connecting again', { field: 'state' });
    return row;
  }

  private async finish(state: string, values: Partial<AttemptRow>): Promise<void> {
    await this.options.db.updateTable('oauth_attempts').set(values).where('state', '=', state).execute();
  }

  private emptyAttempt(
    state: string,
    app: string,
    name: string | null,
    reconnect: string | null,
    now: number,
    expiresAt: number,
  ): AttemptRow {
    return {
      state,
      app,
      name,
      reconnect_account: reconnect,
      binding_hash: '',
      verifier_sealed: '',
      redirect_uri: this.redirectUri,
      status: 'pending',
      account_id: null,
      error_code: null,
      error_message: null,
      created_at: now,
      expires_at: expiresAt,
    };
  }

  private toApi(row: AttemptRow, binding?: string): ConnectAttemptT {
    const start = new URL('/v1/oauth/start', this.options.publicUrl);
    start.searchParams.set('state', row.state);
    if (binding !== undefined) start.searchParams.set('binding', binding);
    return {
      state: row.state,
      app: row.app,
      status: row.status === 'exchanging' ? 'pending' : row.status,
      start_url: binding !== undefined ? start.href : null,
      redirect_uri: row.redirect_uri,
      account: row.account_id,
      error: row.error_code ? { code: row.error_code, message: row.error_message ?? '' } : null,
      expires_at: Math.floor(row.expires_at / 1000),
    };
  }
}

/** An app's OAuth endpoints, or why it cannot connect through OAuth. */
function oauthOf(app: AppT): NonNullable<AppT['oauth']> {
  if (app.oauth && (app.auth_mode === 'oauth2_authorization_code' || app.auth_mode === 'oauth2_client_credentials')) {
    if (app.auth_mode === 'oauth2_authorization_code' && app.oauth.authorize_url === null)
      throw new AppError('OAUTH_NOT_CONFIGURED', `app "${app.slug}" has no authorize URL in the catalog`, {
        app: app.slug,
      });
    return app.oauth;
  }
  throw new AppError(
    'OAUTH_NOT_CONFIGURED',
    `app "${app.slug}" authenticates with ${app.auth_mode}, not OAuth; create its account with its fields (tributary accounts create ${app.slug})`,
    { app: app.slug },
  );
}
