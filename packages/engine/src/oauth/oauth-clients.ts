import { AppError, PutOAuthClientBody, type OAuthClientT, type PutOAuthClientBodyT } from '@tributary/contracts';
import type { Kysely } from 'kysely';
import type { SecretBox } from '../secrets/secret-box.js';
import { sealedAt } from '../secrets/sealed-places.js';
import type { Database } from '../store/schema.js';

export interface OAuthClientsOptions {
  readonly db: Kysely<Database>;
  readonly box: SecretBox;
  readonly now: () => number;
  /** TRIBUTARY_OAUTH_<SLUG>_CLIENT_ID / _CLIENT_SECRET / _SCOPES are read from here. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The server's `/v1/oauth/callback` URL: the redirect URI every client registers at its provider. */
  readonly redirectUri: string;
}

/** An app's OAuth client in clear, for the token requests only. */
export interface ResolvedClient {
  readonly clientId: string;
  readonly clientSecret: string;
  /** null: use the catalog's default scopes. */
  readonly scopes: readonly string[] | null;
  readonly source: 'settings' | 'environment';
}

/** `google_drive` → `TRIBUTARY_OAUTH_GOOGLE_DRIVE_`. */
export function envPrefix(slug: string): string {
  return `TRIBUTARY_OAUTH_${slug.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_`;
}

/**
 * The operator's OAuth clients (docs/accounts.md#oauth-clients): set through the API (the secret
 * sealed at rest) or the environment. A client set through the API wins over the environment's,
 * so an operator can rotate a secret without a restart.
 */
export class OAuthClients {
  constructor(private readonly options: OAuthClientsOptions) {}

  get redirectUri(): string {
    return this.options.redirectUri;
  }

  async put(app: string, body: PutOAuthClientBodyT): Promise<OAuthClientT> {
    const parsed = PutOAuthClientBody.parse(body);
    const now = this.options.now();
    const row = {
      client_id: parsed.client_id,
      client_secret_sealed: this.options.box.seal(parsed.client_secret, sealedAt.oauthClient(app)),
      scopes: parsed.scopes ? JSON.stringify(parsed.scopes) : null,
      updated_at: now,
    };
    await this.options.db
      .insertInto('oauth_clients')
      .values({ app, ...row, created_at: now })
      .onConflict((conflict) => conflict.column('app').doUpdateSet(row))
      .execute();
    return this.show(app, await this.resolveOrThrow(app));
  }

  async remove(app: string): Promise<void> {
    const result = await this.options.db.deleteFrom('oauth_clients').where('app', '=', app).executeTakeFirst();
    if (Number(result.numDeletedRows) === 0)
      throw new AppError('NOT_FOUND', `app "${app}" has no OAuth client set through the API`, { app });
  }

  async resolve(app: string): Promise<ResolvedClient | null> {
    const row = await this.options.db.selectFrom('oauth_clients').selectAll().where('app', '=', app).executeTakeFirst();
    if (row)
      return {
        clientId: row.client_id,
        clientSecret: this.options.box.open(row.client_secret_sealed, sealedAt.oauthClient(app)),
        scopes: row.scopes === null ? null : (JSON.parse(row.scopes) as string[]),
        source: 'settings',
      };
    const prefix = envPrefix(app);
    const clientId = this.options.env[`${prefix}CLIENT_ID`];
    const clientSecret = this.options.env[`${prefix}CLIENT_SECRET`];
    if (!clientId || !clientSecret) return null;
    const scopes = this.options.env[`${prefix}SCOPES`];
    return {
      clientId,
      clientSecret,
      scopes: scopes ? scopes.split(/[\s,]+/).filter((scope) => scope !== '') : null,
      source: 'environment',
    };
  }

  async resolveOrThrow(app: string): Promise<ResolvedClient> {
    const client = await this.resolve(app);
    if (!client)
      throw new AppError(
        'OAUTH_NOT_CONFIGURED',
        `app "${app}" has no OAuth client: set its client id and secret with \`tributary accounts oauth-client ${app}\`, PUT /v1/apps/${app}/oauth-client, or ${envPrefix(app)}CLIENT_ID and ${envPrefix(app)}CLIENT_SECRET; register ${this.options.redirectUri} as its redirect URI`,
        { app },
      );
    return client;
  }

  async get(app: string): Promise<OAuthClientT> {
    return this.show(app, await this.resolveOrThrow(app));
  }

  /** Which apps have a client and where it comes from (the catalog lists this per app). */
  async sources(): Promise<Map<string, 'settings' | 'environment'>> {
    const found = new Map<string, 'settings' | 'environment'>();
    for (const [name, value] of Object.entries(this.options.env)) {
      const match = /^TRIBUTARY_OAUTH_(.+)_CLIENT_ID$/.exec(name);
      if (!match?.[1] || !value) continue;
      const slug = match[1].toLowerCase();
      if (this.options.env[`${envPrefix(slug)}CLIENT_SECRET`]) found.set(slug, 'environment');
    }
    const rows = await this.options.db.selectFrom('oauth_clients').select('app').execute();
    for (const row of rows) found.set(row.app, 'settings');
    return found;
  }

  private show(app: string, client: ResolvedClient): OAuthClientT {
    return {
      app,
      client_id: client.clientId,
      scopes: [...(client.scopes ?? [])],
      source: client.source,
      redirect_uri: this.options.redirectUri,
    };
  }
}
