/**
 * The Configuration tab: name, props (the same form as New source) and code; Save sends one
 * update (contract §5.3: deactivate, apply, activate, same id) with only what changed. A code
 * edit reloads the props form from the edited code before saving, so new props can be filled in.
 */
import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { DeployedSourceT, SavedComponentT } from '../api/endpoints.js';
import { useApi } from '../auth/session.js';
import { ApiError } from '../api/client.js';
import { CodeEditor, type CodeMarker } from '../components/code-editor.js';
import { ErrorState, QueryView } from '../components/states.js';
import { PropsForm } from '../props/props-form.js';
import { usePropsForm } from '../props/use-props-form.js';
import { useToast } from '../components/toasts.js';
import {
  InstallProgress,
  useInstallProgress,
  withSummary,
  type InstallTracker,
} from '../components/install-progress.js';

export function ConfigurationTab({
  source,
  onSaved,
}: {
  readonly source: DeployedSourceT;
  readonly onSaved: (source: DeployedSourceT) => void;
}) {
  const api = useApi();
  // Saving new code gives the source a new component id; the form stays up while it loads.
  const component = useQuery({
    queryKey: ['component', source.component_id],
    queryFn: () => api.getComponent(source.component_id),
    placeholderData: keepPreviousData,
  });
  const [saved, setSaved] = useState(false);
  return (
    <QueryView query={component} loadingLabel="Loading configuration…">
      {(data) => (
        <ConfigurationForm source={source} component={data} onSaved={onSaved} saved={saved} setSaved={setSaved} />
      )}
    </QueryView>
  );
}

function ConfigurationForm({
  source,
  component,
  onSaved,
  saved,
  setSaved,
}: {
  source: DeployedSourceT;
  component: SavedComponentT;
  onSaved: (source: DeployedSourceT) => void;
  saved: boolean;
  setSaved: (saved: boolean) => void;
}) {
  const api = useApi();
  const form = usePropsForm({
    componentId: component.id,
    configurableProps: component.configurable_props,
    configured: source.configured_props,
  });
  const [name, setName] = useState(source.name);
  const [code, setCode] = useState(component.code);
  const [topError, setTopError] = useState<unknown>(null);
  // Reading the edited code's props and saving it both install the npm packages it imports.
  const installs = useInstallProgress();
  const codeProps = useCodeProps(form, code, component.code, installs);
  const marker = useMemo(() => markerOf(codeProps.error ?? topError), [codeProps.error, topError]);
  const toast = useToast();
  const save = useMutation({
    mutationFn: () =>
      installs.track(() =>
        api.updateSource(source.id, {
          ...(name.trim() && name.trim() !== source.name ? { name: name.trim() } : {}),
          ...(code !== component.code ? { component_code: code } : {}),
          configured_props: form.wireTouched(),
        }),
      ),
    onMutate: () => {
      form.clearErrors();
      setTopError(null);
      setSaved(false);
    },
    onSuccess: (updated) => {
      setSaved(true);
      onSaved(updated);
      toast({ message: withSummary(`Saved ${updated.name}`, installs) });
    },
    onError: (error) => {
      if (!form.showError(error)) setTopError(error);
    },
  });
  return (
    <form
      className="form config-form"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        save.mutate();
      }}
    >
      <div className="field">
        <label className="field-label" htmlFor="config-name">
          Name
        </label>
        <input id="config-name" value={name} onChange={(event) => setName(event.target.value)} />
      </div>
      <h3>Props</h3>
      <PropsForm
        componentId={component.id}
        props={form.props}
        values={form.values}
        onChange={form.setValue}
        errors={form.errors}
        endpointUrl={source.endpoint_url}
      />
      <details className="code-editor">
        <summary>Code {component.key ? <span className="muted small">({component.key})</span> : null}</summary>
        <label className="field-label" htmlFor="config-code" id="config-code-label">
          Component code <span className="muted small">(Ctrl+S saves)</span>
        </label>
        <CodeEditor
          id="config-code"
          labelId="config-code-label"
          rows={18}
          value={code}
          onChange={setCode}
          onSave={() => {
            if (!save.isPending && !form.reloading) save.mutate();
          }}
          marker={marker}
        />
        <p className={codeProps.error ? 'field-error' : 'muted small'} role="status">
          {codeProps.error
            ? `The props could not be read from this code: ${codeProps.error instanceof Error ? codeProps.error.message : String(codeProps.error)}`
            : codeProps.note}
        </p>
      </details>
      {topError ? <ErrorState error={topError} /> : null}
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={save.isPending || form.reloading}>
          {save.isPending ? 'Saving…' : 'Save'}
        </button>
        {/* Not a live region: the toast announces the save. */}
        <span className="muted small">
          {saved ? 'Saved: the source was updated (deactivate, apply, activate).' : ''}
        </span>
      </div>
      <InstallProgress tracker={installs} />
    </form>
  );
}

/** How long the code must rest before its props are read: typing does not start a load per key. */
const CODE_PROPS_DELAY_MS = 600;

/**
 * Reloads the props form from the edited code once typing pauses (and back from the saved code
 * when an edit is undone), and says what happened: props the edit added show up before Save.
 */
function useCodeProps(
  form: ReturnType<typeof usePropsForm>,
  code: string,
  savedCode: string,
  installs: InstallTracker,
): { readonly note: string; readonly error: unknown } {
  const formRef = useRef(form);
  formRef.current = form;
  const installsRef = useRef(installs);
  installsRef.current = installs;
  const loadedFor = useRef(savedCode);
  const [state, setState] = useState<{ note: string; error: unknown }>({ note: '', error: null });
  useEffect(() => {
    loadedFor.current = savedCode;
    setState({ note: '', error: null });
  }, [savedCode]);
  useEffect(() => {
    if (code === loadedFor.current) return;
    const timer = setTimeout(() => {
      setState({ note: 'Reading the props of the edited code…', error: null });
      void installsRef.current
        .track(() => formRef.current.reloadFromCode(code))
        .then((error) => {
          // Even a failed attempt counts: going back to the last good code reloads it and clears the error.
          loadedFor.current = code;
          if (error) {
            setState({ note: '', error });
            return;
          }
          setState({
            note:
              code === savedCode
                ? 'Props are those of the saved code again.'
                : 'Props reloaded from the edited code: fill in any new ones, then Save.',
            error: null,
          });
        });
    }, CODE_PROPS_DELAY_MS);
    return () => clearTimeout(timer);
  }, [code, savedCode]);
  return state;
}

/** The line an error of this code points at (a syntax error, a load failure), to mark in the editor. */
function markerOf(error: unknown): CodeMarker | null {
  if (!(error instanceof ApiError)) return null;
  const { line, column } = error.details;
  if (typeof line !== 'number') return null;
  return { line, ...(typeof column === 'number' ? { column } : {}), message: error.message };
}
