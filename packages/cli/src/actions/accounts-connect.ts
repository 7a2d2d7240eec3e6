import { spawn } from 'node:child_process';
import { AppError, isErrorCode } from '@tributary/contracts/errors';
import type { ConnectAttemptT } from '@tributary/contracts';
import type { ApiClient } from '../remote/api-client.js';
import type { Output } from '../ui/output.js';
import type { ConnectFlags, ClientFlags } from '../commands/accounts-connect.js';
import { runRemote } from './remote-command.js';

export async function runAccountsConnect(app: string, flags: ConnectFlags, output: Output): Promise<number> {
  return runRemote(flags, output, async (client) => {
    const started = await client.call(
      client.api.POST('/v1/oauth/connect', {
        body: {
          app,
          ...(flags.name !== undefined ? { name: flags.name } : {}),
          ...(flags.account !== undefined ? { account: flags.account } : {}),
        },
      }),
    );
    let attempt = started.data;
    if (attempt.status === 'pending' && attempt.start_url) {
      output.err(`Open this URL to sign in to ${app} (it expires in 10 minutes):\n  ${attempt.start_url}`);
      if (flags.browser && openBrowser(attempt.start_url)) output.err('Opened it in your browser; waiting…');
      else output.err('Waiting for the sign-in…');
      attempt = await waitFor(client, attempt);
    }
    if (attempt.status === 'failed') {
      const code = attempt.error && isErrorCode(attempt.error.code) ? attempt.error.code : 'INTERNAL';
      throw new AppError(code, attempt.error?.message ?? 'connecting failed');
    }
    if (flags.json) output.json(attempt);
    else
      output.out(
        `Connected account ${attempt.account ?? ''} (${attempt.app}); use it with --prop <app prop>=${attempt.account ?? ''}`,
      );
  });
}

export async function runOAuthClient(app: string, flags: ClientFlags, output: Output): Promise<number> {
  return runRemote(flags, output, async (client) => {
    const secret = flags.clientSecret ?? (process.stdin.isTTY && output.isTty ? await askSecret() : undefined);
    if (!secret)
      throw new AppError('USAGE_ERROR', '--client-secret is required when not on a terminal', {
        field: '--client-secret',
      });
    const saved = await client.call(
      client.api.PUT('/v1/apps/{slug}/oauth-client', {
        params: { path: { slug: app } },
        body: {
          client_id: flags.clientId,
          client_secret: secret,
          ...(flags.scope ? { scopes: [...flags.scope] } : {}),
        },
      }),
    );
    if (flags.json) return output.json(saved.data);
    output.out(`Saved the OAuth client of ${app} (${saved.data.client_id}).`);
    output.out(`Register this redirect URI at the provider: ${saved.data.redirect_uri}`);
  });
}

const POLL_MS = 1000;

async function waitFor(client: ApiClient, attempt: ConnectAttemptT): Promise<ConnectAttemptT> {
  for (;;) {
    const current = (
      await client.call(client.api.GET('/v1/oauth/connect/{state}', { params: { path: { state: attempt.state } } }))
    ).data;
    if (current.status !== 'pending') return current;
    if (Date.now() / 1000 > current.expires_at)
      throw new AppError('OAUTH_STATE_INVALID', 'the sign-in expired before it finished; run the command again');
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** `$BROWSER`, else the platform's opener; false when there is none (a server without a desktop). */
function openBrowser(url: string): boolean {
  const command =
    process.env['BROWSER'] ||
    (process.platform === 'darwin'
      ? 'open'
      : process.platform === 'win32'
        ? 'explorer'
        : process.env['DISPLAY'] || process.env['WAYLAND_DISPLAY']
          ? 'xdg-open'
          : null);
  if (!command) return false;
  try {
    const child = spawn(command, [url], { detached: true, stdio: 'ignore' });
    child.on('error', () => undefined);
    child.unref();
    return true;
  } catch {
    return false;
  }
}

/** The client secret, asked without echo; the prompts load only here, on a terminal. */
async function askSecret(): Promise<string> {
  const { password } = await import('@inquirer/prompts');
  return password({ message: 'Client secret' });
}
