import type { Command } from 'commander';
import type { Output } from '../ui/output.js';
import { addRemoteOptions, type RemoteCommandFlags } from './remote-options.js';

export interface ListFlags extends RemoteCommandFlags {
  readonly all?: boolean;
}

export function registerListCommand(program: Command, output: Output, setExit: (code: number) => void): void {
  addRemoteOptions(
    program
      .command('list')
      .alias('ls')
      .description('List deployed sources, saved components or connected accounts')
      .argument('[what]', 'sources (so), components or accounts; on a terminal, omit it to choose'),
  )
    .option('--all', 'components: every saved version, not only the newest of each component')
    .addHelpText(
      'after',
      `
Examples:
  $ tributary list sources
  $ tributary list components          # the newest version of each component
  $ tributary list components --all    # every saved version
  $ tributary list accounts --json

Exit codes: 0 ok, 1 usage, 2 server or network error.`,
    )
    .action(async (what: string | undefined, flags: ListFlags) => {
      const { runList } = await import('../actions/list.js');
      setExit(await runList(what, flags, output));
    });
}
