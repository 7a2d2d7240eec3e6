/**
 * The props form generated from `configurable_props`, shared by New source, Configuration and
 * Actions. Each prop type gets its control; the server's validation errors appear on the field
 * they name.
 */
import { CopyButton } from '../components/copy-button.js';
import { useId, type ReactNode } from 'react';
import { Markdown } from '../components/markdown.js';
import { AccountPicker } from './account-picker.js';
import { AsyncOptions } from './async-options.js';
import { ListInput, JsonInput, TimerInput } from './inputs.js';
import { isInputProp, labelOf, normalizeOptions, REDACTED, type FormProp } from './prop-types.js';

export interface PropsFormProps {
  /** sc_ id or registry key, for async options. */
  readonly componentId: string;
  readonly props: readonly FormProp[];
  readonly values: Record<string, unknown>;
  readonly onChange: (name: string, value: unknown) => void;
  readonly errors?: Record<string, string>;
  /** A deployed source's endpoint, shown on its HTTP interface prop (null before deploying). */
  readonly endpointUrl?: string | null;
}

export function PropsForm({ componentId, props, values, onChange, errors = {}, endpointUrl = null }: PropsFormProps) {
  const visible = props.filter((prop) => !prop.hidden);
  if (visible.length === 0) return <p className="muted">This component has no props to configure.</p>;
  return (
    <div className="props-form">
      {visible.map((prop) => (
        <PropField
          key={prop.name}
          componentId={componentId}
          prop={prop}
          values={values}
          onChange={onChange}
          error={errors[prop.name]}
          endpointUrl={endpointUrl}
        />
      ))}
    </div>
  );
}

function PropField({
  componentId,
  prop,
  values,
  onChange,
  error,
  endpointUrl,
}: {
  componentId: string;
  prop: FormProp;
  values: Record<string, unknown>;
  onChange: (name: string, value: unknown) => void;
  error: string | undefined;
  endpointUrl: string | null;
}) {
  const id = useId();
  if (prop.type === 'alert') {
    const kind = ['info', 'neutral', 'warning', 'error'].includes(prop.alertType ?? '') ? prop.alertType : 'info';
    return (
      <div className={`notice notice-${kind}`} role={kind === 'error' || kind === 'warning' ? 'alert' : 'note'}>
        <Markdown text={prop.content ?? ''} />
      </div>
    );
  }
  if (prop.type === '$.interface.http') {
    return (
      <div className="field">
        <span className="field-label">{labelOf(prop)}</span>
        {endpointUrl ? (
          <p className="endpoint">
            <span className="badge">HTTP</span>
            <code>{endpointUrl}</code>
            <CopyButton value={endpointUrl} label="Copy URL" />
          </p>
        ) : (
          <p className="muted small">HTTP interface: the source gets its own endpoint URL when it is deployed.</p>
        )}
      </div>
    );
  }
  if (!isInputProp(prop)) return null;
  const value = values[prop.name];
  const set = (next: unknown) => onChange(prop.name, next);
  const describedBy = `${id}-desc ${id}-err`;
  const common = {
    id,
    'aria-describedby': describedBy,
    'aria-invalid': error ? true : undefined,
    disabled: prop.disabled,
  } as const;
  const control = renderControl({ componentId, prop, value, set, values, common, id });
  return (
    <div className={`field${error ? ' field-invalid' : ''}`} data-prop={prop.name}>
      {prop.type === 'boolean' ? null : (
        <label className="field-label" htmlFor={id}>
          {labelOf(prop)}
          {prop.optional ? <span className="muted"> (optional)</span> : null}
          <span className="prop-type">{prop.type}</span>
        </label>
      )}
      {control}
      <div id={`${id}-desc`} className="field-help">
        {prop.description ? <Markdown text={prop.description} /> : null}
      </div>
      <p id={`${id}-err`} className="field-error" role={error ? 'alert' : undefined}>
        {error ?? ''}
      </p>
    </div>
  );
}

type Common = {
  id: string;
  'aria-describedby': string;
  'aria-invalid': true | undefined;
  disabled: boolean | undefined;
};

function renderControl(input: {
  componentId: string;
  prop: FormProp;
  value: unknown;
  set: (value: unknown) => void;
  values: Record<string, unknown>;
  common: Common;
  id: string;
}): ReactNode {
  const { componentId, prop, value, set, values, common } = input;
  if (prop.remoteOptions) {
    return (
      <AsyncOptions
        componentId={componentId}
        prop={prop}
        value={value}
        onChange={set}
        configuredProps={values}
        common={common}
      />
    );
  }
  if (prop.options && prop.options.length > 0) {
    const options = normalizeOptions(prop.options);
    const multiple = prop.type.endsWith('[]');
    const index = (candidate: unknown) =>
      options.findIndex((option) => JSON.stringify(option.value) === JSON.stringify(candidate));
    if (multiple) {
      const selected = Array.isArray(value) ? value : [];
      return (
        <select
          {...common}
          multiple
          value={selected.map((item) => String(index(item)))}
          onChange={(event) =>
            set([...event.target.selectedOptions].map((option) => options[Number(option.value)]?.value))
          }
        >
          {options.map((option, i) => (
            <option key={i} value={String(i)}>
              {option.label}
            </option>
          ))}
        </select>
      );
    }
    return (
      <select
        {...common}
        value={value === undefined ? '' : String(index(value))}
        onChange={(event) => set(event.target.value === '' ? undefined : options[Number(event.target.value)]?.value)}
      >
        <option value="">Choose…</option>
        {options.map((option, i) => (
          <option key={i} value={String(i)}>
            {option.label}
          </option>
        ))}
      </select>
    );
  }
  switch (prop.type) {
    case 'string':
      return (
        <input
          {...common}
          type={prop.secret ? 'password' : 'text'}
          autoComplete={prop.secret ? 'new-password' : 'off'}
          placeholder={prop.secret && value === REDACTED ? 'Saved; type to replace' : undefined}
          value={
            prop.secret && value === REDACTED
              ? ''
              : typeof value === 'string'
                ? value
                : value === undefined
                  ? ''
                  : String(value)
          }
          onChange={(event) => set(event.target.value)}
        />
      );
    case 'integer':
      return (
        <input
          {...common}
          type="number"
          step={1}
          min={prop.min}
          max={prop.max}
          inputMode="numeric"
          value={value === undefined || value === null ? '' : String(value)}
          onChange={(event) => {
            const text = event.target.value;
            set(text === '' ? undefined : Number.isInteger(Number(text)) ? Number(text) : text);
          }}
        />
      );
    case 'boolean':
      return (
        <label className="checkbox" htmlFor={common.id}>
          <input {...common} type="checkbox" checked={value === true} onChange={(event) => set(event.target.checked)} />
          {labelOf(prop)}
          {prop.optional ? <span className="muted"> (optional)</span> : null}
          <span className="prop-type">{prop.type}</span>
        </label>
      );
    case 'string[]':
    case 'integer[]':
      return (
        <ListInput
          {...common}
          itemType={prop.type === 'integer[]' ? 'integer' : 'string'}
          value={Array.isArray(value) ? value : []}
          onChange={set}
          label={labelOf(prop)}
        />
      );
    case '$.interface.timer':
      return <TimerInput {...common} value={value} onChange={set} />;
    case 'app':
      return <AccountPicker {...common} app={prop.app ?? prop.name} value={value} onChange={set} />;
    case 'object':
    case 'any':
    default:
      return <JsonInput {...common} value={value} onChange={set} />;
  }
}
