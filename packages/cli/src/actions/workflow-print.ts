import { countOf, withoutErrorEcho, type WorkflowRunDetailT } from '@tributary/contracts';
import { sendTarget, type HttpResponse } from '@tributary/engine';
import { isSendKind } from '@tributary/runtime';
import { stackFrames } from '../ui/error-lines.js';
import { compact, type Output } from '../ui/output.js';

/**
 * A run for people: its status, then each step with its result or error and its log lines, then its
 * deliveries. A local run's ids and timings belong to a throwaway engine, so they are left out (its
 * output is stable), and its sends are named but were never delivered.
 */
export function printRun(
  output: Output,
  run: WorkflowRunDetailT,
  options: {
    readonly local?: string;
    /** A local run of a `custom_response` HTTP trigger: what its caller would have been answered. */
    readonly response?: HttpResponse;
  } = {},
): void {
  output.out(
    options.local === undefined
      ? `Run ${run.id} of ${run.workflow_id} (version ${run.version}): ${run.status}`
      : `Run of ${options.local}: ${run.status}`,
  );
  for (const step of run.steps) {
    const took = step.duration_ms === null || options.local !== undefined ? '' : ` ${step.duration_ms} ms`;
    output.out(`  ${step.name}: ${step.status}${took}`);
    // The error's own log line (the runtime's echo for live logs) would print it twice.
    for (const line of withoutErrorEcho(step.logs, step.error))
      output.out(`    ${line.level === 'info' ? '' : `${line.level} `}${line.message}`);
    if (step.error) {
      output.out(`    ${output.style('red', 'error')} ${step.error.code}: ${step.error.message}`);
      for (const frame of stackFrames(step.error.stack)) output.out(`      ${output.style('dim', frame)}`);
    } else if (step.status === 'succeeded') output.out(`    → ${compact(step.return_value)}`);
  }
  if (options.response) output.out(`  response ${options.response.status}: ${responseBody(options.response.body)}`);
  if (run.exit) output.out(`Exited: ${run.exit.reason ?? '(no reason)'}`);
  if (options.local !== undefined) {
    // A local run sends nothing: its steps' sends say what a server would deliver.
    for (const step of run.steps)
      for (const send of step.sends) {
        const target = isSendKind(send.kind) ? ` ${sendTarget(send.kind, send.config, run.workflow_id)}` : '';
        output.out(`  delivery ${send.kind}${target} from ${step.name}: not sent (a local run delivers nothing)`);
      }
    return;
  }
  for (const delivery of run.deliveries) {
    const error = delivery.last_error ? ` (${delivery.last_error})` : '';
    output.out(
      `  delivery ${delivery.kind} ${delivery.target} from ${delivery.step_name ?? '?'}: ${delivery.status}, ${countOf(delivery.attempts, 'attempt')}${error}`,
    );
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** A body as text, as it is sent (an object was sent as JSON text); one that is not UTF-8 by its size. */
function responseBody(body: HttpResponse['body']): string {
  if (body === null || body.length === 0) return '(no body)';
  if (typeof body === 'string') return body;
  try {
    return UTF8.decode(body);
  } catch {
    return `(${countOf(body.length, 'byte')})`;
  }
}
