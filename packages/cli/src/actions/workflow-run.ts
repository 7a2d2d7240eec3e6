import type { WorkflowRunFlags } from '../commands/workflow.js';
import { EXIT_COMPONENT_FAILED, EXIT_OK } from '../exit-codes.js';
import { parseJson } from '../local/prop-flags.js';
import type { Output } from '../ui/output.js';
import { reportFailure } from '../ui/report-error.js';
import { readWorkflowFile } from './workflow-file.js';
import { runWorkflowLocally } from './workflow-local.js';
import { printRun } from './workflow-print.js';

/** `workflow run FILE`: the whole workflow once on this machine, offline. */
export async function runWorkflowRun(file: string, flags: WorkflowRunFlags, output: Output): Promise<number> {
  try {
    const event = flags.event === undefined ? null : parseJson(flags.event, '--event');
    const spec = readWorkflowFile(file);
    const run = await runWorkflowLocally({
      workflow: spec,
      event,
      log: (message) => output.err(message),
    });
    if (flags.json) output.json(run);
    else printRun(output, run, { local: String(spec['name']) });
    return run.status === 'failed' ? EXIT_COMPONENT_FAILED : EXIT_OK;
  } catch (error) {
    return reportFailure(output, error, { json: flags.json === true });
  }
}
