import { AppError, type AppOAuthT } from '@tributary/contracts';
import * as oauth from 'oauth4webapi';

/** The tokens a provider answered with, as an account stores them. */
export interface TokenSet {
  readonly accessToken: string;
  readonly refreshToken: string | null;
  /** Epoch ms, or null when the provider gave no `expires_in`. */
  readonly expiresAt: number | null;
  readonly scopes: readonly string[];
  /** `sub` of a validated id_token, when the provider sent one. */
  readonly subject: string | null;
}

export interface OAuthClientCredentials {
  readonly clientId: string;
  readonly clientSecret: string;
}

/**
 * Why a token request failed: `refused` is an OAuth error answer (a bad code, secret or refresh
 * token: asking again gets the same answer); `retryable` is a provider that could not answer now
 * (unreachable, timed out, HTTP 5xx or 429), which a later attempt may get through.
 */
export class TokenEndpointError extends AppError {
  constructor(
    message: string,
    readonly refused: boolean,
    readonly retryable = false,
  ) {
    super('OAUTH_PROVIDER_ERROR', message);
  }
}

const unavailable = (status: number | undefined): boolean => status !== undefined && (status >= 500 || status === 429);

const TIMEOUT_MS = 15_000;

/**
 * The token endpoint side of OAuth 2 through oauth4webapi (RFC-conformant processing of token
 * answers, PKCE, id_token claim checks). Plain http:// endpoints are allowed only on loopback, which
 * the catalog schema already enforces (tests run a provider there).
 */
export class TokenEndpoint {
  constructor(
    private readonly app: string,
    private readonly config: AppOAuthT,
    private readonly credentials: OAuthClientCredentials,
    private readonly now: () => number,
  ) {}

  private get server(): oauth.AuthorizationServer {
    const issuer = this.config.issuer ?? new URL(this.config.token_url).origin;
    return {
      issuer,
      token_endpoint: this.config.token_url,
      ...(this.config.authorize_url ? { authorization_endpoint: this.config.authorize_url } : {}),
      ...(this.config.userinfo_url ? { userinfo_endpoint: this.config.userinfo_url } : {}),
    };
  }

  private get client(): oauth.Client {
    return { client_id: this.credentials.clientId };
  }

  /** Most providers take the secret in the form body; some (Airtable, Notion, Zoom) only as HTTP Basic. */
  private clientAuth(): oauth.ClientAuth {
    return this.config.token_auth === 'client_secret_basic'
      ? oauth.ClientSecretBasic(this.credentials.clientSecret)
      : oauth.ClientSecretPost(this.credentials.clientSecret);
  }

  private requestOptions(): oauth.TokenEndpointRequestOptions {
    const insecure = new URL(this.config.token_url).protocol === 'http:';
    return { signal: AbortSignal.timeout(TIMEOUT_MS), ...(insecure ? { [oauth.allowInsecureRequests]: true } : {}) };
  }

  async exchangeCode(callback: URLSearchParams, redirectUri: string, codeVerifier: string): Promise<TokenSet> {
    return this.call('trading the sign-in code', async () => {
      const response = await oauth.authorizationCodeGrantRequest(
        this.server,
        this.client,
        this.clientAuth(),
        callback,
        redirectUri,
        codeVerifier,
        this.requestOptions(),
      );
      return oauth.processAuthorizationCodeResponse(this.server, this.client, response);
    });
  }

  async refresh(refreshToken: string): Promise<TokenSet> {
    return this.call('refreshing the token', async () => {
      const response = await oauth.refreshTokenGrantRequest(
        this.server,
        this.client,
        this.clientAuth(),
        refreshToken,
        this.requestOptions(),
      );
      return oauth.processRefreshTokenResponse(this.server, this.client, response);
    });
  }

  async clientCredentials(scopes: readonly string[]): Promise<TokenSet> {
    return this.call('asking for a client-credentials token', async () => {
      const parameters: Record<string, string> =
        scopes.length > 0 ? { scope: scopes.join(this.config.scope_delimiter) } : {};
      const response = await oauth.clientCredentialsGrantRequest(
        this.server,
        this.client,
        this.clientAuth(),
        parameters,
        this.requestOptions(),
      );
      return oauth.processClientCredentialsResponse(this.server, this.client, response);
    });
  }

  private async call(what: string, request: () => Promise<oauth.TokenEndpointResponse>): Promise<TokenSet> {
    let answer: oauth.TokenEndpointResponse;
    try {
      answer = await request();
    } catch (error) {
      throw this.explain(what, error);
    }
    const claims = oauth.getValidatedIdTokenClaims(answer);
    return {
      accessToken: answer.access_token,
      refreshToken: answer.refresh_token ?? null,
      expiresAt: typeof answer.expires_in === 'number' ? this.now() + answer.expires_in * 1000 : null,
      scopes: typeof answer.scope === 'string' ? answer.scope.split(/[\s,]+/).filter((scope) => scope !== '') : [],
      subject: typeof claims?.sub === 'string' ? claims.sub : null,
    };
  }

  /** The provider's words (error code and description), never the request: it holds the secret and tokens. */
  private explain(what: string, error: unknown): TokenEndpointError {
    const where = `app "${this.app}": ${what} at ${this.config.token_url}`;
    if (error instanceof oauth.ResponseBodyError) {
      const description = error.error_description ? ` (${error.error_description.slice(0, 200)})` : '';
      // An OAuth error body on a 5xx (`server_error`, `temporarily_unavailable`) is an outage, not a verdict on the token.
      const outage = unavailable(error.status) || error.error === 'temporarily_unavailable';
      return new TokenEndpointError(
        `${where}: the provider ${outage ? `could not answer (HTTP ${error.status})` : 'refused'}: ${error.error}${description}`,
        !outage,
        outage,
      );
    }
    if (error instanceof oauth.OperationProcessingError) {
      const response = (error.cause as { status?: number; headers?: Headers } | undefined) ?? undefined;
      const status = response?.status !== undefined ? ` HTTP ${response.status}` : '';
      const type = response?.headers?.get?.('content-type');
      return new TokenEndpointError(
        `${where}: the provider answered with something that is not an OAuth token answer${status}${type ? ` (${type})` : ''}: ${error.message}`,
        false,
        unavailable(response?.status),
      );
    }
    if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'))
      return new TokenEndpointError(`${where}: no answer within ${TIMEOUT_MS / 1000} s`, false, true);
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return new TokenEndpointError(
      `${where}: the provider cannot be reached${cause ? ` (${cause})` : `: ${(error as Error).message}`}`,
      false,
      true,
    );
  }
}

/** Who signed in, from the provider's userinfo endpoint: its `sub`, `id`, `login` or `email`, else null. */
export async function fetchUserId(url: string, accessToken: string): Promise<string | null> {
  try {
    const response = await fetch(url, {
      headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    if (!response.ok) return null;
    const body = (await response.json()) as Record<string, unknown>;
    for (const key of ['sub', 'id', 'user_id', 'login', 'email']) {
      const value = body[key];
      if (typeof value === 'string' || typeof value === 'number') return String(value);
    }
    return null;
  } catch {
    // Who the user is only labels the account; a provider whose userinfo fails still connected it.
    return null;
  }
}
