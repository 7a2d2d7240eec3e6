/** A deployed source (contract §11): header actions and the Events, Logs and Configuration tabs. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, Navigate, NavLink, useNavigate, useParams } from 'react-router';
import type { DeployedSourceT } from '../api/endpoints.js';
import { useApi } from '../auth/session.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { Subscribers } from '../components/subscribers.js';
import { QueryView } from '../components/states.js';
import { TriggerList } from '../components/trigger-list.js';
import { RunNowButton, RunStatus, useRunNow } from './source-run-now.js';
import { ConfigurationTab } from './source-configuration.js';
import { EventsTab } from './source-events.js';
import { LogsTab } from './source-logs.js';
import { useTitle } from '../components/use-title.js';
import { useToast } from '../components/toasts.js';
import { accountIdsOf, ReconnectBanner } from '../accounts/reconnect-banner.js';

const TABS = ['events', 'logs', 'configuration'] as const;
type Tab = (typeof TABS)[number];

export function SourceScreen() {
  const { id = '', tab } = useParams();
  const api = useApi();
  const source = useQuery({ queryKey: ['source', id], queryFn: () => api.getSource(id) });
  if (!tab || !(TABS as readonly string[]).includes(tab))
    return <Navigate to={`/sources/${encodeURIComponent(id)}/events`} replace />;
  return (
    <section className="page">
      <p className="breadcrumb">
        <Link to="/sources">Sources</Link> /
      </p>
      <QueryView query={source} loadingLabel="Loading source…">
        {(data) => <SourceView source={data} tab={tab as Tab} />}
      </QueryView>
    </section>
  );
}

function SourceView({ source, tab }: { readonly source: DeployedSourceT; readonly tab: Tab }) {
  useTitle(`${source.name} · ${tab[0]?.toUpperCase()}${tab.slice(1)}`);
  const api = useApi();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [confirming, setConfirming] = useState(false);
  const toast = useToast();
  const refresh = (updated: DeployedSourceT) => {
    queryClient.setQueryData(['source', source.id], updated);
    void queryClient.invalidateQueries({ queryKey: ['sources'] });
  };
  const toggle = useMutation({
    mutationFn: () => api.updateSource(source.id, { active: !source.active }),
    onSuccess: (updated: DeployedSourceT) => {
      refresh(updated);
      toast({ message: `${updated.active ? 'Activated' : 'Deactivated'} ${updated.name}` });
    },
  });
  const run = useRunNow(source);
  const remove = useMutation({
    mutationFn: () => api.deleteSource(source.id),
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: ['source', source.id] });
      await queryClient.invalidateQueries({ queryKey: ['sources'] });
      navigate('/sources');
      toast({ message: `Deleted ${source.name}` });
    },
  });
  const error = toggle.error ?? remove.error;
  return (
    <>
      <div className="page-head">
        <div>
          <h1>{source.name}</h1>
          <p className="muted small mono">
            {source.id} · {source.active ? 'active' : 'inactive'}
          </p>
        </div>
        <div className="actions">
          <RunNowButton source={source} state={run} />
          <button type="button" className="button" onClick={() => toggle.mutate()} disabled={toggle.isPending}>
            {source.active ? 'Deactivate' : 'Activate'}
          </button>
          <button type="button" className="button button-danger" onClick={() => setConfirming(true)}>
            Delete
          </button>
        </div>
      </div>
      <ReconnectBanner accountIds={accountIdsOf([source.configured_props])} />
      <div className="source-triggers">
        <TriggerList source={source} />
      </div>
      <div className="notice-slot">
        {error ? (
          <p className="field-error" role="alert">
            {error.message}
          </p>
        ) : (
          <RunStatus source={source} state={run} />
        )}
      </div>
      <Subscribers emitterId={source.id} emitterName={source.name} />
      <nav className="tabs" aria-label="Source">
        {TABS.map((name) => (
          <NavLink key={name} to={`/sources/${source.id}/${name}`} className="tab">
            {name[0]?.toUpperCase()}
            {name.slice(1)}
          </NavLink>
        ))}
      </nav>
      <div className="tab-panel">
        {tab === 'events' ? (
          <EventsTab source={source} />
        ) : tab === 'logs' ? (
          <LogsTab source={source} />
        ) : (
          <ConfigurationTab source={source} onSaved={refresh} />
        )}
      </div>
      <ConfirmDialog
        open={confirming}
        title={`Delete ${source.name}?`}
        confirmLabel="Delete source"
        busy={remove.isPending}
        onCancel={() => setConfirming(false)}
        onConfirm={() => remove.mutate()}
      >
        <p>
          A run still going is stopped, its deactivate hook runs, then the source is removed with its events, logs and
          state. Its endpoint URL stops answering. This cannot be undone.
        </p>
        {remove.error ? <p className="field-error">{remove.error.message}</p> : null}
      </ConfirmDialog>
    </>
  );
}
