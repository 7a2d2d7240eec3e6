import { AppError } from '@tributary/contracts';
import { backOff } from 'exponential-backoff';
import type { Kysely } from 'kysely';
import type { AccountCache } from '../accounts/account-cache.js';
import type { AppCatalog } from '../apps/app-catalog.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { sealedAt } from '../secrets/sealed-places.js';
import type { Database } from '../store/schema.js';
import type { OAuthClients } from './oauth-clients.js';
import { TokenEndpoint, TokenEndpointError, type TokenSet } from './token-endpoint.js';

export interface TokenRefresherOptions {
  readonly db: Kysely<Database>;
  readonly box: SecretBox;
  readonly catalog: AppCatalog;
  readonly clients: OAuthClients;
  /** On PostgreSQL several processes share accounts: a refresh holds the account's row lock. */
  readonly dialect: 'sqlite' | 'postgres';
  readonly now: () => number;
  readonly log: (message: string) => void;
  /** A token expiring within this many ms is refreshed before a run (default 60 s). */
  readonly leewayMs?: number;
  /** Token requests per refresh when the provider cannot answer (unreachable, 5xx); default 3. */
  readonly attempts?: number;
  /** Wait before the second attempt, doubled before each next one (default 500 ms). */
  readonly retryDelayMs?: number;
  /** Told of every account this writes (AccountService's cache of what runs read). */
  readonly cache?: AccountCache;
}

type AccountRow = Database['accounts'];

/** The account's error for runs once the provider refused a refresh: it names the account. */
export function needsReconnect(row: Pick<AccountRow, 'id' | 'name' | 'app' | 'status_message'>): AppError {
  return new AppError(
    'ACCOUNT_NEEDS_RECONNECT',
    `account ${row.id} ("${row.name}", app ${row.app}) needs reconnecting: ${row.status_message ?? 'the provider refused its token'}; connect it again with \`tributary accounts connect ${row.app} --account ${row.id}\` or "Reconnect" in the web app`,
    { account: row.id, app: row.app },
  );
}

/**
 * Refreshes OAuth access tokens before runs. One refresh per account at a time (single-flight):
 * concurrent runs wait for the refresh already under way instead of spending the refresh token
 * again, which rotating providers would refuse. On PostgreSQL the row lock extends that to other
 * processes; SQLite has one process, so the in-process flight is enough and no transaction holds
 * the database while the provider answers.
 */
export class TokenRefresher {
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(private readonly options: TokenRefresherOptions) {}

  get leewayMs(): number {
    return this.options.leewayMs ?? 60_000;
  }

  /** Whether a token expiring at `expiresAt` is to be refreshed before a run now. */
  isDue(expiresAt: number | null): boolean {
    return expiresAt !== null && expiresAt - this.options.now() < this.leewayMs;
  }

  /** Refreshes the account's token when it is due (`force`: even when it is not, to test the refresh token). */
  async ensureFresh(accountId: string, options: { readonly force?: boolean } = {}): Promise<void> {
    const running = this.inFlight.get(accountId);
    if (running) return running;
    const flight = this.refreshOnce(accountId, options.force === true).finally(() => this.inFlight.delete(accountId));
    this.inFlight.set(accountId, flight);
    return flight;
  }

  private async refreshOnce(accountId: string, force: boolean): Promise<void> {
    if (this.options.dialect === 'postgres') {
      let failure: unknown = null;
      await this.options.db.transaction().execute(async (tx) => {
        const row = await tx
          .selectFrom('accounts')
          .selectAll()
          .where('id', '=', accountId)
          .forUpdate()
          .executeTakeFirst();
        // A refused refresh still commits the account's new status; the run's error is thrown after.
        if (row) await this.refreshRow(tx, row, force).catch((error: unknown) => (failure = error));
      });
      if (failure !== null) throw failure;
      return;
    }
    const row = await this.options.db.selectFrom('accounts').selectAll().where('id', '=', accountId).executeTakeFirst();
    if (row) await this.refreshRow(this.options.db, row, force);
  }

  private async refreshRow(db: Kysely<Database>, row: AccountRow, force: boolean): Promise<void> {
    if (row.status === 'needs_reconnect') throw needsReconnect(row);
    // Another run (or process) refreshed it while this one waited for the lock.
    if (!force && !this.isDue(row.oauth_expires_at)) return;
    const app = await this.options.catalog.find(row.app);
    const client = await this.options.clients.resolve(row.app);
    if (!app?.oauth || !client) {
      throw new AppError(
        'OAUTH_NOT_CONFIGURED',
        `account ${row.id} ("${row.name}") has an expiring token, but app "${row.app}" has no OAuth ${app?.oauth ? 'client' : 'endpoints'} to refresh it with`,
        { account: row.id, app: row.app },
      );
    }
    const fields = JSON.parse(this.options.box.open(row.fields_sealed, sealedAt.account(row.id))) as Record<
      string,
      string
    >;
    const endpoint = new TokenEndpoint(row.app, app.oauth, client, this.options.now);
    const refreshToken = fields['oauth_refresh_token'];
    const started = this.options.now();
    if (!refreshToken && app.auth_mode !== 'oauth2_client_credentials') {
      await this.markNeedsReconnect(db, row, 'the token expired and the provider gave no refresh token');
      throw needsReconnect({ ...row, status_message: 'the token expired and the provider gave no refresh token' });
    }
    const oauthConfig = app.oauth;
    const ask = (): Promise<TokenSet> =>
      refreshToken ? endpoint.refresh(refreshToken) : endpoint.clientCredentials(client.scopes ?? oauthConfig.scopes);
    const attempts = this.options.attempts ?? 3;
    let tokens: TokenSet;
    try {
      // An outage at the provider is retried a few times with a growing wait; a refusal (invalid_grant) is final.
      tokens = await backOff(ask, {
        numOfAttempts: attempts,
        startingDelay: this.options.retryDelayMs ?? 500,
        timeMultiple: 2,
        // `done` counts the failed attempts; it is asked after the last one too, when nothing follows.
        retry: (error: unknown, done: number) => {
          const again = error instanceof TokenEndpointError && error.retryable;
          if (again && done < attempts)
            this.options.log(
              `account ${row.id} (app ${row.app}): ${error.message}; token request ${done + 1} of ${attempts} follows`,
            );
          return again;
        },
      });
    } catch (error) {
      if (error instanceof TokenEndpointError && error.refused) {
        const reason = `the provider refused to refresh its token (${error.message.replace(/^.*the provider refused: /, '')})`;
        await this.markNeedsReconnect(db, row, reason);
        throw needsReconnect({ ...row, status_message: reason });
      }
      throw error;
    }
    const meta = row.oauth_meta ? (JSON.parse(row.oauth_meta) as { scopes: string[]; uid: string | null }) : null;
    const next = {
      ...fields,
      oauth_access_token: tokens.accessToken,
      // Providers that do not rotate refresh tokens answer without one: the old one stays valid.
      ...(tokens.refreshToken ? { oauth_refresh_token: tokens.refreshToken } : {}),
    };
    await db
      .updateTable('accounts')
      .set({
        fields_sealed: this.options.box.seal(JSON.stringify(next), sealedAt.account(row.id)),
        oauth_expires_at: tokens.expiresAt,
        oauth_meta: JSON.stringify({
          scopes: tokens.scopes.length > 0 ? tokens.scopes : (meta?.scopes ?? []),
          uid: meta?.uid ?? null,
        }),
        status: 'ok',
        status_message: null,
        updated_at: this.options.now(),
      })
      .where('id', '=', row.id)
      .execute();
    this.options.cache?.accountChanged(row.id);
    this.options.log(`account ${row.id} (app ${row.app}): token refreshed in ${this.options.now() - started} ms`);
  }

  private async markNeedsReconnect(db: Kysely<Database>, row: AccountRow, reason: string): Promise<void> {
    await db
      .updateTable('accounts')
      .set({ status: 'needs_reconnect', status_message: reason, updated_at: this.options.now() })
      .where('id', '=', row.id)
      .execute();
    this.options.cache?.accountChanged(row.id);
    this.options.log(`account ${row.id} (app ${row.app}) needs reconnecting: ${reason}`);
  }
}
