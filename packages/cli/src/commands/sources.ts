import { AppError } from '@tributary/contracts';
import type { Command } from 'commander';
import { parseJson, type PropFlags } from '../local/prop-flags.js';
import { resolveComponentRef } from '../remote/component-ref.js';
import { configureProps } from '../remote/configure-props.js';
import { followSource } from '../remote/follow-source.js';
import { configurableProps, savedComponentFor } from '../remote/saved-component.js';
import { getComponent, getSource, updateSource, type SourceUpdate } from '../remote/source-lookup.js';
import { describeSource, printEvent, printLog, untilInterrupted } from '../remote/source-view.js';
import type { Output } from '../ui/output.js';
import { withSpinner } from '../ui/spinner.js';
import { parseCount } from './common-options.js';
import { addRemotePropOptions } from './remote-prop-options.js';
import { addRemoteOptions, runRemote, type RemoteCommandFlags } from './remote-command.js';

type SetExit = (code: number) => void;

const EXIT_NOTE =
  'Exit codes: 0 ok, 1 refused (usage, validation, unknown or ambiguous source), 2 server or network error.';

/** describe, events, logs, update, delete and run-now: the commands that take a SOURCE. */
export function registerSourceCommands(program: Command, output: Output, setExit: SetExit): void {
  registerDescribe(program, output, setExit);
  registerEvents(program, output, setExit);
  registerLogs(program, output, setExit);
  registerUpdate(program, output, setExit);
  registerDelete(program, output, setExit);
  registerRunNow(program, output, setExit);
}

const SOURCE_ARG = ['<source>', 'dc_ id or name slug of a deployed source'] as const;

function registerDescribe(program: Command, output: Output, setExit: SetExit): void {
  addRemoteOptions(
    program
      .command('describe')
      .description("Show a deployed source's details, or print its code")
      .argument(...SOURCE_ARG),
  )
    .option('--code', 'print the code of the source (pipe it to a file to edit it)')
    .addHelpText(
      'after',
      `
Examples:
  $ tributary describe my-webhook
  $ tributary describe dc_AbC123xyz --json
  $ tributary describe my-webhook --code > my-webhook.mjs

${EXIT_NOTE}`,
    )
    .action(async (ref: string, flags: RemoteCommandFlags & { code?: boolean }) =>
      setExit(
        await runRemote(flags, output, async (client) => {
          const source = await getSource(client, ref);
          if (flags.code) {
            const component = await getComponent(client, source.component_id);
            if (flags.json) output.json({ id: source.id, component_id: component.id, code: component.code });
            else process.stdout.write(component.code.endsWith('\n') ? component.code : `${component.code}\n`);
            return;
          }
          if (flags.json) output.json(source);
          else describeSource(output, source, client.baseUrl);
        }),
      ),
    );
}

interface EventsFlags extends RemoteCommandFlags {
  readonly n?: string;
  readonly follow?: boolean;
}

function registerEvents(program: Command, output: Output, setExit: SetExit): void {
  addRemoteOptions(
    program
      .command('events')
      .description("Print a source's most recent events, newest last, and optionally follow new ones")
      .argument(...SOURCE_ARG),
  )
    .option('-n <N>', 'how many recent events to print (default 10, max 100)')
    .option('-f, --follow', 'keep printing new events as they arrive (Ctrl+C stops)')
    .addHelpText(
      'after',
      `
Each event is printed as one line of JSON (its payload); --json prints the whole record
({ id, indexed_at_ms, event, metadata }) instead.

Examples:
  $ tributary events my-webhook -n 3
  $ tributary events my-webhook -f
  $ tributary events dc_AbC123xyz -n 100 --json

${EXIT_NOTE}`,
    )
    .action(async (ref: string, flags: EventsFlags) => setExit(await runEvents(ref, flags, output)));
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

function registerLogs(program: Command, output: Output, setExit: SetExit): void {
  addRemoteOptions(
    program
      .command('logs')
      .description("Print a source's recent logs (including errors), and optionally follow new ones")
      .argument(...SOURCE_ARG),
  )
    .option('-n <N>', 'how many recent log entries to print (default 100, max 100)')
    .option('-f, --follow', 'keep printing new log entries as they arrive (Ctrl+C stops)')
    .addHelpText(
      'after',
      `
Examples:
  $ tributary logs my-webhook
  $ tributary logs my-webhook -f
  $ tributary logs dc_AbC123xyz --json

${EXIT_NOTE}`,
    )
    .action(async (ref: string, flags: EventsFlags) =>
      setExit(
        await runRemote(flags, output, async (client) => {
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
        }),
      ),
    );
}

interface UpdateFlags extends RemoteCommandFlags, PropFlags {
  readonly code?: string;
  readonly name?: string;
  readonly activate?: boolean;
  readonly deactivate?: boolean;
  readonly active?: string;
}

function registerUpdate(program: Command, output: Output, setExit: SetExit): void {
  addRemotePropOptions(
    addRemoteOptions(
      program
        .command('update')
        .description("Update a deployed source's code, name, props or active state")
        .argument(...SOURCE_ARG),
    ),
  )
    .option('--code <FILE|URL>', 'new code: a local file (bundled with its relative imports) or a URL')
    .option('--name <NAME>', 'new name')
    .option('--activate', 'activate the source (its activate hook runs)')
    .option('--deactivate', 'deactivate the source (its deactivate hook runs; no more events)')
    .option('--active <true|false>', 'legacy form of --activate / --deactivate')
    .addHelpText(
      'after',
      `
Props given with --prop/--props are merged over the configured ones. Prints the source as
describe does.

Examples:
  $ tributary update my-webhook --code webhook.mjs
  $ tributary update my-webhook --name renamed-webhook
  $ tributary update my-webhook --deactivate
  $ tributary update my-poller --prop 'timer={"intervalSeconds":300}'

${EXIT_NOTE}`,
    )
    .action(async (ref: string, flags: UpdateFlags) =>
      setExit(
        await runRemote(flags, output, async (client) => {
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
        }),
      ),
    );
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

function registerDelete(program: Command, output: Output, setExit: SetExit): void {
  addRemoteOptions(
    program
      .command('delete')
      .description('Delete a source with its events, logs and state (its deactivate hook runs first)')
      .argument(...SOURCE_ARG),
  )
    .addHelpText(
      'after',
      `
Examples:
  $ tributary delete my-webhook
  $ tributary delete dc_AbC123xyz --json

${EXIT_NOTE}`,
    )
    .action(async (ref: string, flags: RemoteCommandFlags) =>
      setExit(
        await runRemote(flags, output, async (client) => {
          const source = await getSource(client, ref);
          await withSpinner(output, 'Deleting…', () =>
            client.call(client.api.DELETE('/v1/sources/{id}', { params: { path: { id: source.id } } })),
          );
          if (flags.json) output.json({ ok: true, id: source.id, name: source.name_slug });
          else output.out(`Deleted ${source.id}`);
        }),
      ),
    );
}

function registerRunNow(program: Command, output: Output, setExit: SetExit): void {
  addRemoteOptions(
    program
      .command('run-now')
      .description('Queue one invocation of a deployed source now (RUN NOW), with an optional event')
      .argument(...SOURCE_ARG),
  )
    .option('--event <JSON>', "the event the source's run receives (default: a timer event for timer sources, else {})")
    .addHelpText(
      'after',
      `
Examples:
  $ tributary run-now my-poller
  $ tributary run-now my-webhook --event '{"body":{"hello":"world"}}'

${EXIT_NOTE}`,
    )
    .action(async (ref: string, flags: RemoteCommandFlags & { event?: string }) =>
      setExit(
        await runRemote(flags, output, async (client) => {
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
        }),
      ),
    );
}
