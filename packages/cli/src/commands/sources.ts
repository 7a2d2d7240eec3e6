import type { Command } from 'commander';
import type { Output } from '../ui/output.js';
import { addRemoteOptions, addRemotePropOptions, type RemoteCommandFlags } from './remote-options.js';
import type { PropFlags } from '../local/prop-flags.js';

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
    .action(async (ref: string, flags: RemoteCommandFlags & { code?: boolean }) => {
      const { runDescribe } = await import('../actions/sources.js');
      setExit(await runDescribe(ref, flags, output));
    });
}

export interface EventsFlags extends RemoteCommandFlags {
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
    .action(async (ref: string, flags: EventsFlags) => {
      const { runEvents } = await import('../actions/sources.js');
      setExit(await runEvents(ref, flags, output));
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
    .action(async (ref: string, flags: EventsFlags) => {
      const { runLogs } = await import('../actions/sources.js');
      setExit(await runLogs(ref, flags, output));
    });
}

export interface UpdateFlags extends RemoteCommandFlags, PropFlags {
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
    .action(async (ref: string, flags: UpdateFlags) => {
      const { runUpdate } = await import('../actions/sources.js');
      setExit(await runUpdate(ref, flags, output));
    });
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
    .action(async (ref: string, flags: RemoteCommandFlags) => {
      const { runDelete } = await import('../actions/sources.js');
      setExit(await runDelete(ref, flags, output));
    });
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
    .action(async (ref: string, flags: RemoteCommandFlags & { event?: string }) => {
      const { runRunNow } = await import('../actions/sources.js');
      setExit(await runRunNow(ref, flags, output));
    });
}
