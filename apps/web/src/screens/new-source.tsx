/**
 * New source (contract §11), also reached by the deep links `/sources?action=create&key=KEY` and
 * `&url=URL`: pick a component, fill its props, Deploy, land on the new source's events.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import type { SavedComponentT } from '../api/endpoints.js';
import { useApi } from '../auth/session.js';
import { ComponentPicker } from '../components/component-picker.js';
import { Markdown } from '../components/markdown.js';
import { ErrorState, Loading } from '../components/states.js';
import { PropsForm } from '../props/props-form.js';
import { usePropsForm } from '../props/use-props-form.js';
import { useTitle } from '../components/use-title.js';
import { useToast } from '../components/toasts.js';
import { InstallProgress, useInstallProgress, withSummary } from '../components/install-progress.js';

export function NewSourceScreen() {
  useTitle('New source');
  const api = useApi();
  const [params] = useSearchParams();
  const key = params.get('key');
  const url = params.get('url');
  const [picked, setPicked] = useState<SavedComponentT | null>(null);
  const fromKey = useQuery({
    queryKey: ['component', key],
    queryFn: () => api.getComponent(key ?? ''),
    enabled: Boolean(key) && !picked,
  });
  const urlInstalls = useInstallProgress();
  const fromUrl = useQuery({
    queryKey: ['component-url', url],
    queryFn: () => urlInstalls.track(() => api.saveComponent({ url: url ?? '' })),
    enabled: Boolean(url) && !key && !picked,
    staleTime: Infinity,
  });
  const component = picked ?? fromKey.data ?? fromUrl.data ?? null;
  const pending = !picked && ((Boolean(key) && fromKey.isPending) || (Boolean(url) && !key && fromUrl.isPending));
  const linkError = !picked ? (fromKey.error ?? fromUrl.error) : null;
  return (
    <section className="page">
      <div className="page-head">
        <h1>New source</h1>
        <Link to="/sources" className="button">
          Cancel
        </Link>
      </div>
      {pending ? <Loading label={key ? `Loading ${key}…` : 'Fetching the component…'} /> : null}
      {url && !key && !picked ? <InstallProgress tracker={urlInstalls} /> : null}
      {linkError ? <ErrorState error={linkError} /> : null}
      {component ? (
        <>
          <p>
            <button type="button" className="link-button" onClick={() => setPicked(null)} hidden={!picked}>
              Choose another component
            </button>
          </p>
          <DeployForm component={component} />
        </>
      ) : pending ? null : (
        <ComponentPicker
          type="source"
          initialMode={url ? 'url' : 'registry'}
          initialUrl={url ?? ''}
          onPicked={setPicked}
        />
      )}
    </section>
  );
}

function DeployForm({ component }: { readonly component: SavedComponentT }) {
  const api = useApi();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const form = usePropsForm({ componentId: component.id, configurableProps: component.configurable_props });
  const [name, setName] = useState('');
  const [topError, setTopError] = useState<unknown>(null);
  const toast = useToast();
  const installs = useInstallProgress();
  const deploy = useMutation({
    mutationFn: () =>
      installs.track(() =>
        api.deploySource({
          ref: { kind: 'id', id: component.id },
          ...(name.trim() ? { name: name.trim() } : {}),
          configuredProps: form.wire(),
        }),
      ),
    onMutate: () => {
      form.clearErrors();
      setTopError(null);
    },
    onSuccess: async (source) => {
      await queryClient.invalidateQueries({ queryKey: ['sources'] });
      navigate(`/sources/${source.id}/events`);
      toast({ message: withSummary(`Deployed ${source.name}`, installs) });
    },
    onError: (error) => {
      if (!form.showError(error)) setTopError(error);
    },
  });
  if (component.component_type !== 'source') {
    return (
      <div className="notice notice-warning" role="alert">
        <strong>{component.name ?? component.id}</strong> is an action. Actions are run, not deployed: open it under{' '}
        <Link to="/actions">Actions</Link>.
      </div>
    );
  }
  return (
    <form
      className="card form"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        deploy.mutate();
      }}
    >
      <h2>
        {component.name ?? component.key ?? component.id}{' '}
        {component.version ? <span className="muted small">v{component.version}</span> : null}
      </h2>
      {component.key ? <p className="muted small mono">{component.key}</p> : null}
      {component.description ? <Markdown text={component.description} /> : null}
      <div className="field">
        <label className="field-label" htmlFor="source-name">
          Source name <span className="muted">(optional; defaults to the component's name)</span>
        </label>
        <input id="source-name" value={name} onChange={(event) => setName(event.target.value)} />
      </div>
      <h3>Props</h3>
      <PropsForm
        componentId={component.id}
        props={form.props}
        values={form.values}
        onChange={form.setValue}
        errors={form.errors}
      />
      {form.reloadErrors.map((error) => (
        <p key={error} className="field-error">
          {error}
        </p>
      ))}
      {topError ? <ErrorState error={topError} /> : null}
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={deploy.isPending || form.reloading}>
          {deploy.isPending ? 'Deploying…' : 'Deploy'}
        </button>
      </div>
      <InstallProgress tracker={installs} />
    </form>
  );
}
