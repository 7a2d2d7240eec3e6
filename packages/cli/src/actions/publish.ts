import { AppError } from '@tributary/contracts/errors';
import { resolveComponentRef } from '../remote/component-ref.js';
import type { Output } from '../ui/output.js';
import { withSpinner } from '../ui/spinner.js';
import { formatTable } from '../ui/table.js';
import { componentRow, withoutCode } from './list.js';
import type { RemoteCommandFlags } from '../commands/remote-options.js';
import { runRemote } from './remote-command.js';

export async function runPublish(target: string, flags: RemoteCommandFlags, output: Output): Promise<number> {
  return runRemote(flags, output, async (client) => {
    const ref = await resolveComponentRef(target, { allowKey: false });
    const body =
      ref.kind === 'code' ? { component_code: ref.code } : ref.kind === 'url' ? { component_url: ref.url } : null;
    if (body === null) throw new AppError('USAGE_ERROR', `publish takes a file or a URL, not the key ${target}`);
    // Saving first reads the key from the code, which the publish route is addressed by.
    const saved = await withSpinner(output, 'Checking…', () =>
      client.call(client.api.POST('/v1/components', { body })),
    );
    const key = saved.data.key;
    if (!key)
      throw new AppError('COMPONENT_INVALID', `C5: ${target} has no key; a published component needs one`, {
        rule: 'C5',
      });
    const published = await withSpinner(output, 'Publishing…', () =>
      client.call(client.api.PUT('/v1/components/{key}', { params: { path: { key } }, body })),
    );
    if (flags.json) {
      output.json(withoutCode(published.data));
      return;
    }
    // The row `pd publish` prints comes first, for scripts that read it; then what happened.
    for (const line of formatTable(['ID', 'NAME', 'VERSION', 'UPDATED', 'KEY'], [componentRow(published.data)]).slice(
      1,
    ))
      output.out(line);
    const verb = published.data.component_type === 'action' ? 'run --remote' : 'deploy';
    output.out(
      `Published ${key} ${published.data.version ?? ''} to the registry of ${client.baseUrl}; use it with: tributary ${verb} ${key}`,
    );
  });
}

export async function runUnpublish(
  first: string,
  second: string | undefined,
  flags: RemoteCommandFlags,
  output: Output,
): Promise<number> {
  return runRemote(flags, output, async (client) => {
    const key = second !== undefined && first === 'component' ? second : second === undefined ? first : null;
    if (key === null) throw new AppError('USAGE_ERROR', 'unpublish takes one KEY (or: unpublish component KEY)');
    await withSpinner(output, 'Unpublishing…', () =>
      client.call(client.api.DELETE('/v1/components/{key}', { params: { path: { key } } })),
    );
    if (flags.json) output.json({ ok: true, key });
    else output.out(`Unpublished ${key}`);
  });
}
