/**
 * The trigger of a workflow: an HTTP endpoint (answered at once or by `$.respond()`), a timer, a
 * cron schedule, a deployed source's events, another workflow's `$.send.emit`, or RUN NOW only.
 */
import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { useApi } from '../auth/session.js';
import { CronPreview } from '../props/cron-preview.js';
import type { TriggerDraft, TriggerKind } from './draft.js';

const KINDS: [TriggerKind, string][] = [
  ['http', 'HTTP request'],
  ['timer', 'Timer'],
  ['cron', 'Cron schedule'],
  ['source', "A source's events"],
  ['emit', "Another workflow's emits"],
  ['manual', 'Run now only'],
];

export function TriggerEditor({
  trigger,
  onChange,
  endpointUrl,
  selfId,
}: {
  readonly trigger: TriggerDraft;
  readonly onChange: (trigger: TriggerDraft) => void;
  readonly endpointUrl: string | null;
  readonly selfId: string | null;
}) {
  const id = useId();
  const api = useApi();
  const sources = useQuery({
    queryKey: ['sources'],
    queryFn: () => api.listSources(),
    enabled: trigger.kind === 'source',
  });
  const workflows = useQuery({
    queryKey: ['workflows'],
    queryFn: () => api.listWorkflows(),
    enabled: trigger.kind === 'emit',
  });
  return (
    <fieldset className="card">
      <legend className="strong">Trigger</legend>
      <div className="field">
        <label className="field-label" htmlFor={`${id}-kind`}>
          Starts on
        </label>
        <select
          id={`${id}-kind`}
          value={trigger.kind}
          onChange={(event) => onChange({ ...trigger, kind: event.target.value as TriggerKind })}
        >
          {KINDS.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </div>
      <TriggerFields
        trigger={trigger}
        onChange={onChange}
        id={id}
        sources={sources.data?.data.map((source) => [source.id, source.name] as const) ?? []}
        workflows={
          workflows.data?.data
            .filter((workflow) => workflow.id !== selfId)
            .map((workflow) => [workflow.id, workflow.name] as const) ?? []
        }
      />
      {trigger.kind === 'http' && endpointUrl ? (
        <p className="endpoint">
          Endpoint: <code data-testid="workflow-endpoint">{endpointUrl}</code>
        </p>
      ) : null}
    </fieldset>
  );
}

function TriggerFields({
  trigger,
  onChange,
  id,
  sources,
  workflows,
}: {
  readonly trigger: TriggerDraft;
  readonly onChange: (trigger: TriggerDraft) => void;
  readonly id: string;
  readonly sources: readonly (readonly [string, string])[];
  readonly workflows: readonly (readonly [string, string])[];
}) {
  switch (trigger.kind) {
    case 'http':
      return (
        <label className="checkbox">
          <input
            type="checkbox"
            checked={trigger.customResponse}
            onChange={(event) => onChange({ ...trigger, customResponse: event.target.checked })}
          />
          <span>
            A step answers the request with <code>$.respond()</code> (30 s, then 504)
          </span>
        </label>
      );
    case 'timer':
      return (
        <div className="field">
          <label className="field-label" htmlFor={`${id}-interval`}>
            Every (seconds)
          </label>
          <input
            id={`${id}-interval`}
            type="number"
            min={15}
            value={trigger.intervalSeconds}
            onChange={(event) => onChange({ ...trigger, intervalSeconds: event.target.value })}
          />
        </div>
      );
    case 'cron':
      return (
        <>
          <div className="field">
            <label className="field-label" htmlFor={`${id}-cron`}>
              Cron expression
            </label>
            <input
              id={`${id}-cron`}
              value={trigger.cron}
              spellCheck={false}
              onChange={(event) => onChange({ ...trigger, cron: event.target.value })}
            />
            <CronPreview id={`${id}-cron-preview`} expression={trigger.cron} />
          </div>
          <div className="field">
            <label className="field-label" htmlFor={`${id}-tz`}>
              Time zone (default UTC)
            </label>
            <input
              id={`${id}-tz`}
              value={trigger.timezone}
              placeholder="Europe/Paris"
              onChange={(event) => onChange({ ...trigger, timezone: event.target.value })}
            />
          </div>
        </>
      );
    case 'source':
      return (
        <IdPicker
          id={`${id}-source`}
          label="Source"
          value={trigger.sourceId}
          choices={sources}
          onChange={(sourceId) => onChange({ ...trigger, sourceId })}
        />
      );
    case 'emit':
      return (
        <IdPicker
          id={`${id}-emitter`}
          label="Workflow"
          value={trigger.workflowId}
          choices={workflows}
          onChange={(workflowId) => onChange({ ...trigger, workflowId })}
        />
      );
    case 'manual':
      return <p className="muted">Only Run now and replays start runs.</p>;
  }
}

function IdPicker({
  id,
  label,
  value,
  choices,
  onChange,
}: {
  readonly id: string;
  readonly label: string;
  readonly value: string;
  readonly choices: readonly (readonly [string, string])[];
  readonly onChange: (value: string) => void;
}) {
  return (
    <div className="field">
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      <select id={id} value={value} onChange={(event) => onChange(event.target.value)}>
        <option value="">Choose…</option>
        {value && !choices.some(([choice]) => choice === value) ? <option value={value}>{value}</option> : null}
        {choices.map(([choice, name]) => (
          <option key={choice} value={choice}>
            {name} — {choice}
          </option>
        ))}
      </select>
    </div>
  );
}
