/**
 * State of a props form: values, the props (which change when a `reloadProps` prop reloads them
 * through `POST /v1/components/props`), which props the user touched, and the server's errors
 * keyed by the prop they name.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
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
  /**
   * Reloads the props from code that is not saved yet (an edit on the Configuration tab): values
   * of props the code still has are kept, new props appear with their defaults. Resolves with the
   * error when the code cannot be loaded (the form then stays as it was), else null.
   */
  reloadFromCode(code: string): Promise<unknown>;
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

  // Only the answer for the newest code counts; an older one may arrive after it.
  const codeReloads = useRef(0);
  const reloadFromCode = useCallback(
    async (code: string): Promise<unknown> => {
      // Save stays available meanwhile: the server checks the code and props of an update itself.
      const ticket = ++codeReloads.current;
      try {
        const result = await api.reloadProps({ component_code: code, configured_props: wireValues(props, values) });
        if (ticket !== codeReloads.current) return null;
        const reloaded = toFormProps(result.dynamic_props.configurable_props);
        const names = new Set(reloaded.map((prop) => prop.name));
        const stillApply = <T>(record: Record<string, T>) =>
          Object.fromEntries(Object.entries(record).filter(([name]) => names.has(name)));
        setReloadErrors(result.errors);
        setProps(reloaded);
        setValues((previous) => ({ ...initialValues(reloaded, configured), ...stillApply(previous) }));
        setTouched((previous) => new Set([...previous].filter((name) => names.has(name))));
        setErrors((previous) => stillApply(previous));
        return null;
      } catch (error) {
        return ticket === codeReloads.current ? error : null;
      }
    },
    [api, configured, props, values],
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
    reloadFromCode,
    wire: () => wireValues(props, values),
    wireTouched: () => wireValues(props, values, touched),
  };
}
