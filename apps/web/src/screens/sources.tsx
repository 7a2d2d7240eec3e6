/** The Sources list (contract §11): name, active toggle, trigger, last event, 24 h chart. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, Navigate, useSearchParams } from 'react-router';
import type { DeployedSourceT } from '../api/endpoints.js';
import { useApi } from '../auth/session.js';
import { EventsChart } from '../components/sparkline.js';
import { Empty, QueryView } from '../components/states.js';
import { RelativeTime, useNow } from '../components/time.js';
import { TriggerList } from '../components/trigger-list.js';
import { useTitle } from '../components/use-title.js';
import { applyView, viewFromParams, type SourcesView } from './sources-filter.js';
import { useSourcesView } from './use-sources-view.js';
import { SourcesToolbar } from './sources-toolbar.js';

export function SourcesScreen() {
  useTitle('Sources');
  const [params] = useSearchParams();
  const [view, setView] = useSourcesView();
  const api = useApi();
  const sources = useQuery({ queryKey: ['sources'], queryFn: () => api.listSources() });
  // The upstream deep links: /sources?action=create&key=… and &url=… open the create form.
  if (params.get('action') === 'create') return <Navigate to={`/sources/new?${params.toString()}`} replace />;
  return (
    <section className="page">
      <div className="page-head">
        <h1>Sources</h1>
        <Link to="/sources/new" className="button button-primary">
          New source
        </Link>
      </div>
      <QueryView query={sources} loadingLabel="Loading sources…">
        {(page) =>
          page.data.length === 0 ? (
            <Empty title="No sources yet">
              <p>
                A source runs your component on a trigger (an HTTP request or a timer) and keeps the events it emits.
              </p>
              <p>
                <Link to="/sources/new">Create one</Link> from a registry component, pasted code or a URL, browse the{' '}
                <Link to="/registry">registry</Link>, or run <code>tributary deploy my-source.mjs</code>. The{' '}
                <Link to="/docs/quickstart-source">source quickstart</Link> walks through it.
              </p>
            </Empty>
          ) : (
            <SourcesTable sources={page.data} view={view} onViewChange={setView} />
          )
        }
      </QueryView>
    </section>
  );
}

function SourcesTable({
  sources,
  view,
  onViewChange,
}: {
  readonly sources: readonly DeployedSourceT[];
  readonly view: SourcesView;
  readonly onViewChange: (view: SourcesView) => void;
}) {
  const shown = applyView(sources, view);
  return (
    <>
      <SourcesToolbar view={view} onChange={onViewChange} shown={shown.length} total={sources.length} />
      {shown.length === 0 ? (
        <Empty title="No source matches">
          <p>
            <button
              type="button"
              className="button button-small"
              onClick={() => onViewChange(viewFromParams(new URLSearchParams()))}
            >
              Clear search and filters
            </button>
          </p>
        </Empty>
      ) : (
        <div className="table-wrap">
          <table className="table sources-table stack-table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Active</th>
                <th scope="col">Trigger</th>
                <th scope="col">Last event</th>
                <th scope="col">Last 24 h</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((source) => (
                <SourceRow key={source.id} source={source} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

function SourceRow({ source }: { readonly source: DeployedSourceT }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const now = useNow(1000);
  // Only times are needed here, so the payloads stay cut; refreshed every half minute.
  const events = useQuery({
    queryKey: ['event-times', source.id],
    queryFn: () => api.listEvents(source.id, { expand: false }),
    refetchInterval: 30_000,
  });
  const toggle = useMutation({
    mutationFn: (active: boolean) => api.updateSource(source.id, { active }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['sources'] }),
  });
  const times = events.data?.data.map((event) => event.indexed_at_ms) ?? [];
  const last = times.length > 0 ? Math.max(...times) : null;
  return (
    <tr>
      <td data-label="Name">
        <Link to={`/sources/${source.id}/events`} className="strong">
          {source.name}
        </Link>
        <div className="muted small mono">{source.id}</div>
      </td>
      <td data-label="Active">
        <button
          type="button"
          role="switch"
          aria-checked={source.active}
          aria-label={`Active: ${source.name}`}
          className={`switch${source.active ? ' switch-on' : ''}`}
          disabled={toggle.isPending}
          onClick={() => toggle.mutate(!source.active)}
        >
          <span className="switch-knob" aria-hidden="true" />
        </button>
        {toggle.error ? <p className="field-error">{toggle.error.message}</p> : null}
      </td>
      <td data-label="Trigger" className="trigger-cell">
        <TriggerList source={source} />
      </td>
      <td data-label="Last event">
        {events.isPending ? (
          <span className="muted">…</span>
        ) : last ? (
          <RelativeTime ms={last} />
        ) : (
          <span className="muted">none yet</span>
        )}
      </td>
      <td data-label="Last 24 h">
        {events.error ? (
          <span className="field-error">{events.error.message}</span>
        ) : (
          <EventsChart times={times} now={now} />
        )}
      </td>
    </tr>
  );
}
