import type { Command } from 'commander';

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

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
