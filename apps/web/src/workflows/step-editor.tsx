/**
 * One step of the builder: its name, then either an action (from the registry or the saved
 * components) with the props form of apps/web/src/props, or a code step in the code editor with
 * its props as JSON. Any prop value may be an expression, `{{ steps.trigger.event.body }}`; the
 * references the step can use (the trigger and the steps before it) are listed to copy.
 */
import { useQuery } from '@tanstack/react-query';
import { useId, useMemo } from 'react';
import { useApi } from '../auth/session.js';
import { CodeEditor } from '../components/code-editor.js';
import { CopyButton } from '../components/copy-button.js';
import { ErrorState } from '../components/states.js';
import { PropsForm } from '../props/props-form.js';
import { toFormProps, type FormProp } from '../props/prop-types.js';
import type { StepDraft } from './draft.js';

export interface StepEditorProps {
  readonly step: StepDraft;
  readonly index: number;
  readonly count: number;
  readonly earlier: readonly string[];
  readonly onChange: (step: StepDraft) => void;
  readonly onMove: (by: -1 | 1) => void;
  readonly onRemove: () => void;
  /** Absent until the workflow is saved: a step is tested against the saved version. */
  readonly onTest?: () => void;
  readonly testing?: boolean;
}

export function StepEditor({
  step,
  index,
  count,
  earlier,
  onChange,
  onMove,
  onRemove,
  onTest,
  testing,
}: StepEditorProps) {
  const id = useId();
  const label = `Step ${index + 1}`;
  return (
    <fieldset className="card workflow-step" aria-label={`${label}: ${step.name}`}>
      <legend className="strong">
        {label} <span className="badge">{step.kind === 'code' ? 'Code' : 'Action'}</span>
      </legend>
      <div className="workflow-step-head">
        <div className="field">
          <label className="field-label" htmlFor={`${id}-name`}>
            Step name
          </label>
          <input
            id={`${id}-name`}
            value={step.name}
            spellCheck={false}
            onChange={(event) => onChange({ ...step, name: event.target.value })}
          />
        </div>
        <div className="actions">
          <button
            type="button"
            className="button button-small"
            aria-label={`Move ${step.name} up`}
            disabled={index === 0}
            onClick={() => onMove(-1)}
          >
            ↑
          </button>
          <button
            type="button"
            className="button button-small"
            aria-label={`Move ${step.name} down`}
            disabled={index === count - 1}
            onClick={() => onMove(1)}
          >
            ↓
          </button>
          <button
            type="button"
            className="button button-small button-danger"
            aria-label={`Remove ${step.name}`}
            disabled={count === 1}
            onClick={onRemove}
          >
            Remove
          </button>
          {onTest ? (
            <button type="button" className="button button-small" disabled={testing} onClick={onTest}>
              {testing ? 'Testing…' : `Test ${step.name}`}
            </button>
          ) : null}
        </div>
      </div>
      <References earlier={earlier} />
      {step.kind === 'action' ? (
        <ActionStep step={step} onChange={onChange} />
      ) : (
        <CodeStep step={step} onChange={onChange} />
      )}
    </fieldset>
  );
}

function References({ earlier }: { readonly earlier: readonly string[] }) {
  const refs = ['steps.trigger.event', ...earlier.map((name) => `steps.${name}.$return_value`)];
  return (
    <details className="workflow-refs">
      <summary>Data from earlier steps</summary>
      <ul className="plain-list">
        {refs.map((ref) => (
          <li key={ref}>
            <code>{`{{ ${ref} }}`}</code> <CopyButton value={`{{ ${ref} }}`} ariaLabel={`Copy {{ ${ref} }}`} />
          </li>
        ))}
      </ul>
    </details>
  );
}

function ActionStep({ step, onChange }: { readonly step: StepDraft; readonly onChange: (step: StepDraft) => void }) {
  const api = useApi();
  const id = useId();
  const registry = useQuery({ queryKey: ['registry'], queryFn: () => api.listRegistry() });
  const saved = useQuery({ queryKey: ['saved-components'], queryFn: () => api.listSavedComponents() });
  const component = useQuery({
    queryKey: ['component', step.action],
    queryFn: () => api.getComponent(step.action),
    enabled: Boolean(step.action),
  });
  const choices = [
    ...(registry.data?.data ?? [])
      .filter((c) => c.component_type === 'action')
      .map((c) => ({ value: c.key ?? c.id, label: `${c.name ?? c.key} — ${c.key} (registry)` })),
    ...(saved.data?.data ?? [])
      .filter((c) => c.component_type === 'action' && !c.key)
      .map((c) => ({ value: c.id, label: `${c.name ?? c.id} — ${c.id} (saved)` })),
  ];
  const raw = component.data?.configurable_props;
  const props = useMemo(() => (raw ? toFormProps(raw).map(acceptExpressions) : []), [raw]);
  return (
    <>
      <div className="field">
        <label className="field-label" htmlFor={`${id}-action`}>
          Action
        </label>
        <select
          id={`${id}-action`}
          value={step.action}
          onChange={(event) => onChange({ ...step, action: event.target.value, props: {} })}
        >
          <option value="">{choices.length === 0 ? 'No actions published or saved yet' : 'Choose…'}</option>
          {step.action && !choices.some((choice) => choice.value === step.action) ? (
            <option value={step.action}>{step.action}</option>
          ) : null}
          {choices.map((choice) => (
            <option key={choice.value} value={choice.value}>
              {choice.label}
            </option>
          ))}
        </select>
      </div>
      {component.error ? <ErrorState error={component.error} /> : null}
      {component.data ? (
        <PropsForm
          componentId={component.data.id}
          props={props}
          values={step.props}
          onChange={(name, value) => {
            const original = raw?.find((prop) => prop['name'] === name);
            onChange({ ...step, props: { ...step.props, [name]: wireValue(original?.['type'], value) } });
          }}
        />
      ) : null}
    </>
  );
}

/** Number props take an expression too: they are edited as text, and sent as numbers when they are. */
function acceptExpressions(prop: FormProp): FormProp {
  return prop.type === 'integer' ? { ...prop, type: 'string' } : prop;
}

function wireValue(type: unknown, value: unknown): unknown {
  if (type === 'integer' && typeof value === 'string' && /^-?\d+$/.test(value.trim())) return Number(value);
  return value;
}

function CodeStep({ step, onChange }: { readonly step: StepDraft; readonly onChange: (step: StepDraft) => void }) {
  const id = useId();
  return (
    <>
      <div className="field">
        <label className="field-label" id={`${id}-code-label`} htmlFor={`${id}-code`}>
          Code of {step.name}
        </label>
        <CodeEditor
          id={`${id}-code`}
          labelId={`${id}-code-label`}
          rows={10}
          value={step.code}
          onChange={(code) => onChange({ ...step, code })}
        />
      </div>
      <div className="field">
        <label className="field-label" htmlFor={`${id}-props`}>
          Props of {step.name} (JSON)
        </label>
        <textarea
          id={`${id}-props`}
          className="code-input"
          rows={3}
          spellCheck={false}
          value={step.propsText}
          onChange={(event) => onChange({ ...step, propsText: event.target.value })}
        />
        <p className="field-help">
          Values for the props the code declares; a string may be an expression,{' '}
          <code>{'"{{ steps.trigger.event }}"'}</code>.
        </p>
      </div>
    </>
  );
}
