import type { Command } from 'commander';
import type { PropFlags } from '../local/prop-flags.js';
import type { RemoteFlags } from '../remote/connection.js';
import type { Output } from '../ui/output.js';
import { addPropOptions } from './common-options.js';

export interface RunCommandOptions extends PropFlags, RemoteFlags {
  readonly remote?: boolean;
  readonly event?: string;
  readonly state?: string;
  readonly timeout?: string;
  readonly json?: boolean;
}

export function registerRunCommand(program: Command, output: Output, setExit: (code: number) => void): void {
  addPropOptions(
    program
      .command('run')
      .description(
        'Run an action once, or a source once (its deploy and activate hooks run first when the state is new)',
      )
      .argument('<file>', 'component file (.mjs, .js, .cjs or .ts); with --remote also a published key'),
  )
    .option('--event <JSON>', 'the event a source run receives (default: a timer event for timer sources, else {})')
    .option('--state <DIR>', 'keep db and dedupe state in DIR between runs (default: a fresh state every run)')
    .option('--timeout <SECONDS>', 'deadline of each invocation (default 300 for sources, 30 for actions)')
    .option('--json', 'print exactly one JSON object (see docs/cli.md)')
    .option('--remote', 'run the action on the server (POST /v1/actions/run) instead of on this machine')
    .option('-p, --profile <NAME>', 'with --remote: profile of the config file (TRIBUTARY_PROFILE)')
    .option('--api-url <URL>', 'with --remote: server URL (TRIBUTARY_API_URL)')
    .option('--api-key <KEY>', 'with --remote: API key (TRIBUTARY_API_KEY)')
    .addHelpText(
      'after',
      `
Examples:
  $ tributary run hello.mjs --prop name=World
  $ tributary run sum.mjs --prop 'nums=[1,2,3]' --json
  $ tributary run counter.mjs --state .state/counter     # db and dedupe survive between runs
  $ tributary run echo.mjs --event '{"method":"POST","body":{"a":1}}'
  $ tributary run --remote my-published-action --prop name=World --json
  $ tributary run --remote acme-action.mjs --prop acme=apn_AbC123 --prop board=b1

Exit codes: 0 ok, 1 the component threw or timed out, 2 usage, load or validation error.
With --remote: 0 ok, 1 the action failed or was refused (usage, validation, a prop), 2 server or
network error.`,
    )
    .action(async (file: string, options: RunCommandOptions) => {
      if (options.remote) {
        const { runRemoteAction } = await import('../actions/run-remote.js');
        setExit(await runRemoteAction(file, options, output));
      } else {
        const { runRun } = await import('../actions/run.js');
        setExit(await runRun(file, options, output));
      }
    });
}
