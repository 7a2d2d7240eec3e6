/**
 * State of a props form: values, the props (which change when a `reloadProps` prop reloads them
 * through `POST /v1/components/props`), which props the user touched, and the server's errors
 * keyed by the prop they name.
 */
import { useCallback, useEffect, useState } from 'react';
import { ApiError } from '../api/client.js';
import { useApi } from '../auth/session.js';
import { initialValues, toFormProps, wireValues, type FormProp } from './prop-types.js';

export interface PropsFormState {
  readonly props: readonly FormProp[];
  readonly values: Record<string, unknown>;
  readonly errors: Record<string, string>;
  readonly touched: ReadonlySet<string>;
  readonly reloading: boolean;
  readonly reloadErrors: readonly string[];
  setValue(name: string, value: unknown): void;
  /** Puts an API error on each field it names; returns false when it names none of the form's (show it at the top). */
  showError(error: unknown): boolean;
  clearErrors(): void;
  /** Everything to send on create / run. */
  wire(): Record<string, unknown>;
  /** Only what the user changed, for an update (the server merges it over the stored props). */
  wireTouched(): Record<string, unknown>;
}

export function usePropsForm(input: {
  readonly componentId: string | null;
  readonly configurableProps: readonly Record<string, unknown>[];
  readonly configured?: Record<string, unknown>;
}): PropsFormState {
  const api = useApi();
  const { componentId, configurableProps, configured } = input;
  const [props, setProps] = useState<readonly FormProp[]>(() => toFormProps(configurableProps));
  const [values, setValues] = useState<Record<string, unknown>>(() =>
    initialValues(toFormProps(configurableProps), configured),
  );
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [touched, setTouched] = useState<ReadonlySet<string>>(new Set());
  const [reloading, setReloading] = useState(false);
  const [reloadErrors, setReloadErrors] = useState<readonly string[]>([]);

  // A different component (or its saved configuration) resets the form.
  useEffect(() => {
    const fresh = toFormProps(configurableProps);
    setProps(fresh);
    setValues(initialValues(fresh, configured));
    setTouched(new Set());
    setErrors({});
  }, [componentId, configurableProps, configured]);

  const reload = useCallback(
    async (next: Record<string, unknown>, current: readonly FormProp[]) => {
      if (!componentId) return;
      setReloading(true);
      try {
        const result = await api.reloadProps({ id: componentId, configured_props: wireValues(current, next) });
        setReloadErrors(result.errors);
        const reloaded = toFormProps(result.dynamic_props.configurable_props);
        if (reloaded.length > 0) {
          setProps(reloaded);
          setValues((previous) => ({ ...initialValues(reloaded, {}), ...previous }));
        }
      } catch (error) {
        setReloadErrors([error instanceof Error ? error.message : String(error)]);
      } finally {
        setReloading(false);
      }
    },
    [api, componentId],
  );

  const setValue = useCallback(
    (name: string, value: unknown) => {
      const next = { ...values, [name]: value };
      setValues(next);
      if (props.find((candidate) => candidate.name === name)?.reloadProps) void reload(next, props);
      setTouched((previous) => new Set(previous).add(name));
      setErrors((previous) => {
        if (!(name in previous)) return previous;
        const { [name]: _gone, ...rest } = previous;
        return rest;
      });
    },
    [props, reload, values],
  );

  const showError = useCallback(
    (error: unknown) => {
      if (!(error instanceof ApiError)) return false;
      const names = new Set(props.map((prop) => prop.name));
      const onFields = error.fieldErrors.filter((entry) => names.has(entry.field));
      if (onFields.length === 0) return false;
      setErrors(Object.fromEntries(onFields.map((entry) => [entry.field, entry.message])));
      return true;
    },
    [props],
  );

  return {
    props,
    values,
    errors,
    touched,
    reloading,
    reloadErrors,
    setValue,
    showError,
    clearErrors: () => setErrors({}),
    wire: () => wireValues(props, values),
    wireTouched: () => wireValues(props, values, touched),
  };
}
