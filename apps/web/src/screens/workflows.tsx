/** Workflows: the list (name, active, trigger, last run, version, saved), and a way to a new one. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import type { WorkflowT } from '../api/endpoints.js';
import { useApi } from '../auth/session.js';
import { RelativeTime } from '../components/time.js';
import { Empty, QueryView } from '../components/states.js';
import { useTitle } from '../components/use-title.js';
import { describeTrigger } from '../workflows/describe-trigger.js';

export function WorkflowsScreen() {
  useTitle('Workflows');
  const api = useApi();
  const workflows = useQuery({ queryKey: ['workflows'], queryFn: () => api.listWorkflows() });
  return (
    <section className="page">
      <div className="page-head">
        <h1>Workflows</h1>
        <Link to="/workflows/new" className="button button-primary">
          New workflow
        </Link>
      </div>
      <QueryView query={workflows} loadingLabel="Loading workflows…">
        {(page) =>
          page.data.length === 0 ? (
            <Empty title="No workflows yet">
              <p>
                A workflow is a trigger and steps: <Link to="/workflows/new">build one</Link>, or deploy a workflow file
                with <code>tributary workflow deploy</code>.
              </p>
            </Empty>
          ) : (
            <div className="table-wrap">
              <table className="table stack-table">
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Active</th>
                    <th scope="col">Trigger</th>
                    <th scope="col">Last run</th>
                    <th scope="col">Version</th>
                    <th scope="col">Saved</th>
                  </tr>
                </thead>
                <tbody>
                  {page.data.map((workflow) => (
                    <WorkflowRow key={workflow.id} workflow={workflow} />
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </QueryView>
    </section>
  );
}

function WorkflowRow({ workflow }: { readonly workflow: WorkflowT }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const toggle = useMutation({
    mutationFn: (active: boolean) => api.setWorkflowActive(workflow.id, active),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['workflows'] }),
  });
  return (
    <tr>
      <td data-label="Name">
        <Link to={`/workflows/${workflow.id}`} className="strong">
          {workflow.name}
        </Link>
        <div className="muted small mono">{workflow.id}</div>
      </td>
      <td data-label="Active">
        <button
          type="button"
          role="switch"
          aria-checked={workflow.active}
          aria-label={`Active: ${workflow.name}`}
          className={`switch${workflow.active ? ' switch-on' : ''}`}
          disabled={toggle.isPending}
          onClick={() => toggle.mutate(!workflow.active)}
        >
          <span className="switch-knob" aria-hidden="true" />
        </button>
        {toggle.error ? <p className="field-error">{toggle.error.message}</p> : null}
      </td>
      <td data-label="Trigger">{describeTrigger(workflow.spec.trigger)}</td>
      <td data-label="Last run">
        {workflow.last_run ? (
          <Link
            to={`/workflows/${workflow.id}/runs/${workflow.last_run.id}`}
            aria-label={`Last run of ${workflow.name}: ${workflow.last_run.status}`}
          >
            <span className={`badge status-${workflow.last_run.status}`}>{workflow.last_run.status}</span>{' '}
            <RelativeTime ms={workflow.last_run.created_at} />
          </Link>
        ) : (
          <span className="muted">none yet</span>
        )}
      </td>
      <td data-label="Version">v{workflow.version}</td>
      <td data-label="Saved">
        <RelativeTime ms={workflow.updated_at} />
      </td>
    </tr>
  );
}
