import type { Command } from 'commander';
import type { Output } from '../ui/output.js';
import { addRemoteOptions, type RemoteCommandFlags } from './remote-options.js';
import { registerConnectCommands } from './accounts-connect.js';

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

export interface CreateFlags extends RemoteCommandFlags {
  readonly field?: readonly string[];
  readonly name?: string;
}

/** `accounts create|list|delete`: connected accounts whose credentials app props use. */
export function registerAccountsCommand(program: Command, output: Output, setExit: (code: number) => void): void {
  const accounts = program
    .command('accounts')
    .description('Connected accounts: credentials of an app, stored encrypted on the server, used by app props')
    .addHelpText(
      'after',
      `
Examples:
  $ tributary accounts create acme --field api_key=sk_live_123 --name "Acme prod"
  $ tributary accounts connect github
  $ tributary accounts list --app acme
  $ tributary accounts test apn_AbC123xyz
  $ tributary accounts delete apn_AbC123xyz`,
    );

  addRemoteOptions(
    accounts
      .command('create')
      .description("Connect an account of an app (the fields come from the server's app catalog)")
      .argument('<app>', 'app slug'),
  )
    .option(
      '--field <NAME=VALUE>',
      'a credential field (repeatable); on a terminal, missing fields are asked for (secrets without echo)',
      collect,
    )
    .option('--name <NAME>', 'account name (default: chosen by the server)')
    .addHelpText(
      'after',
      `
Examples:
  $ tributary accounts create acme --field api_key=sk_live_123
  $ tributary accounts create github --field oauth_access_token=gho_... --name "my github" --json

Exit codes: 0 ok, 1 unknown app or refused fields, 2 server or network error.`,
    )
    .action(async (app: string, flags: CreateFlags) => {
      const { runAccountsCreate } = await import('../actions/accounts.js');
      setExit(await runAccountsCreate(app, flags, output));
    });

  registerConnectCommands(accounts, output, setExit);

  addRemoteOptions(accounts.command('list').description('List connected accounts (secret fields are never shown)'))
    .option('--app <SLUG>', 'only accounts of this app')
    .addHelpText(
      'after',
      `
Examples:
  $ tributary accounts list
  $ tributary accounts list --app acme --json`,
    )
    .action(async (flags: RemoteCommandFlags & { app?: string }) => {
      const { runAccountsList } = await import('../actions/accounts.js');
      setExit(await runAccountsList(flags, output));
    });

  addRemoteOptions(
    accounts
      .command('test')
      .description('Test a connected account: the app\'s "who am I" request with its credentials, or a token refresh')
      .argument('<id>', 'apn_ id'),
  )
    .addHelpText(
      'after',
      `
Examples:
  $ tributary accounts test apn_AbC123xyz
  $ tributary accounts test apn_AbC123xyz --json

Exit codes: 0 the account works, 1 it needs reconnecting or the test failed (the error code is printed),
2 server or network error.`,
    )
    .action(async (id: string, flags: RemoteCommandFlags) => {
      const { runAccountsTest } = await import('../actions/accounts.js');
      setExit(await runAccountsTest(id, flags, output));
    });

  addRemoteOptions(
    accounts
      .command('delete')
      .description('Delete a connected account; prints the sources that used it')
      .argument('<id>', 'apn_ id'),
  )
    .addHelpText(
      'after',
      `
Examples:
  $ tributary accounts delete apn_AbC123xyz`,
    )
    .action(async (id: string, flags: RemoteCommandFlags) => {
      const { runAccountsDelete } = await import('../actions/accounts.js');
      setExit(await runAccountsDelete(id, flags, output));
    });
}
