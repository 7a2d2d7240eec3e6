import path from 'node:path';
import { AppError } from '@tributary/contracts/errors';
import { resolveComponentRef } from '../remote/component-ref.js';
import { configureProps } from '../remote/configure-props.js';
import { REMOTE_EXIT_OK, REMOTE_EXIT_REFUSED } from '../remote/remote-exit.js';
import { configurableProps, savedComponentFor } from '../remote/saved-component.js';
import type { RunReport } from '@tributary/engine';
import type { Output } from '../ui/output.js';
import { withSpinner } from '../ui/spinner.js';
import type { RunCommandOptions } from '../commands/run.js';
import { parseSeconds } from './flag-values.js';
import { runRemote } from './remote-command.js';
import { printReport } from './run-report.js';

/**
 * `run --remote KEY|FILE`: the action runs on the server (POST /v1/actions/run), which answers
 * the same report `run --json` prints locally, so scripts read both alike.
 */
export async function runRemoteAction(target: string, options: RunCommandOptions, output: Output): Promise<number> {
  return runRemote(options, output, async (client) => {
    for (const [flag, value] of [
      ['--state', options.state],
      ['--event', options.event],
      ['--auth', options.auth],
    ] as const) {
      if (value !== undefined) {
        throw new AppError(
          'USAGE_ERROR',
          `${flag} is for local runs; with --remote, app props take a connected account (--prop app=apn_…)`,
          { field: flag },
        );
      }
    }
    const ref = await resolveComponentRef(target);
    const component = await withSpinner(output, 'Saving the component…', () => savedComponentFor(client, ref));
    const json = options.json === true;
    const configured = await configureProps({
      client,
      output,
      json,
      componentId: component.id,
      props: configurableProps(component),
      flags: options,
    });
    const timeout =
      options.timeout === undefined ? undefined : Math.ceil(parseSeconds(options.timeout, '--timeout') / 1000);
    const result = await withSpinner(output, 'Running…', () =>
      client.call(
        client.api.POST('/v1/actions/run', {
          body: {
            id: component.id,
            configured_props: configured,
            ...(timeout !== undefined ? { timeout_seconds: timeout } : {}),
          },
        }),
      ),
    );
    // The schema types payloads loosely (unknown); the fields are the ones the local report has.
    const report = result.data as unknown as RunReport;
    if (json) output.json(report);
    else printReport(output, report, component.name ?? path.basename(target));
    return report.ok ? REMOTE_EXIT_OK : REMOTE_EXIT_REFUSED;
  });
}
