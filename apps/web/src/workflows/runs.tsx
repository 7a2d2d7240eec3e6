/**
 * A workflow's runs, newest first, and the run inspector: the version it ran, its trigger event,
 * each step's status, duration, props, `$return_value`, exports, logs and error, the deliveries
 * of its `$.send.*` calls (status, attempts, error), and replay. A run still going is polled.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId } from 'react';
import { Link, useLocation, useNavigate, useSearchParams } from 'react-router';
import type { RunStatusT, WorkflowRunDetailT, WorkflowRunT, WorkflowT } from '../api/endpoints.js';
import { useApi } from '../auth/session.js';
import { countOf } from '@tributary/contracts/count';
import { JsonViewer } from '../components/json-viewer.js';
import { Empty, ErrorState, QueryView } from '../components/states.js';
import { RelativeTime } from '../components/time.js';
import { StepResult } from './step-result.js';

const ENDED = new Set(['succeeded', 'exited', 'failed', 'cancelled']);

const STATUSES: readonly RunStatusT[] = ['failed', 'succeeded', 'exited', 'delayed', 'running', 'queued', 'cancelled'];

export function WorkflowRuns({ workflow, runId }: { readonly workflow: WorkflowT; readonly runId: string | null }) {
  const api = useApi();
  // In the address, so a filtered list survives a reload and can be linked to.
  const [params, setParams] = useSearchParams();
  const shown = params.get('status');
  const status = STATUSES.find((known) => known === shown);
  const runs = useQuery({
    queryKey: ['workflow-runs', workflow.id, status ?? 'all'],
    queryFn: () => api.listWorkflowRuns(workflow.id, status ? { status } : {}),
    refetchInterval: 3000,
  });
  const filterId = useId();
  return (
    <div className="workflow-runs">
      <div className="list-toolbar">
        <div className="list-filter">
          <label className="small muted" htmlFor={filterId}>
            Status
          </label>
          <select
            id={filterId}
            value={status ?? 'all'}
            onChange={(event) =>
              setParams(event.target.value === 'all' ? {} : { status: event.target.value }, { replace: true })
            }
          >
            <option value="all">All runs</option>
            {STATUSES.map((option) => (
              <option key={option} value={option}>
                {option}
              </option>
            ))}
          </select>
        </div>
      </div>
      <QueryView query={runs} loadingLabel="Loading runs…">
        {(page) =>
          page.data.length === 0 ? (
            status ? (
              <Empty title={`No ${status} runs`}>
                <p>Of the runs kept, none is {status}.</p>
              </Empty>
            ) : (
              <Empty title="No runs yet">
                <p>Trigger the workflow, or use Run now.</p>
              </Empty>
            )
          ) : (
            <div className="table-wrap">
              <table className="table stack-table" aria-label="Runs">
                <caption className="muted small">
                  {countOf(page.page_info.total_count, status ? `${status} run` : 'run')}
                  {page.runs_dropped > 0 ? `, ${countOf(page.runs_dropped, 'older one', 'older ones')} dropped` : ''}
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Run</th>
                    <th scope="col">Status</th>
                    <th scope="col">Version</th>
                    <th scope="col">Trigger</th>
                    <th scope="col">Started</th>
                  </tr>
                </thead>
                <tbody>
                  {page.data.map((run) => (
                    <RunRow key={run.id} workflow={workflow} run={run} selected={run.id === runId} />
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </QueryView>
      {runId ? <RunInspector workflow={workflow} runId={runId} /> : null}
    </div>
  );
}

function RunRow({
  workflow,
  run,
  selected,
}: {
  readonly workflow: WorkflowT;
  readonly run: WorkflowRunT;
  readonly selected: boolean;
}) {
  return (
    <tr aria-current={selected ? 'true' : undefined}>
      <td data-label="Run">
        {/* The list's filter stays on when a run opens beside it. */}
        <Link
          to={{ pathname: `/workflows/${workflow.id}/runs/${run.id}`, search: useLocation().search }}
          className="mono"
        >
          {run.id}
        </Link>
      </td>
      <td data-label="Status">
        <span className={`badge status-${run.status}`}>{run.status}</span>
      </td>
      <td data-label="Version">v{run.version}</td>
      <td data-label="Trigger">{run.trigger}</td>
      <td data-label="Started">
        <RelativeTime ms={run.created_at} />
      </td>
    </tr>
  );
}

function RunInspector({ workflow, runId }: { readonly workflow: WorkflowT; readonly runId: string }) {
  const api = useApi();
  const run = useQuery({
    queryKey: ['workflow-run', runId],
    queryFn: () => api.getWorkflowRun(runId),
    // Until the run ends and its deliveries settle, it is read again.
    refetchInterval: (query) => {
      const data = query.state.data;
      if (!data) return 1000;
      const settled = data.deliveries.every((delivery) => ['delivered', 'failed'].includes(delivery.status));
      return ENDED.has(data.status) && settled ? false : 1000;
    },
  });
  // The list shows the run's status too: refreshed once the run has ended.
  const queryClient = useQueryClient();
  const ended = run.data ? ENDED.has(run.data.status) : false;
  useEffect(() => {
    if (ended) void queryClient.invalidateQueries({ queryKey: ['workflow-runs', workflow.id] });
  }, [ended, queryClient, workflow.id]);
  return (
    <section className="run-inspector" aria-label={`Run ${runId}`}>
      <QueryView query={run} loadingLabel="Loading the run…">
        {(data) => <RunDetail workflow={workflow} run={data} />}
      </QueryView>
    </section>
  );
}

function RunDetail({ workflow, run }: { readonly workflow: WorkflowT; readonly run: WorkflowRunDetailT }) {
  const api = useApi();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const replay = useMutation({
    mutationFn: () => api.replayWorkflowRun(run.id),
    onSuccess: async (started) => {
      await queryClient.invalidateQueries({ queryKey: ['workflow-runs', workflow.id] });
      navigate(`/workflows/${workflow.id}/runs/${started.run_id}`);
    },
  });
  const duration = run.finished_at !== null ? run.finished_at - run.created_at : null;
  return (
    <>
      <div className="page-head">
        <h2>
          Run <span className="mono">{run.id}</span>{' '}
          <span className={`badge status-${run.status}`} data-testid="run-status">
            {run.status}
          </span>
        </h2>
        <button type="button" className="button" onClick={() => replay.mutate()} disabled={replay.isPending}>
          Replay
        </button>
      </div>
      <p className="muted" data-testid="run-meta">
        Version {run.version} · {run.trigger} · started <RelativeTime ms={run.created_at} />
        {duration !== null ? ` · ${duration} ms` : ''}
        {run.resume_at ? ' · resumes at ' + new Date(run.resume_at).toISOString() : ''}
      </p>
      {replay.error ? <ErrorState error={replay.error} /> : null}
      {run.error ? (
        <div className="notice notice-error" role="alert">
          <p>
            Failed at step <strong>{run.error.step ?? '(none)'}</strong>: <code>{run.error.code}</code>{' '}
            {run.error.message}
          </p>
        </div>
      ) : null}
      {run.exit ? <p className="muted">Exited early: {run.exit.reason ?? 'no reason given'}</p> : null}
      <details>
        <summary>Trigger event</summary>
        <JsonViewer value={run.event} label="Trigger event" />
      </details>
      <h3>Steps</h3>
      {run.steps.length === 0 ? <p className="muted">No step has run yet.</p> : null}
      {run.steps.map((step) => (
        <StepResult key={step.name} step={step} />
      ))}
      <h3>Deliveries</h3>
      {run.deliveries.length === 0 ? (
        <p className="muted">No deliveries: no step called $.send.</p>
      ) : (
        <div className="table-wrap">
          <table className="table stack-table" aria-label="Deliveries">
            <thead>
              <tr>
                <th scope="col">Step</th>
                <th scope="col">Kind</th>
                <th scope="col">Target</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Error</th>
              </tr>
            </thead>
            <tbody>
              {run.deliveries.map((delivery) => (
                <tr key={delivery.id}>
                  <td data-label="Step">{delivery.step_name ?? ''}</td>
                  <td data-label="Kind">{delivery.kind}</td>
                  <td data-label="Target" className="mono">
                    {delivery.target}
                  </td>
                  <td data-label="Status">
                    <span className={`badge status-${delivery.status}`}>{delivery.status}</span>
                  </td>
                  <td data-label="Attempts">
                    {delivery.attempts} / {delivery.max_attempts}
                  </td>
                  <td data-label="Error">{delivery.last_error ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
