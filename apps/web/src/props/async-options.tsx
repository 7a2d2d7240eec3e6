/**
 * Async options (`remoteOptions`): pages come from `POST /v1/components/configure`, which runs the
 * prop's options() in the sandbox with the props configured so far. A search box appears when
 * the prop has `useQuery`; "Load more" asks for the next page with the previous context.
 */
import { useMutation } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useApi } from '../auth/session.js';
import type { PropOption, FormProp } from './prop-types.js';

interface Common {
  readonly id: string;
  readonly 'aria-describedby': string;
  readonly 'aria-invalid': true | undefined;
  readonly disabled: boolean | undefined;
}

export function AsyncOptions(props: {
  componentId: string;
  prop: FormProp;
  value: unknown;
  onChange: (value: unknown) => void;
  configuredProps: Record<string, unknown>;
  common: Common;
}) {
  const { componentId, prop, value, onChange, configuredProps, common } = props;
  const api = useApi();
  const [options, setOptions] = useState<PropOption[]>([]);
  const [page, setPage] = useState(0);
  const [context, setContext] = useState<Record<string, unknown> | null>(null);
  const [query, setQuery] = useState('');
  const [errors, setErrors] = useState<string[]>([]);
  const [exhausted, setExhausted] = useState(false);
  // Options depend on the props configured before this one (an account, a parent choice): when
  // those change, the first page is loaded again.
  const dependsOn = JSON.stringify(otherProps(configuredProps, prop.name));
  const loadedFor = useRef<string | null>(null);
  const load = useMutation({
    mutationFn: (input: { page: number; prevContext: Record<string, unknown> | null; query: string }) =>
      api.configureProp({
        id: componentId,
        prop_name: prop.name,
        configured_props: otherProps(configuredProps, prop.name),
        page: input.page,
        ...(input.prevContext ? { prev_context: input.prevContext } : {}),
        ...(prop.useQuery && input.query ? { query: input.query } : {}),
      }),
    onSuccess: (result, input) => {
      const fresh: PropOption[] = result.string_options
        ? result.string_options.map((text) => ({ label: text, value: text }))
        : result.options;
      setOptions((previous) => (input.page === 0 ? fresh : [...previous, ...fresh]));
      setContext(result.context);
      setPage(input.page);
      setErrors(result.errors);
      setExhausted(fresh.length === 0);
    },
  });
  useEffect(() => {
    if (loadedFor.current === dependsOn) return;
    loadedFor.current = dependsOn;
    load.mutate({ page: 0, prevContext: null, query: '' });
  }, [load, dependsOn]);

  const multiple = prop.type.endsWith('[]');
  const all = withCurrent(options, value, multiple);
  const indexOf = (candidate: unknown) =>
    all.findIndex((option) => JSON.stringify(option.value) === JSON.stringify(candidate));
  const selected = multiple
    ? (Array.isArray(value) ? value : []).map((item) => String(indexOf(item)))
    : value === undefined
      ? ''
      : String(indexOf(value));

  return (
    <div className="async-options">
      {prop.useQuery ? (
        // Not a <form>: this sits inside the props form, and forms cannot nest.
        <div className="inline-form" role="search">
          <input
            type="search"
            aria-label={`Search options for ${prop.label ?? prop.name}`}
            value={query}
            onChange={(event) => setQuery(event.target.value)}
            onKeyDown={(event) => {
              if (event.key !== 'Enter') return;
              event.preventDefault();
              load.mutate({ page: 0, prevContext: null, query });
            }}
            placeholder="Search…"
          />
          <button
            type="button"
            className="button button-small"
            onClick={() => load.mutate({ page: 0, prevContext: null, query })}
          >
            Search
          </button>
        </div>
      ) : null}
      <select
        {...common}
        multiple={multiple}
        value={selected}
        onChange={(event) => {
          const picked = [...event.target.selectedOptions].map((option) => all[Number(option.value)]?.value);
          onChange(multiple ? picked : event.target.value === '' ? undefined : picked[0]);
        }}
      >
        {multiple ? null : (
          <option value="">{load.isPending && options.length === 0 ? 'Loading options…' : 'Choose…'}</option>
        )}
        {all.map((option, index) => (
          <option key={index} value={String(index)}>
            {option.label}
          </option>
        ))}
      </select>
      <div className="async-bar">
        <span className="muted small" aria-live="polite">
          {load.isPending ? 'Loading…' : `${options.length} option${options.length === 1 ? '' : 's'} loaded`}
        </span>
        <button
          type="button"
          className="button button-small"
          disabled={load.isPending || exhausted}
          onClick={() => load.mutate({ page: page + 1, prevContext: context, query })}
        >
          Load more
        </button>
        <button
          type="button"
          className="button button-small"
          disabled={load.isPending}
          onClick={() => load.mutate({ page: 0, prevContext: null, query })}
        >
          Refresh
        </button>
      </div>
      {load.error ? <p className="field-error">{load.error.message}</p> : null}
      {errors.map((error) => (
        <p key={error} className="field-error">
          {error}
        </p>
      ))}
    </div>
  );
}

/** The props configured before this one; the prop itself is what is being chosen. */
function otherProps(values: Record<string, unknown>, name: string): Record<string, unknown> {
  const { [name]: _self, ...rest } = values;
  return Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined && value !== ''));
}

/** Keeps a saved value visible even before the page that lists it has loaded. */
function withCurrent(options: PropOption[], value: unknown, multiple: boolean): PropOption[] {
  const wanted = multiple ? (Array.isArray(value) ? value : []) : value === undefined ? [] : [value];
  const extra = wanted
    .filter((item) => !options.some((option) => JSON.stringify(option.value) === JSON.stringify(item)))
    .map((item) => ({ label: typeof item === 'string' ? item : JSON.stringify(item), value: item }));
  return [...extra, ...options];
}
