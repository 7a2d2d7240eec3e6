import type { Command } from 'commander';
import { ApiClient } from '../remote/api-client.js';
import { resolveConnection, type RemoteFlags } from '../remote/connection.js';
import { REMOTE_EXIT_OK, reportRemoteFailure } from '../remote/remote-exit.js';
import type { Output } from '../ui/output.js';

export interface RemoteCommandFlags extends RemoteFlags {
  readonly json?: boolean;
}

/** `-p/--profile`, `--api-url`, `--api-key` and `--json`: the flags of every command that talks to a server. */
export function addRemoteOptions(command: Command): Command {
  return command
    .option('-p, --profile <NAME>', 'profile of the config file to use (TRIBUTARY_PROFILE; default "default")')
    .option('--api-url <URL>', 'server URL, e.g. http://127.0.0.1:8080 (TRIBUTARY_API_URL)')
    .option('--api-key <KEY>', 'API key (TRIBUTARY_API_KEY)')
    .option('--json', 'print JSON for scripts instead of text');
}

/**
 * Runs a remote command body with a client for the resolved connection and turns what it throws
 * into the remote exit codes; the body returns its own exit code.
 */
export async function runRemote<F extends RemoteCommandFlags>(
  flags: F,
  output: Output,
  body: (client: ApiClient) => Promise<number | void>,
): Promise<number> {
  try {
    const client = new ApiClient(resolveConnection(flags));
    return (await body(client)) ?? REMOTE_EXIT_OK;
  } catch (error) {
    return reportRemoteFailure(output, error, flags.json === true);
  }
}
