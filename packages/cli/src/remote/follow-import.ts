import { AppError, isErrorCode } from '@tributary/contracts/errors';
import type { ImportJobT, ImportReportT } from '@tributary/contracts';
import type { Output } from '../ui/output.js';
import type { ApiClient } from './api-client.js';
import { REMOTE_EXIT_OK, REMOTE_EXIT_REFUSED } from './remote-exit.js';

const POLL_MS = 300;

/**
 * Polls an import job until it ends, printing each new progress line on stderr (stdout keeps the
 * report, or the JSON for scripts). A failed job is thrown as the AppError it carries.
 */
export async function followImport(
  client: ApiClient,
  started: ImportJobT,
  output: Output,
  quiet: boolean,
): Promise<ImportJobT> {
  let job = started;
  let shown = 0;
  for (;;) {
    if (!quiet) for (const line of job.progress.slice(shown)) output.err(line);
    shown = job.progress.length;
    if (job.status !== 'running') break;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    job = (await client.call(client.api.GET('/v1/registry/imports/{id}', { params: { path: { id: job.id } } }))).data;
  }
  if (job.status === 'failed' && job.error) {
    const code = isErrorCode(job.error.code) ? job.error.code : 'INTERNAL';
    throw new AppError(code, job.error.message, job.error.details);
  }
  return job;
}

/**
 * The final report: what was published, unchanged and skipped (with the rule or error of each).
 * Exit 0 when every component went in, 1 when any was skipped (docs/registry.md).
 */
export function printReports(reports: readonly ImportReportT[], output: Output, json: boolean): number {
  const skipped = reports.reduce((count, report) => count + report.skipped.length, 0);
  if (json) {
    output.json({ ok: skipped === 0, reports });
  } else {
    if (reports.length === 0) output.out('Nothing to upgrade: every package is at its newest version.');
    for (const report of reports) printReport(report, output);
  }
  return skipped === 0 ? REMOTE_EXIT_OK : REMOTE_EXIT_REFUSED;
}

function printReport(report: ImportReportT, output: Output): void {
  const from = report.previous_version ? ` (was ${report.previous_version})` : '';
  output.out(`${report.package}@${report.version}${from}`);
  output.out(
    `  ${report.published.length} published, ${report.unchanged.length} unchanged, ${report.skipped.length} skipped${
      report.removed.length > 0 ? `, ${report.removed.length} removed` : ''
    }`,
  );
  for (const entry of report.published)
    output.out(`  ${output.style('green', 'published')} ${entry.key}@${entry.version ?? '-'}`);
  for (const entry of report.unchanged) output.out(`  unchanged ${entry.key}@${entry.version ?? '-'}`);
  for (const key of report.removed) output.out(`  removed   ${key}`);
  for (const entry of report.skipped) {
    // A broken rule's message starts with its id (`C2: …`); other messages get it added.
    const rule = entry.rule && !entry.message.startsWith(entry.rule) ? ` (rule ${entry.rule})` : '';
    output.out(`  ${output.style('red', 'skipped')}   ${entry.file}: ${entry.code}: ${entry.message}${rule}`);
  }
}
