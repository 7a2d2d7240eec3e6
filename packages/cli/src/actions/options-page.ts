import { AppError } from '@tributary/contracts/errors';
import { parseJson } from '../local/prop-flags.js';
import { compact, type Output } from '../ui/output.js';
import { parseCount } from './flag-values.js';

/** One page of options, as `options` prints it locally and with --remote. */
export interface OptionsPage {
  readonly options: readonly { label: unknown; value: unknown }[] | null;
  readonly stringOptions: readonly string[] | null;
  readonly context: Record<string, unknown> | null;
  readonly errors: readonly string[];
  readonly observations: readonly { level: string; message: string }[];
}

/** `options`' `--page` and `--prev-context`, checked: a page number, and a JSON object or nothing. */
export function pageFlags(options: { readonly page?: string | undefined; readonly prevContext?: string | undefined }): {
  readonly page: number;
  readonly prevContext: Record<string, unknown> | undefined;
} {
  const page = parseCount(options.page ?? '0', '--page');
  const prevContext = options.prevContext === undefined ? undefined : parseJson(options.prevContext, '--prev-context');
  if (
    prevContext !== undefined &&
    (prevContext === null || typeof prevContext !== 'object' || Array.isArray(prevContext))
  ) {
    throw new AppError('USAGE_ERROR', '--prev-context must be a JSON object', { field: '--prev-context' });
  }
  return { page, prevContext: prevContext as Record<string, unknown> | undefined };
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
