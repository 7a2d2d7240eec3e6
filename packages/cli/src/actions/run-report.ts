import { withoutErrorEcho } from '@tributary/contracts';
import type { RunReport } from '@tributary/engine';
import { errorLines, stackFrames } from '../ui/error-lines.js';
import { compact, payloadLine, type Output } from '../ui/output.js';

/** A run report for people: what `run` prints locally and with --remote. */
export function printReport(output: Output, report: RunReport, name: string): void {
  for (const warning of report.warnings)
    output.err(`${output.style('yellow', 'warning')} ${warning.rule}: ${warning.message}`);
  const status = report.ok ? output.style('green', 'ok') : output.style('red', 'failed');
  output.out(`${output.style('bold', name)} (${report.type ?? 'component'}) ${status}`);
  if (report.hooks.length > 0) {
    output.out(`  hooks    ${report.hooks.map((hook) => `${hook.name} ${hook.ok ? 'ok' : 'failed'}`).join(', ')}`);
  }
  // The error's own log line (the runtime's echo for live logs) would show it twice: it is printed last.
  const logs = withoutErrorEcho(report.logs, report.error);
  if (logs.length > 0) {
    output.out('  logs');
    for (const entry of logs) {
      const level =
        entry.level === 'info' ? '' : `${output.style(entry.level === 'error' ? 'red' : 'yellow', entry.level)} `;
      output.out(`    ${level}${entry.message.split('\n').join('\n    ')}`);
    }
  }
  if (report.type === 'source') {
    output.out(`  emitted  ${report.emits.length} event${report.emits.length === 1 ? '' : 's'}`);
    for (const emit of report.emits) {
      const id = emit.metadata.id === undefined ? '' : ` id=${String(emit.metadata.id)}`;
      output.out(`    [${emit.metadata.name}${id}] ${emit.metadata.summary}`);
      const payload = payloadLine(emit.event, emit.metadata.summary);
      if (payload !== null) output.out(`      ${output.style('dim', payload)}`);
    }
    for (const dropped of report.deduped)
      output.out(`    ${output.style('dim', `deduped: ${dropped.metadata.summary} (${dropped.reason})`)}`);
  }
  if (report.summary !== null) output.out(`  summary  ${report.summary}`);
  const exports = Object.entries(report.exports).filter(([name]) => name !== '$summary');
  if (exports.length > 0) {
    output.out('  exports');
    for (const [exported, value] of exports) output.out(`    ${exported}: ${compact(value)}`);
  }
  if (report.exit) output.out(`  exit     ${report.exit.reason ?? '(no reason)'}`);
  if (report.response) output.out(`  response ${report.response.status} ${compact(report.response.body)}`);
  for (const send of report.sends)
    output.out(`  send     $.send.${send.kind} ${compact(send.config)} (${sendOutcome(send)})`);
  if (report.type === 'action' && report.exit === null) output.out(`  return   ${compact(report.return_value)}`);
  if (report.error) {
    for (const line of errorLines(output, report.error)) output.err(line);
    for (const frame of stackFrames(report.error.stack)) output.err(`  ${output.style('dim', frame)}`);
  }
}

/** A local run only records a send; a run on a server (`--remote`) says how its delivery stands. */
function sendOutcome(send: RunReport['sends'][number]): string {
  const delivery = send.delivery;
  if (!delivery) return 'recorded, not delivered';
  const attempts = `${delivery.attempts} attempt${delivery.attempts === 1 ? '' : 's'}`;
  return `${delivery.id} ${delivery.status} after ${attempts}${delivery.last_error ? `: ${delivery.last_error}` : ''}`;
}
