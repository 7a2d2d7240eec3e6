import {
  CreateWorkflowBody,
  list,
  PageInfo,
  RunWorkflowBody,
  single,
  StartedRun,
  StepRun,
  TestStepBody,
  UpdateWorkflowBody,
  Workflow,
  WorkflowRun,
  WorkflowRunDetail,
  WorkflowRunsQuery,
} from '@tributary/contracts';
import type { Engine } from '@tributary/engine';
import { z } from 'zod';
import { pageInfo } from './pagination.js';
import { route, type RouteSpec } from './route-table.js';

const RunList = z.object({
  page_info: PageInfo,
  data: z.array(WorkflowRun),
  /** Runs dropped so far to keep the workflow's last `keep_runs`. */
  runs_dropped: z.number().int(),
});

/** Workflows (docs/workflows.md): saved versions, activation, RUN NOW, and their durable runs. */
export function workflowRoutes(engine: Engine): RouteSpec[] {
  const workflows = engine.workflows;
  return [
    route({
      method: 'POST',
      url: '/v1/workflows',
      tag: 'workflows',
      summary: 'Create a workflow (version 1); every problem is refused before anything is stored',
      body: CreateWorkflowBody,
      response: single(Workflow),
      status: 201,
      handler: async ({ request }) => ({ data: await workflows.create(request.body) }),
    }),
    route({
      method: 'GET',
      url: '/v1/workflows',
      tag: 'workflows',
      summary: 'List workflows, newest first',
      response: list(Workflow),
      handler: async () => {
        const data = await workflows.list();
        return { page_info: pageInfo(data, data.length), data };
      },
    }),
    route({
      method: 'GET',
      url: '/v1/workflows/:id',
      tag: 'workflows',
      summary: 'One workflow at its current version',
      response: single(Workflow),
      handler: async ({ params }) => ({ data: await workflows.get(params['id'] ?? '') }),
    }),
    route({
      method: 'PUT',
      url: '/v1/workflows/:id',
      tag: 'workflows',
      summary: 'Save a new version of a workflow (runs in flight finish on the version they started with)',
      body: UpdateWorkflowBody,
      response: single(Workflow),
      handler: async ({ params, request }) => ({ data: await workflows.update(params['id'] ?? '', request.body) }),
    }),
    route({
      method: 'DELETE',
      url: '/v1/workflows/:id',
      tag: 'workflows',
      summary: 'Delete a workflow with its versions and runs',
      response: z.null(),
      status: 204,
      handler: async ({ params, reply }) => {
        await workflows.delete(params['id'] ?? '');
        void reply.status(204);
        return null;
      },
    }),
    ...(['activate', 'deactivate'] as const).map((action) =>
      route({
        method: 'POST',
        url: `/v1/workflows/:id/${action}`,
        tag: 'workflows',
        summary:
          action === 'activate' ? 'Activate: its trigger starts runs again' : 'Deactivate: its trigger starts no runs',
        response: single(Workflow),
        handler: async ({ params }) => ({ data: await workflows.setActive(params['id'] ?? '', action === 'activate') }),
      }),
    ),
    route({
      method: 'POST',
      url: '/v1/workflows/:id/run',
      tag: 'workflows',
      summary: 'RUN NOW: start a run with an optional event (`steps.trigger.event`)',
      body: RunWorkflowBody,
      response: single(StartedRun),
      status: 202,
      handler: async ({ params, body }) => ({
        data: { run_id: await workflows.trigger(params['id'] ?? '', 'manual', body.event ?? null) },
      }),
    }),
    route({
      method: 'POST',
      url: '/v1/workflows/:id/steps/:name/test',
      tag: 'workflows',
      summary: 'Test one step with a chosen event and earlier results; nothing is stored',
      body: TestStepBody,
      response: single(StepRun),
      handler: async ({ params, body }) => ({
        data: await workflows.testStep(params['id'] ?? '', params['name'] ?? '', {
          ...(body.event !== undefined ? { event: body.event } : {}),
          ...(body.steps ? { steps: body.steps } : {}),
        }),
      }),
    }),
    route({
      method: 'GET',
      url: '/v1/workflows/:id/runs',
      tag: 'workflows',
      summary:
        'Runs of a workflow, newest first (all, or those in one `status`), with how many were dropped to keep the last `keep_runs`',
      query: WorkflowRunsQuery,
      response: RunList,
      handler: async ({ params, query }) => {
        const page = await workflows.listRuns(params['id'] ?? '', {
          limit: query.limit,
          ...(query.before !== undefined ? { before: query.before } : {}),
          ...(query.status !== undefined ? { status: query.status } : {}),
        });
        return { page_info: pageInfo(page.data, page.total), data: page.data, runs_dropped: page.dropped };
      },
    }),
    route({
      method: 'GET',
      url: '/v1/workflow-runs/:id',
      tag: 'workflows',
      summary:
        "One run: trigger event, version, per step its status, props, results, logs and error, and its steps' deliveries",
      response: single(WorkflowRunDetail),
      handler: async ({ params }) => ({ data: await engine.workflowRun(params['id'] ?? '') }),
    }),
    route({
      method: 'POST',
      url: '/v1/workflow-runs/:id/replay',
      tag: 'workflows',
      summary: "Run the workflow's current version again with this run's event",
      response: single(StartedRun),
      status: 202,
      handler: async ({ params }) => ({ data: { run_id: await workflows.replay(params['id'] ?? '') } }),
    }),
    route({
      method: 'POST',
      url: '/v1/workflow-runs/:id/cancel',
      tag: 'workflows',
      summary: 'Cancel a run waiting on $.flow.delay (409 WORKFLOW_RUN_NOT_DELAYED otherwise)',
      response: single(WorkflowRun),
      handler: async ({ params }) => ({ data: await workflows.cancel(params['id'] ?? '') }),
    }),
  ];
}
