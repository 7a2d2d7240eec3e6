import type { Command } from 'commander';
import { EXIT_COMPONENT_FAILED, EXIT_OK } from '../exit-codes.js';
import { createSandbox } from '../local/create-sandbox.js';
import { loadCode } from '../local/local-instance.js';
import { accountsFromFlags, configuredFromFlags, parseJson, type PropFlags, type PropShape } from '../local/prop-flags.js';
import { compact, type Output } from '../ui/output.js';
import { reportFailure } from '../ui/report-error.js';
import { addPropOptions, parseCount, parseSeconds } from './common-options.js';
import { AppError } from '@tributary/contracts';

export interface OptionsCommandOptions extends PropFlags {
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
    .addHelpText(
      'after',
      `
Examples:
  $ tributary options pick-list.mjs board --auth acme='{"api_key":"k"}'
  $ tributary options pick-list.mjs list --prop board=b1
  $ tributary options options.mjs city --prev-context '{"nextPageToken":1}'
  $ tributary options options.mjs fruit --query ap --page 1 --json`,
    )
    .action(async (file: string, prop: string, options: OptionsCommandOptions) => {
      setExit(await runOptions(file, prop, options, output));
    });
}

export async function runOptions(file: string, prop: string, options: OptionsCommandOptions, output: Output): Promise<number> {
  const json = options.json === true;
  const sandbox = createSandbox(output);
  try {
    const page = parseCount(options.page ?? '0', '--page');
    const prevContext = options.prevContext === undefined ? undefined : parseJson(options.prevContext, '--prev-context');
    if (prevContext !== undefined && (prevContext === null || typeof prevContext !== 'object' || Array.isArray(prevContext))) {
      throw new AppError('USAGE_ERROR', '--prev-context must be a JSON object', { field: '--prev-context' });
    }
    const { handle, info } = await loadCode(sandbox, file);
    const result = await handle.options({
      prop,
      configured: configuredFromFlags(options, info.props as unknown as PropShape[]),
      accounts: accountsFromFlags(options),
      page,
      ...(prevContext ? { prevContext: prevContext as Record<string, unknown> } : {}),
      ...(options.query !== undefined ? { query: options.query } : {}),
      timeoutMs: parseSeconds(options.timeout ?? '30', '--timeout'),
    });
    if (json) {
      output.json(result);
    } else {
      for (const line of result.observations) output.err(`${line.level === 'info' ? '' : `${line.level} `}${line.message}`);
      const rows = result.options ?? (result.stringOptions ?? []).map((value) => ({ label: value, value }));
      if (rows.length === 0 && result.errors.length === 0) output.out('(no options on this page)');
      for (const row of rows) output.out(row.label === row.value ? String(row.label) : `${row.label}  ${output.style('dim', compact(row.value))}`);
      for (const message of result.errors) output.err(`${output.style('red', 'error')} options(): ${message}`);
      const token = result.context?.['nextPageToken'];
      if (result.context && token !== null && token !== undefined) {
        output.out(output.style('dim', `more: --page ${page + 1} --prev-context '${JSON.stringify(result.context)}'`));
      }
    }
    return result.errors.length === 0 ? EXIT_OK : EXIT_COMPONENT_FAILED;
  } catch (error) {
    return reportFailure(output, error, { json });
  } finally {
    await sandbox.close();
  }
}
