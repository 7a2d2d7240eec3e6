import { spawn } from 'node:child_process';
import { password } from '@inquirer/prompts';
import { AppError, isErrorCode, type ConnectAttemptT } from '@tributary/contracts';
import type { Command } from 'commander';
import type { ApiClient } from '../remote/api-client.js';
import type { Output } from '../ui/output.js';
import { addRemoteOptions, runRemote, type RemoteCommandFlags } from './remote-command.js';

interface ConnectFlags extends RemoteCommandFlags {
  readonly name?: string;
  readonly account?: string;
  readonly browser: boolean;
}

interface ClientFlags extends RemoteCommandFlags {
  readonly clientId: string;
  readonly clientSecret?: string;
  readonly scope?: readonly string[];
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];
const POLL_MS = 1000;

/** `accounts connect` and `accounts oauth-client`: OAuth 2 sign-in to a stored account (docs/accounts.md). */
export function registerConnectCommands(accounts: Command, output: Output, setExit: (code: number) => void): void {
  addRemoteOptions(
    accounts
      .command('connect')
      .description('Connect an account through OAuth: prints the sign-in URL, opens a browser when it can, and waits')
      .argument('<app>', 'app slug'),
  )
    .option('--name <NAME>', 'account name (default: the app and who signed in)')
    .option('--account <ID>', 'reconnect this account (e.g. one that needs reconnecting) instead of adding one')
    .option('--no-browser', 'only print the URL (sign in from any browser on this machine)')
    .addHelpText(
      'after',
      `
Examples:
  $ tributary accounts connect github
  $ tributary accounts connect google_drive --account apn_AbC123xyz

Exit codes: 0 connected, 1 refused (no OAuth client, sign-in denied, provider error), 2 server or network error.`,
    )
    .action(async (app: string, flags: ConnectFlags) =>
      setExit(
        await runRemote(flags, output, async (client) => {
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
        }),
      ),
    );

  addRemoteOptions(
    accounts
      .command('oauth-client')
      .description("Set an app's OAuth client id and secret; prints the redirect URI to register at the provider")
      .argument('<app>', 'app slug'),
  )
    .requiredOption('--client-id <ID>', 'the OAuth client id the provider gave you')
    .option('--client-secret <SECRET>', 'the client secret (on a terminal it is asked for without echo when absent)')
    .option('--scope <SCOPE>', "a scope to ask for instead of the catalog's defaults (repeatable)", collect)
    .addHelpText(
      'after',
      `
Examples:
  $ tributary accounts oauth-client github --client-id Iv1.abc123
  $ tributary accounts oauth-client google_drive --client-id 123.apps.googleusercontent.com --scope https://www.googleapis.com/auth/drive

Exit codes: 0 ok, 1 unknown app or refused input, 2 server or network error.`,
    )
    .action(async (app: string, flags: ClientFlags) =>
      setExit(
        await runRemote(flags, output, async (client) => {
          const secret =
            flags.clientSecret ??
            (process.stdin.isTTY && output.isTty ? await password({ message: 'Client secret' }) : undefined);
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
        }),
      ),
    );
}

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
