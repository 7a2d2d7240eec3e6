import type { Command } from 'commander';
import type { Output } from '../ui/output.js';
import { addRemoteOptions, type RemoteCommandFlags } from './remote-options.js';

/** `dead-letters list|retry|delete`: invocations the platform failed to run on every attempt. */
export function registerDeadLettersCommand(program: Command, output: Output, setExit: (code: number) => void): void {
  const deadLetters = program
    .command('dead-letters')
    .description(
      'Invocations the platform failed to run on every attempt (not errors of the component): list, retry, delete',
    )
    .addHelpText(
      'after',
      `
Examples:
  $ tributary dead-letters list
  $ tributary dead-letters list --source my-source --json
  $ tributary dead-letters retry inv_AbC123xyz
  $ tributary dead-letters delete inv_AbC123xyz`,
    );

  addRemoteOptions(deadLetters.command('list').description('List dead letters, newest failure first'))
    .option('--source <SOURCE>', 'only dead letters of this source (id, name slug or name)')
    .addHelpText(
      'after',
      `
Examples:
  $ tributary dead-letters list
  $ tributary dead-letters list --source my-source --json

Exit codes: 0 ok, 1 unknown source, 2 server or network error.`,
    )
    .action(async (flags: RemoteCommandFlags & { source?: string }) => {
      const { runDeadLettersList } = await import('../actions/dead-letters.js');
      setExit(await runDeadLettersList(flags, output));
    });

  addRemoteOptions(
    deadLetters
      .command('retry')
      .description('Queue a dead letter again (attempts start from zero); it leaves the list')
      .argument('<id>', 'inv_ id of the dead letter'),
  )
    .addHelpText(
      'after',
      `
Examples:
  $ tributary dead-letters retry inv_AbC123xyz
  $ tributary dead-letters retry inv_AbC123xyz --json

Exit codes: 0 queued, 1 no such dead letter, 2 server or network error.`,
    )
    .action(async (id: string, flags: RemoteCommandFlags) => {
      const { runDeadLettersRetry } = await import('../actions/dead-letters.js');
      setExit(await runDeadLettersRetry(id, flags, output));
    });

  addRemoteOptions(
    deadLetters
      .command('delete')
      .description('Delete a dead letter without running it')
      .argument('<id>', 'inv_ id of the dead letter'),
  )
    .addHelpText(
      'after',
      `
Examples:
  $ tributary dead-letters delete inv_AbC123xyz

Exit codes: 0 deleted, 1 no such dead letter, 2 server or network error.`,
    )
    .action(async (id: string, flags: RemoteCommandFlags) => {
      const { runDeadLettersDelete } = await import('../actions/dead-letters.js');
      setExit(await runDeadLettersDelete(id, flags, output));
    });
}
