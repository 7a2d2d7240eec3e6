import { AppError } from '@tributary/contracts/errors';
import { allPages } from '../remote/pages.js';
import type { Output } from '../ui/output.js';
import { formatTable, relativeTime } from '../ui/table.js';
import type { RemoteCommandFlags } from '../commands/remote-options.js';
import type { CreateFlags } from '../commands/accounts.js';
import { runRemote } from './remote-command.js';

export async function runAccountsCreate(app: string, flags: CreateFlags, output: Output): Promise<number> {
  return runRemote(flags, output, async (client) => {
    const fields: Record<string, string> = {};
    for (const pair of flags.field ?? []) {
      const at = pair.indexOf('=');
      if (at <= 0) throw new AppError('USAGE_ERROR', `--field expects NAME=VALUE, got "${pair}"`, { field: '--field' });
      fields[pair.slice(0, at)] = pair.slice(at + 1);
    }
    if (process.stdin.isTTY && output.isTty && flags.json !== true) {
      // The prompts load only when one is shown: scripts, CI and --json never show one.
      const { input, password } = await import('@inquirer/prompts');
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
  });
}

export async function runAccountsList(flags: RemoteCommandFlags & { app?: string }, output: Output): Promise<number> {
  return runRemote(flags, output, async (client) => {
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
  });
}

export async function runAccountsTest(id: string, flags: RemoteCommandFlags, output: Output): Promise<number> {
  return runRemote(flags, output, async (client) => {
    const tested = (await client.call(client.api.POST('/v1/accounts/{id}/test', { params: { path: { id } } }))).data;
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
  });
}

export async function runAccountsDelete(id: string, flags: RemoteCommandFlags, output: Output): Promise<number> {
  return runRemote(flags, output, async (client) => {
    const deleted = await client.call(client.api.DELETE('/v1/accounts/{id}', { params: { path: { id } } }));
    if (flags.json) return output.json(deleted.data);
    output.out(`Deleted account ${deleted.data.id}`);
    if (deleted.data.used_by.length > 0) {
      output.out(
        `It was used by ${deleted.data.used_by.length} source${deleted.data.used_by.length === 1 ? '' : 's'}; their app props need another account:`,
      );
      for (const source of deleted.data.used_by) output.out(`  ${source.id}  ${source.name}`);
    }
  });
}
