import { compact, type Output } from '../ui/output.js';

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
