import type { Command } from 'commander';
import type { RemoteFlags } from '../remote/connection.js';

export interface RemoteCommandFlags extends RemoteFlags {
  readonly json?: boolean;
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** `-p/--profile`, `--api-url`, `--api-key` and `--json`: the flags of every command that talks to a server. */
export function addRemoteOptions(command: Command): Command {
  return command
    .option('-p, --profile <NAME>', 'profile of the config file to use (TRIBUTARY_PROFILE; default "default")')
    .option('--api-url <URL>', 'server URL, e.g. http://127.0.0.1:8080 (TRIBUTARY_API_URL)')
    .option('--api-key <KEY>', 'API key (TRIBUTARY_API_KEY)')
    .option('--json', 'print JSON for scripts instead of text');
}

/** `--prop` and `--props` of deploy, update, dev --dc and run --remote (no `--auth`: accounts live on the server). */
export function addRemotePropOptions(command: Command): Command {
  return command
    .option(
      '--prop <NAME=VALUE>',
      'set a prop; non-string props parse VALUE as JSON; app props take {"authProvisionId":"apn_…"} (repeatable)',
      collect,
    )
    .option('--props <JSON>', 'set several props from one JSON object');
}
