import type { DeadLetter } from '@tributary/contracts';
import type { Command } from 'commander';
import type { z } from 'zod';
import type { Output } from '../ui/output.js';
import { formatTable, relativeTime } from '../ui/table.js';
import { addRemoteOptions, runRemote, type RemoteCommandFlags } from './remote-command.js';

const PAGE = 100;
const MAX_ITEMS = 10_000;

/** The first line of an error, cut to fit a table cell. */
function short(text: string, width = 60): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > width ? `${line.slice(0, width - 1)}…` : line;
}

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
    .action(async (flags: RemoteCommandFlags & { source?: string }) =>
      setExit(
        await runRemote(flags, output, async (client) => {
          const found: z.infer<typeof DeadLetter>[] = [];
          let before: string | undefined;
          for (;;) {
            const page = await client.call(
              client.api.GET('/v1/dead-letters', {
                params: {
                  query: {
                    limit: PAGE,
                    ...(flags.source !== undefined ? { source_id: flags.source } : {}),
                    ...(before !== undefined ? { before } : {}),
                  },
                },
              }),
            );
            found.push(...page.data);
            const next = page.page_info.end_cursor;
            if (page.data.length < PAGE || next === null || found.length >= MAX_ITEMS) break;
            before = next;
          }
          if (flags.json) return output.json(found);
          if (found.length === 0) return output.out('No dead letters.');
          const rows = found.map((letter) => [
            letter.id,
            letter.source_id,
            letter.trigger,
            String(letter.attempts),
            relativeTime(letter.failed_at),
            short(letter.last_error),
          ]);
          for (const line of formatTable(['ID', 'SOURCE', 'TRIGGER', 'ATTEMPTS', 'FAILED', 'LAST ERROR'], rows))
            output.out(line);
        }),
      ),
    );

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
    .action(async (id: string, flags: RemoteCommandFlags) =>
      setExit(
        await runRemote(flags, output, async (client) => {
          const queued = await client.call(
            client.api.POST('/v1/dead-letters/{id}/retry', { params: { path: { id } } }),
          );
          if (flags.json) return output.json({ ok: true, invocation_id: queued.data.invocation_id });
          output.out(`Queued ${queued.data.invocation_id} again`);
        }),
      ),
    );

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
    .action(async (id: string, flags: RemoteCommandFlags) =>
      setExit(
        await runRemote(flags, output, async (client) => {
          await client.call(client.api.DELETE('/v1/dead-letters/{id}', { params: { path: { id } } }));
          if (flags.json) return output.json({ ok: true, id });
          output.out(`Deleted dead letter ${id}`);
        }),
      ),
    );
}
