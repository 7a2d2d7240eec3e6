import { AppError } from '@tributary/contracts/errors';
import type { DeployedSourceT } from '@tributary/contracts';
import type { DeployFlags } from '../commands/deploy.js';
import type { ApiClient } from '../remote/api-client.js';
import { resolveComponentRef } from '../remote/component-ref.js';
import { canPrompt, configureProps } from '../remote/configure-props.js';
import { followSource } from '../remote/follow-source.js';
import { withInstallProgress } from '../remote/install-progress.js';
import { configurableProps, savedComponentFor } from '../remote/saved-component.js';
import { untilInterrupted } from '../remote/source-view.js';
import type { Output } from '../ui/output.js';
import { withSpinner } from '../ui/spinner.js';
import { runRemote } from './remote-command.js';

export async function runDeploy(
  target: string | undefined,
  flags: DeployFlags,
  output: Output,
  signal?: AbortSignal,
): Promise<number> {
  return runRemote(flags, output, async (client) => {
    const json = flags.json === true;
    const ref = await resolveComponentRef(target ?? (await pickPublishedSource(client, output, json)));
    if (!json) output.out('Deploying...');
    const component = await withInstallProgress(client, output, (scoped) =>
      withSpinner(output, 'Saving the component…', () => savedComponentFor(scoped, ref)),
    );
    const configured = await configureProps({
      client,
      output,
      json,
      componentId: component.id,
      props: configurableProps(component),
      flags,
    });
    const source = await withSpinner(output, 'Deploying…', () =>
      client.call(
        client.api.POST('/v1/sources', {
          body: {
            component_id: component.id,
            configured_props: configured,
            ...(flags.name !== undefined ? { name: flags.name } : {}),
          },
        }),
      ),
    );
    printDeployed(output, source.data, json);
    if (flags.follow === false) return;
    await followEvents(client, output, source.data, json, signal);
  });
}

/** `pd deploy` without arguments: pick one of the published sources. */
async function pickPublishedSource(client: ApiClient, output: Output, json: boolean): Promise<string> {
  if (!canPrompt(output, json)) {
    throw new AppError(
      'USAGE_ERROR',
      'deploy what? give a file, a published key or a URL (the registry is only offered on a terminal)',
      { field: 'file' },
    );
  }
  // The registry answers every published component in one page (it takes no cursor).
  const registry = await withSpinner(output, 'Loading the registry…', () =>
    client.call(client.api.GET('/v1/components/registry')),
  );
  const published = registry.data.filter(
    (component) => component.component_type === 'source' && component.key !== null,
  );
  if (published.length === 0)
    throw new AppError(
      'NOT_FOUND',
      'no source is published on this server; deploy a file, or publish one with: tributary publish FILE',
    );
  // The prompts load only when one is shown: scripts, CI and --json never show one.
  const { select } = await import('@inquirer/prompts');
  return select({
    message: 'Source to deploy',
    choices: published.map((component) => ({
      name: `${component.key ?? ''}  ${component.name ?? ''} ${component.version ?? ''}`.trim(),
      value: component.key ?? '',
      ...(component.description ? { description: component.description } : {}),
    })),
    pageSize: 15,
  });
}

export function printDeployed(output: Output, source: DeployedSourceT, json: boolean): void {
  if (json) {
    output.json(source);
    return;
  }
  output.out('Deploy complete.');
  output.out(`Source name: ${source.name_slug}`);
  output.out(`Source id: ${source.id}`);
  if (source.endpoint_url) output.out(`Endpoint: ${source.endpoint_url}`);
}

async function followEvents(
  client: ApiClient,
  output: Output,
  source: DeployedSourceT,
  json: boolean,
  signal?: AbortSignal,
): Promise<void> {
  const stop = untilInterrupted(signal);
  const follow = followSource({
    client,
    output,
    sourceId: source.id,
    json,
    signal: stop.signal,
    onOpen: () => {
      if (json) return;
      output.out(
        `Listening for new events on the SSE stream for this source: ${client.url(`/sources/${source.id}/sse`)}`,
      );
      output.out('Press Ctrl + C to terminate.');
    },
  });
  await Promise.race([follow, stop.done]);
}
