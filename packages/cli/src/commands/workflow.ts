import type { ApiPaths } from '@tributary/api-client';
import type { WorkflowRunDetailT } from '@tributary/contracts';
import type { Command } from 'commander';
import { EXIT_COMPONENT_FAILED, EXIT_OK } from '../exit-codes.js';
import { parseJson } from '../local/prop-flags.js';
import type { Output } from '../ui/output.js';
import { compact } from '../ui/output.js';
import { reportFailure } from '../ui/report-error.js';
import { formatTable } from '../ui/table.js';
import { addRemoteOptions, runRemote, type RemoteCommandFlags } from './remote-command.js';
import { readWorkflowFile } from './workflow-file.js';
import { runWorkflowLocally } from './workflow-local.js';

/** A workflow file as the API takes it; the server validates it and its refusal is the error shown. */
type WorkflowBody = ApiPaths['/v1/workflows']['post']['requestBody']['content']['application/json'];
const REMOTE_EXIT_FAILED = 1;

/** `workflow deploy|list|describe|runs|logs|delete` on a server, and `workflow run` on this machine. */
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
  $ tributary workflow list
  $ tributary workflow describe wf_AbC123xyz
  $ tributary workflow runs wf_AbC123xyz
  $ tributary workflow logs wfr_AbC123xyz
  $ tributary workflow delete wf_AbC123xyz`,
    );

  workflow
    .command('run')
    .description('Run a whole workflow once on this machine, offline (the trigger becomes RUN NOW with --event)')
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
    .action(async (file: string, flags: { event?: string; json?: boolean }) => {
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
        setExit(run.status === 'failed' ? EXIT_COMPONENT_FAILED : EXIT_OK);
      } catch (error) {
        setExit(reportFailure(output, error, { json: flags.json === true }));
      }
    });

  addRemoteOptions(
    workflow
      .command('deploy')
      .description('Save a workflow file on the server: a new workflow, or a new version of the one with its name')
      .argument('<file>', 'workflow file (JSON, or YAML named .yaml/.yml; docs/workflows.md)'),
  )
    .addHelpText('after', '\nExamples:\n  $ tributary workflow deploy signup.workflow.json --json')
    .action(async (file: string, flags: RemoteCommandFlags) =>
      setExit(
        await runRemote(flags, output, async (client) => {
          const body = readWorkflowFile(file) as WorkflowBody;
          const existing = (await client.call(client.api.GET('/v1/workflows'))).data.find(
            (item) => item.name === body.name,
          );
          const saved = existing
            ? await client.call(client.api.PUT('/v1/workflows/{id}', { params: { path: { id: existing.id } }, body }))
            : await client.call(client.api.POST('/v1/workflows', { body }));
          if (flags.json) return output.json(saved.data);
          output.out(`Deployed ${saved.data.name} (${saved.data.id}) version ${saved.data.version}`);
          if (saved.data.endpoint_url) output.out(`Endpoint: ${saved.data.endpoint_url}`);
        }),
      ),
    );

  addRemoteOptions(workflow.command('list').description('List workflows'))
    .addHelpText('after', '\nExamples:\n  $ tributary workflow list --json')
    .action(async (flags: RemoteCommandFlags) =>
      setExit(
        await runRemote(flags, output, async (client) => {
          const { data } = await client.call(client.api.GET('/v1/workflows'));
          if (flags.json) return output.json(data);
          if (data.length === 0) return output.out('No workflows.');
          const rows = data.map((item) => [
            item.id,
            item.name,
            String(item.version),
            item.active ? 'yes' : 'no',
            item.spec.trigger.type,
            String(item.spec.steps.length),
          ]);
          for (const line of formatTable(['ID', 'NAME', 'VERSION', 'ACTIVE', 'TRIGGER', 'STEPS'], rows))
            output.out(line);
        }),
      ),
    );

  addRemoteOptions(workflow.command('describe').description('Show a workflow').argument('<id>', 'wf_ id'))
    .addHelpText('after', '\nExamples:\n  $ tributary workflow describe wf_AbC123xyz --json')
    .action(async (id: string, flags: RemoteCommandFlags) =>
      setExit(
        await runRemote(flags, output, async (client) => {
          const { data } = await client.call(client.api.GET('/v1/workflows/{id}', { params: { path: { id } } }));
          if (flags.json) return output.json(data);
          output.out(`${data.name} (${data.id}) version ${data.version}, ${data.active ? 'active' : 'inactive'}`);
          output.out(`Trigger: ${compact(data.spec.trigger)}`);
          if (data.endpoint_url) output.out(`Endpoint: ${data.endpoint_url}`);
          for (const step of data.spec.steps)
            output.out(`  ${step.name}: ${step.action ?? 'code step'} ${compact(step.props ?? {})}`);
        }),
      ),
    );

  addRemoteOptions(workflow.command('runs').description('Runs of a workflow, newest first').argument('<id>', 'wf_ id'))
    .option('-n, --limit <N>', 'how many (default 20, at most 100)', '20')
    .addHelpText('after', '\nExamples:\n  $ tributary workflow runs wf_AbC123xyz -n 5 --json')
    .action(async (id: string, flags: RemoteCommandFlags & { limit: string }) =>
      setExit(
        await runRemote(flags, output, async (client) => {
          const page = await client.call(
            client.api.GET('/v1/workflows/{id}/runs', {
              // Number() is the server's own coercion, so `-n abc` is still its VALIDATION_FAILED on limit.
              params: { path: { id }, query: { limit: Number(flags.limit) } },
            }),
          );
          if (flags.json) return output.json({ data: page.data, runs_dropped: page.runs_dropped });
          if (page.data.length === 0) return output.out('No runs.');
          const rows = page.data.map((run) => [
            run.id,
            run.status,
            String(run.version),
            run.trigger,
            new Date(run.created_at).toISOString(),
            run.error ? `${run.error.step ?? ''}: ${run.error.message}`.slice(0, 60) : '',
          ]);
          for (const line of formatTable(['RUN', 'STATUS', 'VERSION', 'TRIGGER', 'STARTED', 'ERROR'], rows))
            output.out(line);
          if (page.runs_dropped > 0) output.out(`(${page.runs_dropped} older runs were dropped)`);
        }),
      ),
    );

  addRemoteOptions(workflow.command('logs').description("A run's steps with their logs").argument('<run>', 'wfr_ id'))
    .addHelpText('after', '\nExamples:\n  $ tributary workflow logs wfr_AbC123xyz')
    .action(async (runId: string, flags: RemoteCommandFlags) =>
      setExit(
        await runRemote(flags, output, async (client) => {
          const { data } = await client.call(
            client.api.GET('/v1/workflow-runs/{id}', { params: { path: { id: runId } } }),
          );
          if (flags.json) return output.json(data);
          printRun(output, data);
          return data.status === 'failed' ? REMOTE_EXIT_FAILED : undefined;
        }),
      ),
    );

  addRemoteOptions(workflow.command('delete').description('Delete a workflow with its runs').argument('<id>', 'wf_ id'))
    .addHelpText('after', '\nExamples:\n  $ tributary workflow delete wf_AbC123xyz')
    .action(async (id: string, flags: RemoteCommandFlags) =>
      setExit(
        await runRemote(flags, output, async (client) => {
          await client.call(client.api.DELETE('/v1/workflows/{id}', { params: { path: { id } } }));
          if (flags.json) return output.json({ ok: true, id });
          output.out(`Deleted workflow ${id}`);
        }),
      ),
    );

  addRemoteOptions(workflow.command('run-now').description('Start a run on the server').argument('<id>', 'wf_ id'))
    .option('--event <JSON>', 'the trigger event (default null)')
    .addHelpText('after', `\nExamples:\n  $ tributary workflow run-now wf_AbC123xyz --event '{"n":1}'`)
    .action(async (id: string, flags: RemoteCommandFlags & { event?: string }) =>
      setExit(
        await runRemote(flags, output, async (client) => {
          const event = flags.event === undefined ? null : parseJson(flags.event, '--event');
          const started = await client.call(
            client.api.POST('/v1/workflows/{id}/run', { params: { path: { id } }, body: { event } }),
          );
          if (flags.json) return output.json(started.data);
          output.out(`Started run ${started.data.run_id}`);
        }),
      ),
    );
}

/**
 * A run for people: its status, then each step with its result or error and its log lines, then a
 * server run's deliveries. A local run's ids and timings belong to a throwaway engine, so they are
 * left out (its output is stable).
 */
function printRun(output: Output, run: WorkflowRunDetailT, options: { readonly local?: string } = {}): void {
  output.out(
    options.local === undefined
      ? `Run ${run.id} of ${run.workflow_id} (version ${run.version}): ${run.status}`
      : `Run of ${options.local}: ${run.status}`,
  );
  for (const step of run.steps) {
    const took = step.duration_ms === null || options.local !== undefined ? '' : ` ${step.duration_ms} ms`;
    output.out(`  ${step.name}: ${step.status}${took}`);
    for (const line of step.logs) output.out(`    ${line.level === 'info' ? '' : `${line.level} `}${line.message}`);
    if (step.error) output.out(`    ${output.style('red', 'error')} ${step.error.code}: ${step.error.message}`);
    else if (step.status === 'succeeded') output.out(`    → ${compact(step.return_value)}`);
  }
  if (run.exit) output.out(`Exited: ${run.exit.reason ?? '(no reason)'}`);
  // A local run's engine stops as the run ends: its deliveries were queued, not followed.
  if (options.local !== undefined) return;
  for (const delivery of run.deliveries) {
    const error = delivery.last_error ? ` (${delivery.last_error})` : '';
    output.out(
      `  delivery ${delivery.kind} ${delivery.target} from ${delivery.step_name ?? '?'}: ${delivery.status}, ${delivery.attempts} attempt(s)${error}`,
    );
  }
}
