import { input, password } from '@inquirer/prompts';
import { AppError } from '@tributary/contracts';
import type { Command } from 'commander';
import { allPages } from '../remote/pages.js';
import type { Output } from '../ui/output.js';
import { formatTable, relativeTime } from '../ui/table.js';
import { registerConnectCommands } from './accounts-connect.js';
import { addRemoteOptions, runRemote, type RemoteCommandFlags } from './remote-command.js';

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

interface CreateFlags extends RemoteCommandFlags {
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
    .action(async (app: string, flags: CreateFlags) =>
      setExit(
        await runRemote(flags, output, async (client) => {
          const fields: Record<string, string> = {};
          for (const pair of flags.field ?? []) {
            const at = pair.indexOf('=');
            if (at <= 0)
              throw new AppError('USAGE_ERROR', `--field expects NAME=VALUE, got "${pair}"`, { field: '--field' });
            fields[pair.slice(0, at)] = pair.slice(at + 1);
          }
          if (process.stdin.isTTY && output.isTty && flags.json !== true) {
            const catalog = await client.call(client.api.GET('/v1/apps/{slug}', { params: { path: { slug: app } } }));
            for (const field of catalog.data.fields) {
              if (Object.hasOwn(fields, field.name) || field.optional) continue;
              const message = `${field.label} (${field.name})`;
              fields[field.name] = field.secret ? await password({ message }) : await input({ message });
            }
          }
          const created = await client.call(
            client.api.POST('/v1/accounts', {
              body: { app, fields, ...(flags.name !== undefined ? { name: flags.name } : {}) },
            }),
          );
          if (flags.json) output.json(created.data);
          else
            output.out(
              `Created account ${created.data.id} (${created.data.app}, ${created.data.name}); use it with --prop <app prop>=${created.data.id}`,
            );
        }),
      ),
    );

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
    .action(async (flags: RemoteCommandFlags & { app?: string }) =>
      setExit(
        await runRemote(flags, output, async (client) => {
          const found = await allPages((page) =>
            client.call(
              client.api.GET('/v1/accounts', {
                params: { query: { ...page, ...(flags.app ? { app: flags.app } : {}) } },
              }),
            ),
          );
          if (flags.json) return output.json(found);
          if (found.length === 0) return output.out('No connected accounts.');
          const rows = found.map((account) => [
            account.id,
            account.app,
            account.name,
            account.status === 'needs_reconnect' ? 'needs reconnect' : 'ok',
            relativeTime(account.created_at),
          ]);
          for (const line of formatTable(['ID', 'APP', 'NAME', 'STATUS', 'CREATED'], rows)) output.out(line);
        }),
      ),
    );

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
    .action(async (id: string, flags: RemoteCommandFlags) =>
      setExit(
        await runRemote(flags, output, async (client) => {
          const tested = (await client.call(client.api.POST('/v1/accounts/{id}/test', { params: { path: { id } } })))
            .data;
          if (flags.json) output.json(tested);
          else if (tested.status === 'ok')
            output.out(
              tested.checked === 'test_request'
                ? `Account ${tested.account} works: the ${tested.app} test request answered HTTP ${tested.http_status ?? ''}`
                : tested.checked === 'refresh'
                  ? `Account ${tested.account} works: the ${tested.app} token was refreshed`
                  : `Account ${tested.account} is stored; app ${tested.app} has no test request to check it with`,
            );
          else output.err(`error ${tested.error?.code ?? 'INTERNAL'}: ${tested.error?.message ?? tested.status}`);
          return tested.status === 'ok' ? 0 : 1;
        }),
      ),
    );

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
    .action(async (id: string, flags: RemoteCommandFlags) =>
      setExit(
        await runRemote(flags, output, async (client) => {
          const deleted = await client.call(client.api.DELETE('/v1/accounts/{id}', { params: { path: { id } } }));
          if (flags.json) return output.json(deleted.data);
          output.out(`Deleted account ${deleted.data.id}`);
          if (deleted.data.used_by.length > 0) {
            output.out(
              `It was used by ${deleted.data.used_by.length} source${deleted.data.used_by.length === 1 ? '' : 's'}; their app props need another account:`,
            );
            for (const source of deleted.data.used_by) output.out(`  ${source.id}  ${source.name}`);
          }
        }),
      ),
    );
}
