import type { RemoteCommandFlags } from '../commands/remote-options.js';
import { ApiClient } from '../remote/api-client.js';
import { resolveConnection } from '../remote/connection.js';
import { REMOTE_EXIT_OK, reportRemoteFailure } from '../remote/remote-exit.js';
import type { Output } from '../ui/output.js';

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
