import { ENDPOINT_REPLIES } from '@tributary/engine';
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
    const { run, response } = await runWorkflowLocally({
      workflow: spec,
      event,
      log: (message) => output.err(message),
    });
    const trigger = spec['trigger'] as { type?: unknown; custom_response?: unknown } | undefined;
    // The caller of an endpoint that waits for $.respond() gets it, or the default answer.
    const answers = trigger?.type === 'http' && trigger.custom_response === true;
    if (flags.json) output.json(run);
    else
      printRun(output, run, {
        local: String(spec['name']),
        ...(answers ? { response: response ?? ENDPOINT_REPLIES.workflowNoResponse } : {}),
      });
    return run.status === 'failed' ? EXIT_COMPONENT_FAILED : EXIT_OK;
  } catch (error) {
    return reportFailure(output, error, { json: flags.json === true });
  }
}
