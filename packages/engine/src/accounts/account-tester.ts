import { AppError, type AccountTestResultT, type AppT } from '@tributary/contracts';
import type { TokenRefresher } from '../oauth/token-refresher.js';
import type { AccountService } from './account-service.js';

export interface AccountTesterOptions {
  readonly accounts: AccountService;
  readonly catalog: { find(slug: string): Promise<AppT | null> };
  /** Absent: accounts are tested with their test request only (no refresh). */
  readonly refresher?: TokenRefresher;
  readonly now: () => number;
}

const TIMEOUT_MS = 15_000;

type Outcome = Pick<AccountTestResultT, 'status' | 'checked' | 'http_status' | 'error'>;

/**
 * "Test connection" of a connected account (docs/accounts.md#testing-an-account): the app's cheap
 * "who am I" request with the account's credentials when the catalog has one, else a token refresh
 * for OAuth accounts that can refresh. Credentials go only in the request to the catalog's URL;
 * what comes back names the URL as the catalog writes it (placeholders unfilled), never a value.
 */
export class AccountTester {
  constructor(private readonly options: AccountTesterOptions) {}

  async test(id: string): Promise<AccountTestResultT> {
    const row = await this.options.accounts.get(id);
    const outcome = await this.check(row.id, row.app);
    return { account: row.id, app: row.app, ...outcome, tested_at: Math.floor(this.options.now() / 1000) };
  }

  private async check(id: string, slug: string): Promise<Outcome> {
    const app = await this.options.catalog.find(slug);
    const request = app?.test_request ?? null;
    const oauth = app?.auth_type === 'oauth2';
    let fields: Record<string, unknown>;
    try {
      // The same path as a run: a due token is refreshed first, a "needs reconnect" account is refused.
      fields = (await this.options.accounts.credentialsFor({ account: { authProvisionId: id } }))['account'] ?? {};
    } catch (error) {
      return failure(error, 'none');
    }
    if (request === null) {
      const refresher = this.options.refresher;
      if (!oauth || !refresher || !canRefresh(fields, app))
        return { status: 'ok', checked: 'none', http_status: null, error: null };
      // No "who am I" request: asking the provider for a new token shows it still accepts the account.
      try {
        await refresher.ensureFresh(id, { force: true });
      } catch (error) {
        return failure(error, 'refresh');
      }
      return { status: 'ok', checked: 'refresh', http_status: null, error: null };
    }
    const headers = headersFor(app, request.headers, fields);
    if (headers === null) return { status: 'ok', checked: 'none', http_status: null, error: null };
    const url = fill(request.url, fields, encodeURIComponent);
    let response: Response;
    try {
      response = await fetch(url, {
        method: request.method,
        headers: { accept: 'application/json', ...headers },
        // A redirect could carry the credentials elsewhere; the catalog names the final URL.
        redirect: 'manual',
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      await response.body?.cancel();
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      const reason =
        error instanceof Error && error.name === 'TimeoutError'
          ? `no answer within ${TIMEOUT_MS / 1000} s`
          : (cause ?? 'network error');
      return failure(
        new AppError(
          'ACCOUNT_TEST_FAILED',
          `app "${slug}": ${request.method} ${request.url} cannot be reached (${reason})`,
        ),
        'test_request',
      );
    }
    if (response.status >= 200 && response.status < 300)
      return { status: 'ok', checked: 'test_request', http_status: response.status, error: null };
    const hint =
      response.status === 401 || response.status === 403
        ? oauth
          ? '; the provider does not accept the token: reconnect the account'
          : '; the provider does not accept the credentials: check the account fields'
        : '';
    return {
      ...failure(
        new AppError(
          'ACCOUNT_TEST_FAILED',
          `app "${slug}": ${request.method} ${request.url} answered HTTP ${response.status}${hint}`,
        ),
        'test_request',
      ),
      http_status: response.status,
    };
  }
}

function failure(error: unknown, checked: Outcome['checked']): Outcome {
  const known = error instanceof AppError ? error : new AppError('INTERNAL', (error as Error).message);
  return {
    status: known.code === 'ACCOUNT_NEEDS_RECONNECT' ? 'needs_reconnect' : 'error',
    checked,
    http_status: null,
    error: { code: known.code, message: known.message },
  };
}

function canRefresh(fields: Record<string, unknown>, app: AppT | null): boolean {
  return typeof fields['oauth_refresh_token'] === 'string' || app?.auth_mode === 'oauth2_client_credentials';
}

/** `{{field}}` → the account's value of it (empty when absent). */
function fill(template: string, fields: Record<string, unknown>, encode: (value: string) => string = (v) => v): string {
  return template.replace(/\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g, (_match, name: string) => {
    const value = fields[name];
    return typeof value === 'string' || typeof value === 'number' ? encode(String(value)) : '';
  });
}

/**
 * The credentials of the test request: the catalog's headers with fields filled in, else the
 * account's OAuth token as a Bearer token, or its user name and password as HTTP Basic; null when
 * the catalog does not say how this app's key is sent.
 */
function headersFor(
  app: AppT | null,
  template: Readonly<Record<string, string>> | undefined,
  fields: Record<string, unknown>,
): Record<string, string> | null {
  if (template !== undefined)
    return Object.fromEntries(Object.entries(template).map(([name, value]) => [name, fill(value, fields)]));
  const token = fields['oauth_access_token'];
  if (app?.auth_type === 'oauth2' && typeof token === 'string') return { authorization: `Bearer ${token}` };
  const { username, password } = fields;
  if (app?.auth_mode === 'basic' && typeof username === 'string' && typeof password === 'string')
    return { authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}` };
  // A URL that carries the key itself (Telegram's /bot{{token}}/getMe) needs no header.
  return /\{\{/.test(app?.test_request?.url ?? '') ? {} : null;
}
