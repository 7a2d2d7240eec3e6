/**
 * Server status under Settings: version, uptime, readiness, what is queued, the sandbox pool and the
 * last failed invocations, each linked to its source's logs (`GET /v1/status`, docs/operations.md).
 */
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import type { ServerStatusT } from '../api/endpoints.js';
import { useApi } from '../auth/session.js';
import { Empty, QueryView } from '../components/states.js';
import { formatDuration, RelativeTime } from '../components/time.js';

const KIND_LABELS: Record<ServerStatusT['queue'][number]['kind'], string> = {
  source: 'Source invocations',
  workflow: 'Workflow runs',
  delivery: 'Deliveries',
};

export function ServerStatus() {
  const api = useApi();
  // A glance that stays current while the page is open, without hammering a busy server.
  const status = useQuery({ queryKey: ['status'], queryFn: () => api.status(), refetchInterval: 10_000 });
  return (
    <section className="card settings-section" aria-labelledby="server-status-title">
      <h2 id="server-status-title">Server status</h2>
      <QueryView query={status} loadingLabel="Loading the server status…">
        {(data) => (
          <>
            <dl className="status-facts" data-testid="server-status">
              <div>
                <dt>Version</dt>
                <dd className="mono">{data.version}</dd>
              </div>
              <div>
                <dt>Up for</dt>
                <dd>{formatDuration(data.uptime_seconds * 1000)}</dd>
              </div>
              <div>
                <dt>Readiness</dt>
                <dd className={data.ready ? 'status-ok' : 'status-bad'}>
                  {data.ready ? 'Ready' : `Not ready: ${data.not_ready.map((entry) => entry.message).join('; ')}`}
                </dd>
              </div>
              <div>
                <dt>Storage</dt>
                <dd>{data.storage === 'sqlite' ? 'SQLite' : 'PostgreSQL'}</dd>
              </div>
              {data.queue.map((entry) => (
                <div key={entry.kind}>
                  <dt>{KIND_LABELS[entry.kind]} queued</dt>
                  <dd>
                    {entry.depth}
                    {entry.depth > 0 ? (
                      <span className="muted small"> (oldest {formatDuration(entry.oldest_age_seconds * 1000)})</span>
                    ) : null}
                  </dd>
                </div>
              ))}
              <div>
                <dt>Sandbox workers</dt>
                <dd>
                  {data.pool.workers} ({data.pool.busy} busy, {Math.round(data.pool.memory_bytes / 1048576)} MB)
                </dd>
              </div>
            </dl>
            <h3>Recent failures</h3>
            {data.recent_failures.length === 0 ? (
              <Empty title="Nothing has failed since the server started" />
            ) : (
              <div className="table-wrap">
                <table className="table stack-table">
                  <thead>
                    <tr>
                      <th scope="col">When</th>
                      <th scope="col">What</th>
                      <th scope="col">Error</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.recent_failures.map((failure) => (
                      <tr key={failureKey(failure)} data-testid="recent-failure">
                        <td data-label="When">
                          <RelativeTime ms={failure.at * 1000} />
                        </td>
                        <td data-label="What">
                          <FailedItem failure={failure} />
                        </td>
                        <td data-label="Error">
                          <span className="mono">{failure.code}</span>{' '}
                          <span className="muted small">{failure.message}</span>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </>
        )}
      </QueryView>
    </section>
  );
}

type Failure = ServerStatusT['recent_failures'][number];

function failureKey(failure: Failure): string {
  switch (failure.kind) {
    case 'source':
      return failure.invocation_id;
    case 'workflow':
      return failure.run_id;
  }
}

/** What failed, linked to where it is shown: a source's logs, or the workflow run's inspector. */
function FailedItem({ failure }: { readonly failure: Failure }) {
  switch (failure.kind) {
    case 'source':
      return (
        <>
          <span className="muted small">Source</span>{' '}
          <Link to={`/sources/${encodeURIComponent(failure.source_id)}/logs`}>
            {failure.source_name ?? failure.source_id}
          </Link>
        </>
      );
    case 'workflow':
      return (
        <>
          <span className="muted small">Workflow</span>{' '}
          <Link to={`/workflows/${encodeURIComponent(failure.workflow_id)}/runs/${encodeURIComponent(failure.run_id)}`}>
            {failure.workflow_name ?? failure.workflow_id}
            {failure.step === null ? null : `, step ${failure.step}`}
          </Link>
        </>
      );
  }
}
