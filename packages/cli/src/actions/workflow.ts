import type { ApiPaths } from '@tributary/api-client';
import { countOf } from '@tributary/contracts';
import { parseJson } from '../local/prop-flags.js';
import type { Output } from '../ui/output.js';
import { compact } from '../ui/output.js';
import { formatTable, relativeTime } from '../ui/table.js';
import type { RemoteCommandFlags } from '../commands/remote-options.js';
import { runRemote } from './remote-command.js';
import { printRun } from './workflow-print.js';
import { readWorkflowFile } from './workflow-file.js';
import { deployNameConflict, workflowsNamed } from '../remote/workflow-lookup.js';

export async function runWorkflowDeploy(file: string, flags: RemoteCommandFlags, output: Output): Promise<number> {
  return runRemote(flags, output, async (client) => {
    const body = readWorkflowFile(file) as WorkflowBody;
    const existing = await workflowsNamed(client, body.name);
    if (existing.length > 1) throw deployNameConflict(body.name, existing);
    const [id] = existing;
    const saved = id
      ? await client.call(client.api.PUT('/v1/workflows/{id}', { params: { path: { id } }, body }))
      : await client.call(client.api.POST('/v1/workflows', { body }));
    if (flags.json) return output.json(saved.data);
    output.out(`Deployed ${saved.data.name} (${saved.data.id}) version ${saved.data.version}`);
    if (saved.data.endpoint_url) output.out(`Endpoint: ${saved.data.endpoint_url}`);
  });
}

export async function runWorkflowList(flags: RemoteCommandFlags, output: Output): Promise<number> {
  return runRemote(flags, output, async (client) => {
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
      item.last_run ? `${item.last_run.status} ${relativeTime(Math.floor(item.last_run.created_at / 1000))}` : '-',
    ]);
    for (const line of formatTable(['ID', 'NAME', 'VERSION', 'ACTIVE', 'TRIGGER', 'STEPS', 'LAST RUN'], rows))
      output.out(line);
  });
}

export async function runWorkflowDescribe(ref: string, flags: RemoteCommandFlags, output: Output): Promise<number> {
  return runRemote(flags, output, async (client) => {
    const { data } = await client.call(client.api.GET('/v1/workflows/{id}', { params: { path: { id: ref } } }));
    if (flags.json) return output.json(data);
    output.out(`${data.name} (${data.id}) version ${data.version}, ${data.active ? 'active' : 'inactive'}`);
    output.out(`Trigger: ${compact(data.spec.trigger)}`);
    if (data.endpoint_url) output.out(`Endpoint: ${data.endpoint_url}`);
    for (const step of data.spec.steps)
      output.out(`  ${step.name}: ${step.action ?? 'code step'} ${compact(step.props ?? {})}`);
  });
}

export async function runWorkflowRuns(
  ref: string,
  flags: RemoteCommandFlags & { limit: string; status?: string },
  output: Output,
): Promise<number> {
  return runRemote(flags, output, async (client) => {
    // The server checks the status against its list, so a wrong one is its VALIDATION_FAILED naming them.
    const status = flags.status as RunsQuery['status'];
    const page = await client.call(
      client.api.GET('/v1/workflows/{id}/runs', {
        // Number() is the server's own coercion, so `-n abc` is still its VALIDATION_FAILED on limit.
        params: { path: { id: ref }, query: { limit: Number(flags.limit), ...(status ? { status } : {}) } },
      }),
    );
    if (flags.json) return output.json({ data: page.data, runs_dropped: page.runs_dropped });
    if (page.data.length === 0) return output.out(status ? `No ${status} runs.` : 'No runs.');
    const rows = page.data.map((run) => [
      run.id,
      run.status,
      String(run.version),
      run.trigger,
      new Date(run.created_at).toISOString(),
      run.error ? `${run.error.step ?? ''}: ${run.error.message}`.slice(0, 60) : '',
    ]);
    for (const line of formatTable(['RUN', 'STATUS', 'VERSION', 'TRIGGER', 'STARTED', 'ERROR'], rows)) output.out(line);
    const dropped = page.runs_dropped;
    if (dropped > 0) output.out(`(${countOf(dropped, 'older run')} ${dropped === 1 ? 'was' : 'were'} dropped)`);
  });
}

export async function runWorkflowLogs(runId: string, flags: RemoteCommandFlags, output: Output): Promise<number> {
  return runRemote(flags, output, async (client) => {
    const { data } = await client.call(client.api.GET('/v1/workflow-runs/{id}', { params: { path: { id: runId } } }));
    if (flags.json) return output.json(data);
    printRun(output, data);
    return data.status === 'failed' ? REMOTE_EXIT_FAILED : undefined;
  });
}

export async function runWorkflowDelete(ref: string, flags: RemoteCommandFlags, output: Output): Promise<number> {
  return runRemote(flags, output, async (client) => {
    // The server takes the name too; it is resolved first so that the output names the id deleted.
    const { id } = (await client.call(client.api.GET('/v1/workflows/{id}', { params: { path: { id: ref } } }))).data;
    await client.call(client.api.DELETE('/v1/workflows/{id}', { params: { path: { id } } }));
    if (flags.json) return output.json({ ok: true, id });
    output.out(`Deleted workflow ${id}`);
  });
}

export async function runWorkflowRunNow(
  ref: string,
  flags: RemoteCommandFlags & { event?: string },
  output: Output,
): Promise<number> {
  return runRemote(flags, output, async (client) => {
    const event = flags.event === undefined ? null : parseJson(flags.event, '--event');
    const started = await client.call(
      client.api.POST('/v1/workflows/{id}/run', { params: { path: { id: ref } }, body: { event } }),
    );
    if (flags.json) return output.json(started.data);
    output.out(`Started run ${started.data.run_id}`);
  });
}

export async function runWorkflowActivation(
  ref: string,
  active: boolean,
  flags: RemoteCommandFlags,
  output: Output,
): Promise<number> {
  return runRemote(flags, output, async (client) => {
    const path = active ? '/v1/workflows/{id}/activate' : '/v1/workflows/{id}/deactivate';
    const { data } = await client.call(client.api.POST(path, { params: { path: { id: ref } } }));
    if (flags.json) return output.json(data);
    output.out(`${data.name} (${data.id}) is ${data.active ? 'active' : 'inactive: its trigger starts no runs'}`);
  });
}

export async function runWorkflowReplay(runId: string, flags: RemoteCommandFlags, output: Output): Promise<number> {
  return runRemote(flags, output, async (client) => {
    const started = await client.call(
      client.api.POST('/v1/workflow-runs/{id}/replay', { params: { path: { id: runId } } }),
    );
    if (flags.json) return output.json(started.data);
    output.out(`Started run ${started.data.run_id}, a replay of ${runId} with its event`);
  });
}

export async function runWorkflowCancel(runId: string, flags: RemoteCommandFlags, output: Output): Promise<number> {
  return runRemote(flags, output, async (client) => {
    const { data } = await client.call(
      client.api.POST('/v1/workflow-runs/{id}/cancel', { params: { path: { id: runId } } }),
    );
    if (flags.json) return output.json(data);
    output.out(`Run ${data.id}: ${data.status}`);
  });
}

/** A workflow file as the API takes it; the server validates it and its refusal is the error shown. */
type WorkflowBody = ApiPaths['/v1/workflows']['post']['requestBody']['content']['application/json'];
const REMOTE_EXIT_FAILED = 1;
type RunsQuery = NonNullable<ApiPaths['/v1/workflows/{id}/runs']['get']['parameters']['query']>;
