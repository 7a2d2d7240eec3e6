/**
 * A workflow: header (version, active, its file to download, Run now, subscribers, delete) and the Builder and Runs tabs; a new
 * workflow is the builder alone.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Link, Navigate, NavLink, useNavigate, useParams } from 'react-router';
import type { WorkflowT } from '../api/endpoints.js';
import { useApi } from '../auth/session.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { ErrorState, QueryView } from '../components/states.js';
import { Subscribers } from '../components/subscribers.js';
import { useToast } from '../components/toasts.js';
import { useTitle } from '../components/use-title.js';
import { WorkflowBuilder } from '../workflows/builder.js';
import { describeTrigger } from '../workflows/describe-trigger.js';
import { downloadWorkflowFile } from '../workflows/download-file.js';
import { parseEvent } from '../workflows/parse-event.js';
import { WorkflowRuns } from '../workflows/runs.js';
import { accountIdsOf, ReconnectBanner } from '../accounts/reconnect-banner.js';

const TABS = ['builder', 'runs'] as const;
type Tab = (typeof TABS)[number];

export function NewWorkflowScreen() {
  useTitle('New workflow');
  return (
    <section className="page">
      <p className="breadcrumb">
        <Link to="/workflows">Workflows</Link> /
      </p>
      <h1>New workflow</h1>
      <WorkflowBuilder workflow={null} />
    </section>
  );
}

export function WorkflowScreen() {
  const { id = '', tab, runId } = useParams();
  const api = useApi();
  const workflow = useQuery({ queryKey: ['workflow', id], queryFn: () => api.getWorkflow(id) });
  if (!runId && (!tab || !(TABS as readonly string[]).includes(tab)))
    return <Navigate to={`/workflows/${encodeURIComponent(id)}/builder`} replace />;
  return (
    <section className="page">
      <p className="breadcrumb">
        <Link to="/workflows">Workflows</Link> /
      </p>
      <QueryView query={workflow} loadingLabel="Loading workflow…">
        {(data) => <WorkflowView workflow={data} tab={runId ? 'runs' : (tab as Tab)} runId={runId ?? null} />}
      </QueryView>
    </section>
  );
}

function WorkflowView({
  workflow,
  tab,
  runId,
}: {
  readonly workflow: WorkflowT;
  readonly tab: Tab;
  readonly runId: string | null;
}) {
  useTitle(`${workflow.name} · ${tab === 'builder' ? 'Builder' : 'Runs'}`);
  const api = useApi();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const toast = useToast();
  const [confirming, setConfirming] = useState(false);
  const toggle = useMutation({
    mutationFn: () => api.setWorkflowActive(workflow.id, !workflow.active),
    onSuccess: async (updated) => {
      queryClient.setQueryData(['workflow', workflow.id], updated);
      await queryClient.invalidateQueries({ queryKey: ['workflows'] });
      toast({ message: `${updated.active ? 'Activated' : 'Deactivated'} ${updated.name}` });
    },
  });
  const remove = useMutation({
    mutationFn: () => api.deleteWorkflow(workflow.id),
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: ['workflow', workflow.id] });
      await queryClient.invalidateQueries({ queryKey: ['workflows'] });
      navigate('/workflows');
      toast({ message: `Deleted ${workflow.name}` });
    },
  });
  return (
    <>
      <div className="page-head">
        <div>
          <h1>{workflow.name}</h1>
          <p className="muted small mono" data-testid="workflow-meta">
            {workflow.id} · version {workflow.version} · {workflow.active ? 'active' : 'inactive'} ·{' '}
            {describeTrigger(workflow.spec.trigger)}
          </p>
        </div>
        <div className="actions">
          <button
            type="button"
            className="button"
            onClick={() => downloadWorkflowFile(workflow)}
            title="The workflow file that tributary workflow deploy reads (JSON, code steps inline)"
          >
            Download file
          </button>
          <button type="button" className="button" onClick={() => toggle.mutate()} disabled={toggle.isPending}>
            {workflow.active ? 'Deactivate' : 'Activate'}
          </button>
          <button type="button" className="button button-danger" onClick={() => setConfirming(true)}>
            Delete
          </button>
        </div>
      </div>
      {toggle.error ? <ErrorState error={toggle.error} /> : null}
      <ReconnectBanner accountIds={accountIdsOf(workflow.spec.steps.map((step) => step.props))} />
      <RunNow workflow={workflow} />
      <Subscribers emitterId={workflow.id} emitterName={workflow.name} />
      <nav className="tabs" aria-label="Workflow">
        {TABS.map((name) => (
          <NavLink key={name} to={`/workflows/${workflow.id}/${name}`} className="tab">
            {name === 'builder' ? 'Builder' : 'Runs'}
          </NavLink>
        ))}
      </nav>
      <div className="tab-panel">
        {tab === 'builder' ? (
          <WorkflowBuilder key={workflow.id} workflow={workflow} />
        ) : (
          <WorkflowRuns workflow={workflow} runId={runId} />
        )}
      </div>
      <ConfirmDialog
        open={confirming}
        title={`Delete ${workflow.name}?`}
        confirmLabel="Delete workflow"
        busy={remove.isPending}
        onCancel={() => setConfirming(false)}
        onConfirm={() => remove.mutate()}
      >
        <p>The workflow is removed with its versions and runs; its endpoint stops answering. This cannot be undone.</p>
        {remove.error ? <p className="field-error">{remove.error.message}</p> : null}
      </ConfirmDialog>
    </>
  );
}

/** RUN NOW with an optional event; the new run opens in the Runs tab. */
function RunNow({ workflow }: { readonly workflow: WorkflowT }) {
  const id = useId();
  const api = useApi();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [event, setEvent] = useState('');
  const run = useMutation({
    mutationFn: () => api.runWorkflow(workflow.id, parseEvent(event)),
    onSuccess: async (started) => {
      await queryClient.invalidateQueries({ queryKey: ['workflow-runs', workflow.id] });
      navigate(`/workflows/${workflow.id}/runs/${started.run_id}`);
    },
  });
  return (
    <details className="card run-now">
      <summary>Run now</summary>
      <form
        onSubmit={(submit) => {
          submit.preventDefault();
          run.mutate();
        }}
      >
        <div className="field">
          <label className="field-label" htmlFor={`${id}-event`}>
            Event (JSON, optional)
          </label>
          <textarea
            id={`${id}-event`}
            className="code-input"
            rows={3}
            spellCheck={false}
            value={event}
            onChange={(change) => setEvent(change.target.value)}
          />
        </div>
        {run.error ? <ErrorState error={run.error} /> : null}
        <button type="submit" className="button button-primary" disabled={run.isPending}>
          {run.isPending ? 'Starting…' : 'Start a run'}
        </button>
      </form>
    </details>
  );
}
