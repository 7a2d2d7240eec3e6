import type { Command } from 'commander';
import type { Output } from '../ui/output.js';
import { addRemoteOptions, type RemoteCommandFlags } from './remote-options.js';

export interface ConnectFlags extends RemoteCommandFlags {
  readonly name?: string;
  readonly account?: string;
  readonly browser: boolean;
}

export interface ClientFlags extends RemoteCommandFlags {
  readonly clientId: string;
  readonly clientSecret?: string;
  readonly scope?: readonly string[];
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];
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
    .action(async (app: string, flags: ConnectFlags) => {
      const { runAccountsConnect } = await import('../actions/accounts-connect.js');
      setExit(await runAccountsConnect(app, flags, output));
    });

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
    .action(async (app: string, flags: ClientFlags) => {
      const { runOAuthClient } = await import('../actions/accounts-connect.js');
      setExit(await runOAuthClient(app, flags, output));
    });
}
