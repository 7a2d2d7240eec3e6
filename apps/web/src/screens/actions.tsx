/**
 * Actions: pick a saved or registry action, fill its props, Run it on the server
 * (`POST /v1/actions/run`) and read its `$return_value`, exports, summary, logs and error.
 */
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import type { RunReportT, SavedComponentT } from '../api/endpoints.js';
import { useApi } from '../auth/session.js';
import { ComponentPicker } from '../components/component-picker.js';
import { JsonViewer } from '../components/json-viewer.js';
import { Markdown } from '../components/markdown.js';
import { ErrorState, Loading } from '../components/states.js';
import { PropsForm } from '../props/props-form.js';
import { usePropsForm } from '../props/use-props-form.js';
import { useTitle } from '../components/use-title.js';
import { InstallProgress, useInstallProgress } from '../components/install-progress.js';

export function ActionsScreen() {
  useTitle('Actions');
  const api = useApi();
  const [params] = useSearchParams();
  const key = params.get('key');
  const [picked, setPicked] = useState<SavedComponentT | null>(null);
  const fromKey = useQuery({
    queryKey: ['component', key],
    queryFn: () => api.getComponent(key ?? ''),
    enabled: Boolean(key) && !picked,
  });
  const component = picked ?? fromKey.data ?? null;
  return (
    <section className="page">
      <div className="page-head">
        <h1>Actions</h1>
        {component ? (
          <button type="button" className="button" onClick={() => setPicked(null)} hidden={!picked}>
            Choose another action
          </button>
        ) : null}
      </div>
      {key && !picked && fromKey.isPending ? <Loading label={`Loading ${key}…`} /> : null}
      {key && !picked && fromKey.error ? <ErrorState error={fromKey.error} /> : null}
      {component ? (
        <RunForm key={component.id} component={component} />
      ) : (
        <ComponentPicker type="action" onPicked={setPicked} />
      )}
    </section>
  );
}

function RunForm({ component }: { readonly component: SavedComponentT }) {
  const api = useApi();
  const form = usePropsForm({ componentId: component.id, configurableProps: component.configurable_props });
  const [topError, setTopError] = useState<unknown>(null);
  // A run of an action whose packages left the server's cache installs them again first.
  const installs = useInstallProgress();
  const run = useMutation({
    mutationFn: () =>
      installs.track(() => api.runAction({ id: component.key ?? component.id, configured_props: form.wire() })),
    onMutate: () => {
      form.clearErrors();
      setTopError(null);
    },
    onError: (error) => {
      if (!form.showError(error)) setTopError(error);
    },
  });
  if (component.component_type !== 'action') {
    return (
      <div className="notice notice-warning" role="alert">
        {component.name ?? component.id} is a source: deploy it from Sources instead.
      </div>
    );
  }
  return (
    <div className="action-layout">
      <form
        className="card form"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          run.mutate();
        }}
      >
        <h2>
          {component.name ?? component.key ?? component.id}{' '}
          {component.version ? <span className="muted small">v{component.version}</span> : null}
        </h2>
        {component.description ? <Markdown text={component.description} /> : null}
        <PropsForm
          componentId={component.id}
          props={form.props}
          values={form.values}
          onChange={form.setValue}
          errors={form.errors}
        />
        {topError ? <ErrorState error={topError} /> : null}
        <div className="form-actions">
          <button type="submit" className="button button-primary" disabled={run.isPending}>
            {run.isPending ? 'Running…' : 'Run'}
          </button>
        </div>
        <InstallProgress tracker={installs} />
      </form>
      <div className="card run-result" aria-live="polite" aria-label="Result">
        {run.isPending ? (
          <Loading label="Running the action…" />
        ) : run.data ? (
          <RunResult report={run.data} />
        ) : (
          <p className="muted">Fill the props and press Run; the result appears here.</p>
        )}
      </div>
    </div>
  );
}

export function RunResult({ report }: { readonly report: RunReportT }) {
  return (
    <div className="run-report" data-ok={report.ok}>
      <h2>{report.ok ? 'Succeeded' : 'Failed'}</h2>
      {report.summary ? (
        <p>
          <strong>Summary:</strong> <span data-testid="run-summary">{report.summary}</span>
        </p>
      ) : null}
      {report.error ? (
        <div className="notice notice-error" role="alert">
          <p>
            <code>{report.error.code}</code> {report.error.message}
          </p>
          {report.error.stack ? <pre className="stack">{report.error.stack}</pre> : null}
        </div>
      ) : null}
      {report.exit?.reason ? <p className="muted">Exited early: {report.exit.reason}</p> : null}
      <h3>Return value</h3>
      <JsonViewer value={report.return_value} label="Return value" />
      <h3>Exports</h3>
      {Object.keys(report.exports).length === 0 ? (
        <p className="muted">No exports.</p>
      ) : (
        <div data-testid="run-exports">
          <JsonViewer value={report.exports} label="Exports" />
        </div>
      )}
      <h3>Logs</h3>
      {report.logs.length === 0 ? (
        <p className="muted">No logs.</p>
      ) : (
        <div className="log-view">
          {report.logs.map((line, index) => (
            <pre key={index} className={`log-line log-${line.level}`}>
              <span className="log-level">{line.level}</span> {line.message}
            </pre>
          ))}
        </div>
      )}
      {report.warnings.length > 0 ? (
        <>
          <h3>Warnings</h3>
          <ul>
            {report.warnings.map((warning, index) => (
              <li key={index}>
                <code>{warning.rule}</code> {warning.message}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </div>
  );
}
