/** Controls for list, JSON and timer props. */
import { CronPreview } from './cron-preview.js';
import { useState } from 'react';

interface CommonInput {
  readonly id: string;
  readonly 'aria-describedby': string;
  readonly 'aria-invalid': true | undefined;
  readonly disabled: boolean | undefined;
}

/** One text box per item, with add and remove buttons, for string[] and integer[]. */
export function ListInput(
  props: CommonInput & {
    itemType: 'string' | 'integer';
    value: unknown[];
    onChange: (value: unknown[]) => void;
    label: string;
  },
) {
  const { id, itemType, value, onChange, label, disabled } = props;
  const items = value.length === 0 ? [''] : value;
  const update = (index: number, text: string) => {
    const next = [...items];
    next[index] = itemType === 'integer' && text !== '' && Number.isInteger(Number(text)) ? Number(text) : text;
    onChange(next.filter((item) => item !== ''));
  };
  return (
    <div className="list-input" role="group" aria-describedby={props['aria-describedby']}>
      {items.map((item, index) => (
        <div className="list-row" key={index}>
          <input
            id={index === 0 ? id : `${id}-${index}`}
            aria-label={`${label} item ${index + 1}`}
            aria-invalid={props['aria-invalid']}
            type={itemType === 'integer' ? 'number' : 'text'}
            disabled={disabled}
            value={String(item ?? '')}
            onChange={(event) => update(index, event.target.value)}
          />
          <button
            type="button"
            className="button button-small"
            aria-label={`Remove ${label} item ${index + 1}`}
            disabled={disabled}
            onClick={() => onChange(items.filter((_, i) => i !== index).filter((v) => v !== ''))}
          >
            Remove
          </button>
        </div>
      ))}
      <button
        type="button"
        className="button button-small"
        disabled={disabled}
        onClick={() => onChange([...items.filter((v) => v !== ''), itemType === 'integer' ? 0 : ''])}
      >
        Add item
      </button>
    </div>
  );
}

/** A JSON text area for object and any props; the value changes only while the text parses. */
export function JsonInput(props: CommonInput & { value: unknown; onChange: (value: unknown) => void }) {
  const { value, onChange, ...common } = props;
  const [text, setText] = useState(() => (value === undefined ? '' : JSON.stringify(value, null, 2)));
  const [problem, setProblem] = useState<string | null>(null);
  return (
    <>
      <textarea
        {...common}
        className="code-input"
        rows={5}
        spellCheck={false}
        value={text}
        onChange={(event) => {
          setText(event.target.value);
          if (event.target.value.trim() === '') {
            setProblem(null);
            onChange(undefined);
            return;
          }
          try {
            onChange(JSON.parse(event.target.value));
            setProblem(null);
          } catch (error) {
            setProblem(error instanceof Error ? error.message : 'not JSON');
          }
        }}
      />
      {problem ? <p className="field-error">Not valid JSON yet: {problem}</p> : null}
    </>
  );
}

/** A timer: every N seconds, or a cron expression (UTC). */
export function TimerInput(props: CommonInput & { value: unknown; onChange: (value: unknown) => void }) {
  const { id, value, onChange, disabled } = props;
  const current = (value ?? { intervalSeconds: 3600 }) as { intervalSeconds?: number; cron?: string };
  const mode = current.cron !== undefined ? 'cron' : 'interval';
  return (
    <div className="timer-input" role="group" aria-describedby={props['aria-describedby']}>
      <div className="segmented" role="radiogroup" aria-label="Schedule kind">
        <label>
          <input
            type="radio"
            name={`${id}-mode`}
            checked={mode === 'interval'}
            disabled={disabled}
            onChange={() => onChange({ intervalSeconds: 3600 })}
          />
          Every N seconds
        </label>
        <label>
          <input
            type="radio"
            name={`${id}-mode`}
            checked={mode === 'cron'}
            disabled={disabled}
            onChange={() => onChange({ cron: '0 * * * *' })}
          />
          Cron (UTC)
        </label>
      </div>
      {mode === 'interval' ? (
        <input
          id={id}
          aria-label="Interval in seconds"
          type="number"
          min={15}
          step={1}
          disabled={disabled}
          value={current.intervalSeconds ?? ''}
          onChange={(event) => onChange({ intervalSeconds: Number(event.target.value) })}
        />
      ) : (
        <>
          <input
            id={id}
            aria-label="Cron expression"
            aria-describedby={`${id}-runs`}
            type="text"
            disabled={disabled}
            value={current.cron ?? ''}
            onChange={(event) => onChange({ cron: event.target.value })}
          />
          <CronPreview id={`${id}-runs`} expression={current.cron ?? ''} />
        </>
      )}
    </div>
  );
}
