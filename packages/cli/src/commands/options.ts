import type { Command } from 'commander';
import type { PropFlags } from '../local/prop-flags.js';
import type { RemoteFlags } from '../remote/connection.js';
import type { Output } from '../ui/output.js';
import { addPropOptions } from './common-options.js';

export interface OptionsCommandOptions extends PropFlags, RemoteFlags {
  readonly remote?: boolean;
  readonly page?: string;
  readonly prevContext?: string;
  readonly query?: string;
  readonly timeout?: string;
  readonly json?: boolean;
}

export function registerOptionsCommand(program: Command, output: Output, setExit: (code: number) => void): void {
  addPropOptions(
    program
      .command('options')
      .description("Print one page of a prop's options (static list or async options())")
      .argument('<file>', 'component file')
      .argument('<prop>', 'prop name'),
  )
    .option('--page <N>', '0-based page number', '0')
    .option('--prev-context <JSON>', 'the context the previous page returned (e.g. {"nextPageToken":1})')
    .option('--query <TEXT>', 'search text, for props with useQuery: true')
    .option('--timeout <SECONDS>', 'deadline of the options() call', '30')
    .option('--json', 'print the page as JSON: { options, stringOptions, context, errors, observations }')
    .option(
      '--remote',
      'ask the server (POST /v1/components/configure); FILE may then be a published key, and app props take a connected account (--prop app=apn_…)',
    )
    .option('-p, --profile <NAME>', 'with --remote: profile of the config file (TRIBUTARY_PROFILE)')
    .option('--api-url <URL>', 'with --remote: server URL (TRIBUTARY_API_URL)')
    .option('--api-key <KEY>', 'with --remote: API key (TRIBUTARY_API_KEY)')
    .addHelpText(
      'after',
      `
Examples:
  $ tributary options pick-list.mjs board --auth acme='{"api_key":"k"}'
  $ tributary options pick-list.mjs list --prop board=b1
  $ tributary options options.mjs city --prev-context '{"nextPageToken":1}'
  $ tributary options options.mjs fruit --query ap --page 1 --json
  $ tributary options --remote pick-list.mjs board --prop acme=apn_AbC123

Exit codes: 0 ok, 1 options() threw, 2 usage or load error. With --remote: 0 ok, 1 options() threw
or the request was refused, 2 server or network error.`,
    )
    .action(async (file: string, prop: string, options: OptionsCommandOptions) => {
      if (options.remote) {
        const { runRemoteOptions } = await import('../actions/options-remote.js');
        setExit(await runRemoteOptions(file, prop, options, output));
      } else {
        const { runOptions } = await import('../actions/options.js');
        setExit(await runOptions(file, prop, options, output));
      }
    });
}
