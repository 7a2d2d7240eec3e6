import type { Command } from 'commander';
import { EXIT_COMPONENT_FAILED, EXIT_OK } from '../exit-codes.js';
import { createSandbox } from '../local/create-sandbox.js';
import { loadCode } from '../local/local-instance.js';
import { localAppAuth } from '../local/local-app-auth.js';
import {
  accountsFromFlags,
  configuredFromFlags,
  parseJson,
  type PropFlags,
  type PropShape,
} from '../local/prop-flags.js';
import { compact, type Output } from '../ui/output.js';
import { reportFailure } from '../ui/report-error.js';
import { addPropOptions, parseCount, parseSeconds } from './common-options.js';
import { AppError } from '@tributary/contracts';
import type { RemoteFlags } from '../remote/connection.js';
import { runRemoteOptions } from './options-remote.js';

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
      setExit(
        options.remote
          ? await runRemoteOptions(file, prop, options, output)
          : await runOptions(file, prop, options, output),
      );
    });
}

export async function runOptions(
  file: string,
  prop: string,
  options: OptionsCommandOptions,
  output: Output,
): Promise<number> {
  const json = options.json === true;
  const sandbox = createSandbox(output);
  try {
    const page = parseCount(options.page ?? '0', '--page');
    const prevContext =
      options.prevContext === undefined ? undefined : parseJson(options.prevContext, '--prev-context');
    if (
      prevContext !== undefined &&
      (prevContext === null || typeof prevContext !== 'object' || Array.isArray(prevContext))
    ) {
      throw new AppError('USAGE_ERROR', '--prev-context must be a JSON object', { field: '--prev-context' });
    }
    const { handle, info } = await loadCode(sandbox, file);
    const result = await handle.options({
      prop,
      configured: configuredFromFlags(options, info.props as unknown as PropShape[]),
      accounts: accountsFromFlags(options),
      appAuth: localAppAuth(info.props),
      page,
      ...(prevContext ? { prevContext: prevContext as Record<string, unknown> } : {}),
      ...(options.query !== undefined ? { query: options.query } : {}),
      timeoutMs: parseSeconds(options.timeout ?? '30', '--timeout'),
    });
    printOptionsPage(output, result, page, json);
    return result.errors.length === 0 ? EXIT_OK : EXIT_COMPONENT_FAILED;
  } catch (error) {
    return reportFailure(output, error, { json });
  } finally {
    await sandbox.close();
  }
}

/** One page of options, as `options` prints it locally and with --remote. */
export interface OptionsPage {
  readonly options: readonly { label: unknown; value: unknown }[] | null;
  readonly stringOptions: readonly string[] | null;
  readonly context: Record<string, unknown> | null;
  readonly errors: readonly string[];
  readonly observations: readonly { level: string; message: string }[];
}

export function printOptionsPage(output: Output, result: OptionsPage, page: number, json: boolean): void {
  if (json) {
    output.json(result);
    return;
  }
  for (const line of result.observations) output.err(`${line.level === 'info' ? '' : `${line.level} `}${line.message}`);
  const rows = result.options ?? (result.stringOptions ?? []).map((value) => ({ label: value, value }));
  if (rows.length === 0 && result.errors.length === 0) output.out('(no options on this page)');
  for (const row of rows)
    output.out(
      row.label === row.value ? String(row.label) : `${String(row.label)}  ${output.style('dim', compact(row.value))}`,
    );
  for (const message of result.errors) output.err(`${output.style('red', 'error')} options(): ${message}`);
  const token = result.context?.['nextPageToken'];
  if (result.context && token !== null && token !== undefined) {
    output.out(output.style('dim', `more: --page ${page + 1} --prev-context '${JSON.stringify(result.context)}'`));
  }
}
