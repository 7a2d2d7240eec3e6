import type { Command } from 'commander';
import type { Output } from '../ui/output.js';
import type { WorkflowExportFlags } from '../actions/workflow-export.js';
import { addRemoteOptions, type RemoteCommandFlags } from './remote-options.js';

export interface WorkflowRunFlags {
  readonly event?: string;
  readonly json?: boolean;
}

/**
 * `workflow deploy|export|list|describe|activate|deactivate|runs|logs|replay|cancel|delete|run-now` on a server, and
 * `workflow run` on this machine.
 */
export function registerWorkflowCommands(program: Command, output: Output, setExit: (code: number) => void): void {
  const workflow = program
    .command('workflow')
    .description('Workflows: a trigger and named steps (docs/workflows.md); deploy to a server or run locally')
    .addHelpText(
      'after',
      `
Examples:
  $ tributary workflow run signup.workflow.json --event '{"body":{"email":"ada@example.com"}}'
  $ tributary workflow deploy signup.workflow.json
  $ tributary workflow deploy signup.workflow.yaml
  $ tributary workflow export signup -o signup.workflow.yaml
  $ tributary workflow list
  $ tributary workflow describe signup
  $ tributary workflow runs signup
  $ tributary workflow logs wfr_AbC123xyz
  $ tributary workflow replay wfr_AbC123xyz
  $ tributary workflow deactivate signup
  $ tributary workflow delete wf_AbC123xyz

A workflow is named by its wf_ id or its name (deploy keeps one workflow per name); a name that
several workflows share is refused with NAME_CONFLICT, listing their ids.`,
    );

  workflow
    .command('run')
    .description(
      'Run a whole workflow once on this machine, offline (the trigger becomes RUN NOW with --event; $.send.* calls are shown, not delivered)',
    )
    .argument('<file>', 'workflow file (JSON, or YAML named .yaml/.yml; docs/workflows.md)')
    .option('--event <JSON>', 'the trigger event, steps.trigger.event (default null)')
    .option('--json', 'print the run as JSON, the shape of GET /v1/workflow-runs/{id}')
    .addHelpText(
      'after',
      `
Examples:
  $ tributary workflow run signup.workflow.json
  $ tributary workflow run signup.workflow.json --event '{"body":{"email":"ada@example.com"}}' --json

Steps run from their "file" or "code" (registry keys need a server). Exit codes: 0 the run
succeeded or exited, 1 a step failed, 2 usage, file or validation error.`,
    )
    .action(async (file: string, flags: WorkflowRunFlags) => {
      const { runWorkflowRun } = await import('../actions/workflow-run.js');
      setExit(await runWorkflowRun(file, flags, output));
    });

  addRemoteOptions(
    workflow
      .command('deploy')
      .description('Save a workflow file on the server: a new workflow, or a new version of the one with its name')
      .argument('<file>', 'workflow file (JSON, or YAML named .yaml/.yml; docs/workflows.md)'),
  )
    .addHelpText('after', '\nExamples:\n  $ tributary workflow deploy signup.workflow.json --json')
    .action(async (file: string, flags: RemoteCommandFlags) => {
      const { runWorkflowDeploy } = await import('../actions/workflow.js');
      setExit(await runWorkflowDeploy(file, flags, output));
    });

  addRemoteOptions(
    workflow
      .command('export')
      .description('Write a workflow of the server as a workflow file (YAML on stdout without --output)')
      .argument('<workflow>', 'wf_ id or name'),
  )
    .option('-o, --output <FILE>', 'write to FILE: YAML when it ends in .yaml or .yml, JSON otherwise')
    .option('--force', 'replace FILE when it exists')
    .addHelpText(
      'after',
      `
Examples:
  $ tributary workflow export signup -o signup.workflow.yaml
  $ tributary workflow export wf_AbC123xyz --json > signup.workflow.json

Code steps are written inline. Secret prop values are "[REDACTED]": deploying the file to the same
server keeps them; to another server, write them in first.`,
    )
    .action(async (ref: string, flags: WorkflowExportFlags) => {
      const { runWorkflowExport } = await import('../actions/workflow-export.js');
      setExit(await runWorkflowExport(ref, flags, output));
    });

  addRemoteOptions(workflow.command('list').description('List workflows'))
    .addHelpText('after', '\nExamples:\n  $ tributary workflow list --json')
    .action(async (flags: RemoteCommandFlags) => {
      const { runWorkflowList } = await import('../actions/workflow.js');
      setExit(await runWorkflowList(flags, output));
    });

  addRemoteOptions(workflow.command('describe').description('Show a workflow').argument('<workflow>', 'wf_ id or name'))
    .addHelpText('after', '\nExamples:\n  $ tributary workflow describe wf_AbC123xyz --json')
    .action(async (ref: string, flags: RemoteCommandFlags) => {
      const { runWorkflowDescribe } = await import('../actions/workflow.js');
      setExit(await runWorkflowDescribe(ref, flags, output));
    });

  addRemoteOptions(
    workflow.command('runs').description('Runs of a workflow, newest first').argument('<workflow>', 'wf_ id or name'),
  )
    .option('-n, --limit <N>', 'how many (default 20, at most 100)', '20')
    .option(
      '--status <STATUS>',
      'only runs in this status: queued, running, delayed, succeeded, exited, failed or cancelled',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  $ tributary workflow runs wf_AbC123xyz -n 5 --json\n  $ tributary workflow runs signup --status failed',
    )
    .action(async (ref: string, flags: RemoteCommandFlags & { limit: string; status?: string }) => {
      const { runWorkflowRuns } = await import('../actions/workflow.js');
      setExit(await runWorkflowRuns(ref, flags, output));
    });

  addRemoteOptions(workflow.command('logs').description("A run's steps with their logs").argument('<run>', 'wfr_ id'))
    .addHelpText('after', '\nExamples:\n  $ tributary workflow logs wfr_AbC123xyz')
    .action(async (runId: string, flags: RemoteCommandFlags) => {
      const { runWorkflowLogs } = await import('../actions/workflow.js');
      setExit(await runWorkflowLogs(runId, flags, output));
    });

  addRemoteOptions(
    workflow.command('delete').description('Delete a workflow with its runs').argument('<workflow>', 'wf_ id or name'),
  )
    .addHelpText('after', '\nExamples:\n  $ tributary workflow delete wf_AbC123xyz')
    .action(async (ref: string, flags: RemoteCommandFlags) => {
      const { runWorkflowDelete } = await import('../actions/workflow.js');
      setExit(await runWorkflowDelete(ref, flags, output));
    });

  for (const [name, active] of [
    ['activate', true],
    ['deactivate', false],
  ] as const) {
    addRemoteOptions(
      workflow
        .command(name)
        .description(
          active ? 'Let its trigger start runs again' : 'Stop its trigger from starting runs (kept, with its runs)',
        )
        .argument('<workflow>', 'wf_ id or name'),
    )
      .addHelpText('after', `\nExamples:\n  $ tributary workflow ${name} signup`)
      .action(async (ref: string, flags: RemoteCommandFlags) => {
        const { runWorkflowActivation } = await import('../actions/workflow.js');
        setExit(await runWorkflowActivation(ref, active, flags, output));
      });
  }

  addRemoteOptions(
    workflow
      .command('replay')
      .description("Run a run's event again, on the current version")
      .argument('<run>', 'wfr_ id'),
  )
    .addHelpText('after', '\nExamples:\n  $ tributary workflow replay wfr_AbC123xyz')
    .action(async (runId: string, flags: RemoteCommandFlags) => {
      const { runWorkflowReplay } = await import('../actions/workflow.js');
      setExit(await runWorkflowReplay(runId, flags, output));
    });

  addRemoteOptions(
    workflow.command('cancel').description('Cancel a run waiting on $.flow.delay').argument('<run>', 'wfr_ id'),
  )
    .addHelpText('after', '\nExamples:\n  $ tributary workflow cancel wfr_AbC123xyz')
    .action(async (runId: string, flags: RemoteCommandFlags) => {
      const { runWorkflowCancel } = await import('../actions/workflow.js');
      setExit(await runWorkflowCancel(runId, flags, output));
    });

  addRemoteOptions(
    workflow.command('run-now').description('Start a run on the server').argument('<workflow>', 'wf_ id or name'),
  )
    .option('--event <JSON>', 'the trigger event (default null)')
    .addHelpText('after', `\nExamples:\n  $ tributary workflow run-now wf_AbC123xyz --event '{"n":1}'`)
    .action(async (ref: string, flags: RemoteCommandFlags & { event?: string }) => {
      const { runWorkflowRunNow } = await import('../actions/workflow.js');
      setExit(await runWorkflowRunNow(ref, flags, output));
    });
}
