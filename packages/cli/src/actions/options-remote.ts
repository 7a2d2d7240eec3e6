import { AppError } from '@tributary/contracts/errors';
import { resolveComponentRef } from '../remote/component-ref.js';
import { configureProps } from '../remote/configure-props.js';
import { REMOTE_EXIT_OK, REMOTE_EXIT_REFUSED } from '../remote/remote-exit.js';
import { configurableProps, savedComponentFor } from '../remote/saved-component.js';
import type { Output } from '../ui/output.js';
import { withSpinner } from '../ui/spinner.js';
import type { OptionsCommandOptions } from '../commands/options.js';
import { pageFlags, printOptionsPage } from './options-page.js';
import { runRemote } from './remote-command.js';

/**
 * `options --remote FILE|KEY PROP`: one page of a prop's options from the server, which runs
 * options() in the sandbox with the connected accounts of the configured app props.
 */
export async function runRemoteOptions(
  target: string,
  prop: string,
  options: OptionsCommandOptions,
  output: Output,
): Promise<number> {
  return runRemote(options, output, async (client) => {
    if (options.auth !== undefined) {
      throw new AppError(
        'USAGE_ERROR',
        '--auth is for local runs; with --remote, app props take a connected account (--prop app=apn_…)',
        { field: '--auth' },
      );
    }
    const { page, prevContext } = pageFlags(options);
    const component = await withSpinner(output, 'Saving the component…', async () =>
      savedComponentFor(client, await resolveComponentRef(target)),
    );
    const configured = await configureProps({
      client,
      output,
      json: true,
      componentId: component.id,
      props: configurableProps(component),
      flags: options,
    });
    const result = await withSpinner(output, `Loading options of ${prop}…`, () =>
      client.call(
        client.api.POST('/v1/components/configure', {
          body: {
            id: component.id,
            prop_name: prop,
            configured_props: configured,
            page,
            ...(prevContext ? { prev_context: prevContext } : {}),
            ...(options.query !== undefined ? { query: options.query } : {}),
          },
        }),
      ),
    );
    // The local command's shape, so scripts read both alike.
    printOptionsPage(
      output,
      {
        options: result.string_options !== null && result.options.length === 0 ? null : result.options,
        stringOptions: result.string_options,
        context: result.context,
        errors: result.errors,
        observations: result.observations,
      },
      page,
      options.json === true,
    );
    return result.errors.length === 0 ? REMOTE_EXIT_OK : REMOTE_EXIT_REFUSED;
  });
}
