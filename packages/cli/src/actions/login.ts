import { AppError } from '@tributary/contracts/errors';
import { ApiClient } from '../remote/api-client.js';
import { configPath, readConfig, writeConfig } from '../remote/config-file.js';
import { resolveConnection } from '../remote/connection.js';
import { REMOTE_EXIT_OK, reportRemoteFailure } from '../remote/remote-exit.js';
import type { Output } from '../ui/output.js';
import { withSpinner } from '../ui/spinner.js';
import type { RemoteCommandFlags } from '../commands/remote-options.js';
import { runRemote } from './remote-command.js';

export async function runWhoami(flags: RemoteCommandFlags, output: Output): Promise<number> {
  return runRemote(flags, output, async (client) => {
    const me = await withSpinner(output, 'Checking…', () => client.call(client.api.GET('/v1/users/me')));
    if (flags.json) output.json({ ...me.data, api_url: client.baseUrl, profile: client.connection.profile });
    else output.out(`${describeUser(me.data)} on ${client.baseUrl} (profile ${client.connection.profile})`);
  });
}

function describeUser(user: { username: string; email: string | null }): string {
  return user.email ? `${user.username} (${user.email})` : user.username;
}

export async function runLogin(flags: RemoteCommandFlags, output: Output): Promise<number> {
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
      // The prompts load only when one is shown: scripts, CI and --json never show one.
      const { password } = await import('@inquirer/prompts');
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

export async function runLogout(flags: RemoteCommandFlags, output: Output): Promise<number> {
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
