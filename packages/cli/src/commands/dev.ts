import type { Command } from 'commander';
import type { PropFlags } from '../local/prop-flags.js';
import type { RemoteFlags } from '../remote/connection.js';
import type { Output } from '../ui/output.js';
import { addPropOptions } from './common-options.js';

export const DEFAULT_DEV_PORT = 4100;

export interface DevCommandOptions extends PropFlags, RemoteFlags {
  readonly dc?: string;
  readonly state?: string;
  readonly port?: string;
  readonly host?: string;
  readonly timeout?: string;
  readonly json?: boolean;
}

export function registerDevCommand(program: Command, output: Output, setExit: (code: number) => void): void {
  addPropOptions(
    program
      .command('dev')
      .description(
        'Run a source on this machine (local HTTP endpoint, timers, live logs and events, reload on save), or with --dc update a deployed source on every save',
      )
      .argument('<file>', 'source file'),
  )
    .option(
      '--dc <SOURCE>',
      'attach to this deployed source (dc_ id or name slug) on the server instead of running locally',
    )
    .option('-p, --profile <NAME>', 'with --dc: profile of the config file (TRIBUTARY_PROFILE)')
    .option('--api-url <URL>', 'with --dc: server URL (TRIBUTARY_API_URL)')
    .option('--api-key <KEY>', 'with --dc: API key (TRIBUTARY_API_KEY)')
    .option('--state <DIR>', 'where db and dedupe state live (default: .tributary-dev/<file name>)')
    .option('--port <PORT>', 'port of the local HTTP endpoint (0 picks a free one)', String(DEFAULT_DEV_PORT))
    .option('--host <HOST>', 'address the local HTTP endpoint listens on', '127.0.0.1')
    .option('--timeout <SECONDS>', 'deadline of each invocation (default 300)')
    .option('--json', 'print one JSON object per line: ready, invocation, log, result, reload, error, stopped')
    .addHelpText(
      'after',
      `
The first start runs the deploy and activate hooks; later starts run activate; Ctrl+C runs
deactivate. Each save of the file (or a file it imports) runs deactivate, swaps the code and runs
activate, keeping the db. A save that does not load is reported and the previous code keeps running.

Examples:
  $ tributary dev webhook.mjs
  $ tributary dev poller.mjs --prop 'timer={"intervalSeconds":30}' --state .state/poller
  $ tributary dev webhook.mjs --port 0 --json
  $ tributary dev --dc my-webhook webhook.mjs     # update the deployed source on every save

With --dc the file's code replaces the deployed source's code now and on every save (the server runs
deactivate, swaps the code, runs activate; the source keeps its id, endpoint, props and db), and
the source's logs and events stream until Ctrl+C. Exit codes with --dc: 0 stopped with Ctrl+C,
1 refused (usage, validation, unknown source), 2 server or network error.`,
    )
    .action(async (file: string, options: DevCommandOptions) => {
      const { runDev, runDevAttached } = await import('../actions/dev.js');
      setExit(
        options.dc !== undefined ? await runDevAttached(file, options, output) : await runDev(file, options, output),
      );
    });
}
