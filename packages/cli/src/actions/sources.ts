import { AppError } from '@tributary/contracts/errors';
import { parseJson } from '../local/prop-flags.js';
import { resolveComponentRef } from '../remote/component-ref.js';
import { configureProps } from '../remote/configure-props.js';
import { followSource } from '../remote/follow-source.js';
import { configurableProps, savedComponentFor } from '../remote/saved-component.js';
import { getComponent, getSource, updateSource, type SourceUpdate } from '../remote/source-lookup.js';
import { describeSource, printEvent, printLog, untilInterrupted } from '../remote/source-view.js';
import type { Output } from '../ui/output.js';
import { withSpinner } from '../ui/spinner.js';
import { parseCount } from './flag-values.js';
import type { RemoteCommandFlags } from '../commands/remote-options.js';
import type { EventsFlags, UpdateFlags } from '../commands/sources.js';
import { runRemote } from './remote-command.js';

export async function runDescribe(
  ref: string,
  flags: RemoteCommandFlags & { code?: boolean },
  output: Output,
): Promise<number> {
  return runRemote(flags, output, async (client) => {
    const source = await getSource(client, ref);
    if (flags.code) {
      const component = await getComponent(client, source.component_id);
      if (flags.json) output.json({ id: source.id, component_id: component.id, code: component.code });
      else process.stdout.write(component.code.endsWith('\n') ? component.code : `${component.code}\n`);
      return;
    }
    if (flags.json) output.json(source);
    else describeSource(output, source, client.baseUrl);
  });
}

export async function runLogs(ref: string, flags: EventsFlags, output: Output): Promise<number> {
  return runRemote(flags, output, async (client) => {
    const json = flags.json === true;
    const count = flags.n !== undefined ? parseCount(flags.n, '-n', 1) : 100;
    if (count > 100) throw new AppError('USAGE_ERROR', `-n must be at most 100, got ${count}`, { field: '-n' });
    const source = await getSource(client, ref);
    const page = await client.call(
      client.api.GET('/v1/sources/{id}/logs', { params: { path: { id: source.id }, query: { limit: count } } }),
    );
    for (const entry of [...page.data].reverse()) printLog(output, entry, json);
    if (!flags.follow) return;
    const stop = untilInterrupted();
    await Promise.race([
      followSource({ client, output, sourceId: source.id, json, signal: stop.signal, events: false, logs: true }),
      stop.done,
    ]);
  });
}

export async function runUpdate(ref: string, flags: UpdateFlags, output: Output): Promise<number> {
  return runRemote(flags, output, async (client) => {
    const active = activeFlag(flags);
    const source = await getSource(client, ref);
    const body: SourceUpdate = {};
    let componentId = source.component_id;
    if (flags.code !== undefined) {
      const saved = await withSpinner(output, 'Saving the code…', async () =>
        savedComponentFor(client, await resolveComponentRef(flags.code ?? '', { allowKey: false })),
      );
      body.component_id = saved.id;
      componentId = saved.id;
    }
    if (flags.name !== undefined) body.name = flags.name;
    if (active !== undefined) body.active = active;
    if (flags.prop !== undefined || flags.props !== undefined) {
      const component = await getComponent(client, componentId);
      body.configured_props = await configureProps({
        client,
        output,
        json: true, // never prompt: update changes only what it is given
        componentId,
        props: configurableProps(component),
        flags,
      });
    }
    if (Object.keys(body).length === 0) {
      throw new AppError(
        'USAGE_ERROR',
        'nothing to update: give --code, --name, --prop/--props, --activate or --deactivate',
      );
    }
    const updated = await withSpinner(output, 'Updating…', () => updateSource(client, source.id, body));
    if (flags.json) output.json(updated);
    else describeSource(output, updated, client.baseUrl);
  });
}

export async function runDelete(ref: string, flags: RemoteCommandFlags, output: Output): Promise<number> {
  return runRemote(flags, output, async (client) => {
    const source = await getSource(client, ref);
    await withSpinner(output, 'Deleting…', () =>
      client.call(client.api.DELETE('/v1/sources/{id}', { params: { path: { id: source.id } } })),
    );
    if (flags.json) output.json({ ok: true, id: source.id, name: source.name_slug });
    else output.out(`Deleted ${source.id}`);
  });
}

export async function runRunNow(
  ref: string,
  flags: RemoteCommandFlags & { event?: string },
  output: Output,
): Promise<number> {
  return runRemote(flags, output, async (client) => {
    const event = flags.event === undefined ? undefined : parseJson(flags.event, '--event');
    const source = await getSource(client, ref);
    const queued = await client.call(
      client.api.POST('/v1/sources/{id}/run', {
        params: { path: { id: source.id } },
        body: event === undefined ? {} : { event },
      }),
    );
    if (flags.json) output.json({ ok: true, source_id: source.id, invocation_id: queued.data.invocation_id });
    else
      output.out(
        `Queued invocation ${queued.data.invocation_id} of ${source.id}; see it with: tributary events ${source.name_slug}`,
      );
  });
}

export async function runEvents(
  ref: string,
  flags: EventsFlags,
  output: Output,
  signal?: AbortSignal,
): Promise<number> {
  return runRemote(flags, output, async (client) => {
    const json = flags.json === true;
    const count = flags.n !== undefined ? parseCount(flags.n, '-n', 1) : flags.follow ? 0 : 10;
    if (count > 100)
      throw new AppError('USAGE_ERROR', `-n must be at most 100 (the event bin keeps the last 100), got ${count}`, {
        field: '-n',
      });
    const source = await getSource(client, ref);
    let newest: string | null = null;
    if (count > 0) {
      const page = await client.call(
        client.api.GET('/v1/sources/{id}/event_summaries', {
          params: { path: { id: source.id }, query: { limit: count, expand: 'event' } },
        }),
      );
      const events = [...page.data].reverse();
      for (const record of events) printEvent(output, record, json);
      newest = page.data[0]?.id ?? null;
    }
    if (!flags.follow) return;
    const stop = untilInterrupted(signal);
    await Promise.race([
      followSource({ client, output, sourceId: source.id, json, signal: stop.signal, lastEventId: newest }),
      stop.done,
    ]);
  });
}

function activeFlag(flags: UpdateFlags): boolean | undefined {
  const given = [
    flags.activate ? true : undefined,
    flags.deactivate ? false : undefined,
    flags.active === undefined ? undefined : flags.active,
  ].filter((value) => value !== undefined);
  if (given.length > 1)
    throw new AppError('USAGE_ERROR', 'give only one of --activate, --deactivate and --active', { field: '--active' });
  const [value] = given;
  if (value === undefined || typeof value === 'boolean') return value;
  if (value === 'true' || value === 'false') return value === 'true';
  throw new AppError('USAGE_ERROR', `--active must be true or false, got "${value}"`, { field: '--active' });
}
