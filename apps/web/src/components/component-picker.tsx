/**
 * Choose a component: from the registry (or saved ones), by pasting code, or by URL. Each way
 * ends with a SavedComponent whose `configurable_props` drive the props form.
 */
import { useMutation, useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import type { SavedComponentT } from '../api/endpoints.js';
import { useApi } from '../auth/session.js';
import { ErrorState } from './states.js';
import { InstallProgress, useInstallProgress } from './install-progress.js';
import { useToast } from './toasts.js';
import { CodeEditor } from './code-editor.js';
import { newestSaved } from './saved-choices.js';

export type PickMode = 'registry' | 'code' | 'url';

export function ComponentPicker({
  type,
  initialMode = 'registry',
  initialUrl = '',
  onPicked,
}: {
  readonly type: 'source' | 'action';
  readonly initialMode?: PickMode;
  readonly initialUrl?: string;
  readonly onPicked: (component: SavedComponentT) => void;
}) {
  const api = useApi();
  const id = useId();
  const [mode, setMode] = useState<PickMode>(initialMode);
  const [code, setCode] = useState('');
  const [url, setUrl] = useState(initialUrl);
  const registry = useQuery({
    queryKey: ['registry'],
    queryFn: () => api.listRegistry(),
    enabled: mode === 'registry',
  });
  const saved = useQuery({
    queryKey: ['saved-components'],
    queryFn: () => api.listSavedComponents(),
    enabled: mode === 'registry',
  });
  const installs = useInstallProgress();
  const toast = useToast();
  const save = useMutation({
    // Saving compiles the code and installs the npm packages it imports: show them meanwhile.
    mutationFn: (input: { code?: string; url?: string }) => installs.track(() => api.saveComponent(input)),
    onSuccess: (component) => {
      // The picker gives way to the props form at once: the toast keeps what was installed.
      const summary = installs.summary();
      if (summary) toast({ message: `Loaded ${component.name ?? component.id}: ${summary}` });
      onPicked(component);
    },
  });
  const load = useMutation({ mutationFn: (idOrKey: string) => api.getComponent(idOrKey), onSuccess: onPicked });
  const choices = [
    ...(registry.data?.data ?? [])
      .filter((c) => c.component_type === type)
      .map((c) => ({ value: c.key ?? c.id, label: `${c.name ?? c.key} — ${c.key}@${c.version ?? '?'} (registry)` })),
    ...newestSaved(saved.data?.data ?? [], type).map((c) => ({
      value: c.id,
      label: `${c.name ?? c.id} — ${c.id} (saved)`,
    })),
  ];
  const modes: [PickMode, string][] = [
    ['registry', type === 'source' ? 'Registry or saved' : 'Saved or registry'],
    ['code', 'Paste code'],
    ['url', 'From URL'],
  ];
  return (
    <div className="card">
      <div className="tabs" role="group" aria-label="Component from">
        {modes.map(([value, label]) => (
          <button
            key={value}
            type="button"
            aria-pressed={mode === value}
            className="tab"
            onClick={() => setMode(value)}
          >
            {label}
          </button>
        ))}
      </div>
      {mode === 'registry' ? (
        <div className="field">
          <label className="field-label" htmlFor={`${id}-pick`}>
            Component
          </label>
          {registry.isPending || saved.isPending ? <p className="muted">Loading components…</p> : null}
          {registry.error ? <ErrorState error={registry.error} /> : null}
          <select
            id={`${id}-pick`}
            defaultValue=""
            onChange={(event) => event.target.value && load.mutate(event.target.value)}
          >
            <option value="">{choices.length === 0 ? `No ${type}s published or saved yet` : 'Choose…'}</option>
            {choices.map((choice) => (
              <option key={choice.value} value={choice.value}>
                {choice.label}
              </option>
            ))}
          </select>
        </div>
      ) : mode === 'code' ? (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            save.mutate({ code });
          }}
        >
          <div className="field">
            <label className="field-label" htmlFor={`${id}-code`} id={`${id}-code-label`}>
              Component code <span className="muted small">(Ctrl+S loads its props)</span>
            </label>
            <CodeEditor
              id={`${id}-code`}
              labelId={`${id}-code-label`}
              rows={14}
              value={code}
              onChange={setCode}
              onSave={() => {
                if (code.trim() && !save.isPending) save.mutate({ code });
              }}
              placeholder="export default defineComponent({ … })"
            />
          </div>
          <button type="submit" className="button" disabled={!code.trim() || save.isPending}>
            {save.isPending ? 'Loading…' : 'Load props'}
          </button>
        </form>
      ) : (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            save.mutate({ url });
          }}
        >
          <div className="field">
            <label className="field-label" htmlFor={`${id}-url`}>
              Component URL
            </label>
            <input
              id={`${id}-url`}
              type="url"
              value={url}
              onChange={(event) => setUrl(event.target.value)}
              placeholder="https://…/my-source.mjs"
            />
          </div>
          <button type="submit" className="button" disabled={!url.trim() || save.isPending}>
            {save.isPending ? 'Fetching…' : 'Fetch code'}
          </button>
        </form>
      )}
      {mode === 'registry' ? null : <InstallProgress tracker={installs} />}
      {save.error ? <ErrorState error={save.error} /> : null}
      {load.error ? <ErrorState error={load.error} /> : null}
    </div>
  );
}
