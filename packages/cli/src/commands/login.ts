import { password } from '@inquirer/prompts';
import { AppError } from '@tributary/contracts';
import type { Command } from 'commander';
import { ApiClient } from '../remote/api-client.js';
import { configPath, readConfig, writeConfig } from '../remote/config-file.js';
import { resolveConnection } from '../remote/connection.js';
import { REMOTE_EXIT_OK, reportRemoteFailure } from '../remote/remote-exit.js';
import type { Output } from '../ui/output.js';
import { withSpinner } from '../ui/spinner.js';
import { addRemoteOptions, runRemote, type RemoteCommandFlags } from './remote-command.js';

export function registerLoginCommands(program: Command, output: Output, setExit: (code: number) => void): void {
  addRemoteOptions(
    program
      .command('login')
      .description(
        'Store the API key (and server URL) of a profile in the config file, after checking it with the server',
      ),
  )
    .addHelpText(
      'after',
      `
On a terminal the key is asked for without echo; in scripts pass --api-key or TRIBUTARY_API_KEY.
The config file is $XDG_CONFIG_HOME/tributary/config (else ~/.config/tributary/config), mode 0600.

Examples:
  $ tributary login --api-url http://127.0.0.1:8080
  $ tributary login -p staging --api-url https://tributary.example.com --api-key trb_...
  $ TRIBUTARY_API_KEY=trb_... tributary login`,
    )
    .action(async (flags: RemoteCommandFlags) => setExit(await runLogin(flags, output)));

  addRemoteOptions(program.command('logout').description("Remove a profile's API key from the config file"))
    .addHelpText(
      'after',
      `
Examples:
  $ tributary logout
  $ tributary logout -p staging`,
    )
    .action(async (flags: RemoteCommandFlags) => setExit(await runLogout(flags, output)));

  addRemoteOptions(program.command('whoami').description('Print the user of the API key and the server it talks to'))
    .addHelpText(
      'after',
      `
Examples:
  $ tributary whoami
  $ tributary whoami -p staging --json`,
    )
    .action(async (flags: RemoteCommandFlags) =>
      setExit(
        await runRemote(flags, output, async (client) => {
          const me = await withSpinner(output, 'Checking…', () => client.call(client.api.GET('/v1/users/me')));
          if (flags.json) output.json({ ...me.data, api_url: client.baseUrl, profile: client.connection.profile });
          else output.out(`${describeUser(me.data)} on ${client.baseUrl} (profile ${client.connection.profile})`);
        }),
      ),
    );
}

function describeUser(user: { username: string; email: string | null }): string {
  return user.email ? `${user.username} (${user.email})` : user.username;
}

async function runLogin(flags: RemoteCommandFlags, output: Output): Promise<number> {
  const json = flags.json === true;
  try {
    const resolved = resolveConnection(flags);
    let apiKey = flags.apiKey ?? process.env['TRIBUTARY_API_KEY'] ?? null;
    if (!apiKey) {
      if (!process.stdin.isTTY) {
        throw new AppError(
          'USAGE_ERROR',
          'no API key: give --api-key or TRIBUTARY_API_KEY (the key is only asked for on a terminal)',
          { field: '--api-key' },
        );
      }
      apiKey = (await password({ message: `API key for ${resolved.apiUrl}:`, mask: false })).trim();
      if (apiKey === '') throw new AppError('USAGE_ERROR', 'no API key given', { field: '--api-key' });
    }
    const client = new ApiClient({ ...resolved, apiKey });
    const me = await withSpinner(output, `Checking the key with ${resolved.apiUrl}…`, () =>
      client.call(client.api.GET('/v1/users/me')),
    );
    const file = configPath();
    const profiles = readConfig(file);
    profiles.set(resolved.profile, {
      ...(profiles.get(resolved.profile) ?? {}),
      api_url: resolved.apiUrl,
      api_key: apiKey,
    });
    writeConfig(file, profiles);
    if (json)
      output.json({ ok: true, profile: resolved.profile, api_url: resolved.apiUrl, user: me.data, config: file });
    else
      output.out(
        `Logged in as ${describeUser(me.data)} on ${resolved.apiUrl} (profile ${resolved.profile}, saved in ${file})`,
      );
    return REMOTE_EXIT_OK;
  } catch (error) {
    return reportRemoteFailure(output, error, json);
  }
}

async function runLogout(flags: RemoteCommandFlags, output: Output): Promise<number> {
  const json = flags.json === true;
  try {
    const profile = resolveConnection(flags).profile;
    const file = configPath();
    const profiles = readConfig(file);
    const entries = profiles.get(profile);
    const had = entries?.['api_key'] !== undefined;
    if (entries) {
      delete entries['api_key'];
      if (Object.keys(entries).length === 0) profiles.delete(profile);
      writeConfig(file, profiles);
    }
    if (json) output.json({ ok: true, profile, removed: had });
    else output.out(had ? `Logged out of profile ${profile}` : `Profile ${profile} was not logged in`);
    return REMOTE_EXIT_OK;
  } catch (error) {
    return reportRemoteFailure(output, error, json);
  }
}
