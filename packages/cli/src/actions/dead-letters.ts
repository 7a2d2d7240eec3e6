import type { DeadLetter } from '@tributary/contracts';
import type { z } from 'zod';
import type { Output } from '../ui/output.js';
import { formatTable, relativeTime } from '../ui/table.js';
import type { RemoteCommandFlags } from '../commands/remote-options.js';
import { runRemote } from './remote-command.js';

export async function runDeadLettersList(
  flags: RemoteCommandFlags & { source?: string },
  output: Output,
): Promise<number> {
  return runRemote(flags, output, async (client) => {
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
  });
}

export async function runDeadLettersRetry(id: string, flags: RemoteCommandFlags, output: Output): Promise<number> {
  return runRemote(flags, output, async (client) => {
    const queued = await client.call(client.api.POST('/v1/dead-letters/{id}/retry', { params: { path: { id } } }));
    if (flags.json) return output.json({ ok: true, invocation_id: queued.data.invocation_id });
    output.out(`Queued ${queued.data.invocation_id} again`);
  });
}

export async function runDeadLettersDelete(id: string, flags: RemoteCommandFlags, output: Output): Promise<number> {
  return runRemote(flags, output, async (client) => {
    await client.call(client.api.DELETE('/v1/dead-letters/{id}', { params: { path: { id } } }));
    if (flags.json) return output.json({ ok: true, id });
    output.out(`Deleted dead letter ${id}`);
  });
}

const PAGE = 100;
const MAX_ITEMS = 10_000;

/** The first line of an error, cut to fit a table cell. */
function short(text: string, width = 60): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > width ? `${line.slice(0, width - 1)}…` : line;
}
