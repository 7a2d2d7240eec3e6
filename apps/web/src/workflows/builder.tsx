/**
 * The workflow builder: name, trigger and steps (add, name, reorder, remove), saved as a new
 * version. A saved workflow's steps can be tested one at a time against an event (by default the
 * last run's), with the earlier steps' results of that run as `steps`.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useNavigate } from 'react-router';
import type { StepRunT, WorkflowT } from '../api/endpoints.js';
import { useApi } from '../auth/session.js';
import { ErrorState } from '../components/states.js';
import { useToast } from '../components/toasts.js';
import {
  draftFromSpec,
  emptyDraft,
  emptyStep,
  freshStepName,
  moveStep,
  specFromDraft,
  type StepDraft,
  type WorkflowDraft,
} from './draft.js';
import { parseEvent } from './parse-event.js';
import { StepEditor } from './step-editor.js';
import { StepResult } from './step-result.js';
import { TriggerEditor } from './trigger-editor.js';
import { InstallProgress, useInstallProgress, withSummary } from '../components/install-progress.js';

export function WorkflowBuilder({ workflow }: { readonly workflow: WorkflowT | null }) {
  const id = useId();
  const api = useApi();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const toast = useToast();
  const [draft, setDraft] = useState<WorkflowDraft>(() => (workflow ? draftFromSpec(workflow.spec) : emptyDraft()));
  const [dirty, setDirty] = useState(false);
  const update = (next: WorkflowDraft) => {
    setDraft(next);
    setDirty(true);
  };
  const setStep = (index: number, step: StepDraft) =>
    update({ ...draft, steps: draft.steps.map((old, at) => (at === index ? step : old)) });

  // Saving compiles each step; a code step importing npm packages has them installed meanwhile.
  const installs = useInstallProgress();
  const save = useMutation({
    mutationFn: () => {
      const spec = specFromDraft(draft);
      return installs.track(() => (workflow ? api.updateWorkflow(workflow.id, spec) : api.createWorkflow(spec)));
    },
    onSuccess: async (saved) => {
      setDirty(false);
      queryClient.setQueryData(['workflow', saved.id], saved);
      await queryClient.invalidateQueries({ queryKey: ['workflows'] });
      toast({ message: withSummary(`Saved ${saved.name}, version ${saved.version}`, installs) });
      if (!workflow) navigate(`/workflows/${saved.id}/builder`);
    },
  });

  // The last run gives the default test event and the earlier steps' results.
  const lastRun = useQuery({
    queryKey: ['workflow-runs', workflow?.id, 'last'],
    queryFn: () => api.listWorkflowRuns(workflow?.id ?? '', { limit: 1 }),
    enabled: Boolean(workflow),
  });
  const last = lastRun.data?.data[0];
  const [eventText, setEventText] = useState<string | null>(null);
  const shownEvent = eventText ?? JSON.stringify(last?.event ?? null, null, 2);
  const [results, setResults] = useState<Record<string, StepRunT | Error>>({});
  const test = useMutation({
    mutationFn: async (name: string) => {
      const earlier: Record<string, Record<string, unknown>> = {};
      for (const step of last?.steps ?? []) {
        if (step.name === name) break;
        earlier[step.name] = { $return_value: step.return_value, ...step.exports };
      }
      return api.testWorkflowStep(workflow?.id ?? '', name, { event: parseEvent(shownEvent), steps: earlier });
    },
    onSuccess: (result, name) => setResults((previous) => ({ ...previous, [name]: result })),
    onError: (error, name) =>
      setResults((previous) => ({ ...previous, [name]: error instanceof Error ? error : new Error(String(error)) })),
  });

  const addStep = (kind: StepDraft['kind']) =>
    update({ ...draft, steps: [...draft.steps, emptyStep(kind, freshStepName(draft.steps))] });

  return (
    <form
      className="workflow-builder"
      noValidate
      aria-label="Workflow builder"
      onSubmit={(event) => {
        event.preventDefault();
        save.mutate();
      }}
    >
      <div className="card">
        <div className="field">
          <label className="field-label" htmlFor={`${id}-name`}>
            Workflow name
          </label>
          <input
            id={`${id}-name`}
            value={draft.name}
            onChange={(event) => update({ ...draft, name: event.target.value })}
          />
        </div>
      </div>
      <TriggerEditor
        trigger={draft.trigger}
        onChange={(trigger) => update({ ...draft, trigger })}
        endpointUrl={workflow?.endpoint_url ?? null}
        selfId={workflow?.id ?? null}
      />
      {workflow ? (
        <div className="card">
          <div className="field">
            <label className="field-label" htmlFor={`${id}-event`}>
              Test event (JSON, <code>steps.trigger.event</code>)
            </label>
            <textarea
              id={`${id}-event`}
              className="code-input"
              rows={4}
              spellCheck={false}
              value={shownEvent}
              onChange={(event) => setEventText(event.target.value)}
            />
            <p className="field-help">
              {last ? `The event of the last run (${last.id}); ` : ''}a step test runs the saved version
              {dirty ? ' — save first to test your changes' : ''}, with the last run's results as earlier steps.
            </p>
          </div>
        </div>
      ) : null}
      <h2>Steps</h2>
      {draft.steps.map((step, index) => {
        const result = results[step.name];
        return (
          <div key={step.key} className="workflow-step-slot">
            <StepEditor
              step={step}
              index={index}
              count={draft.steps.length}
              earlier={draft.steps.slice(0, index).map((earlier) => earlier.name)}
              onChange={(next) => setStep(index, next)}
              onMove={(by) => update({ ...draft, steps: moveStep(draft.steps, index, by) })}
              onRemove={() => update({ ...draft, steps: draft.steps.filter((_, at) => at !== index) })}
              {...(workflow
                ? { onTest: () => test.mutate(step.name), testing: test.isPending && test.variables === step.name }
                : {})}
            />
            {result instanceof Error ? (
              <ErrorState error={result} />
            ) : result ? (
              <div aria-label={`Test result of ${step.name}`}>
                <StepResult step={result} />
              </div>
            ) : null}
          </div>
        );
      })}
      <div className="actions">
        <button type="button" className="button" onClick={() => addStep('action')}>
          Add an action step
        </button>
        <button type="button" className="button" onClick={() => addStep('code')}>
          Add a code step
        </button>
      </div>
      {save.error ? <ErrorState error={save.error} /> : null}
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : workflow ? 'Save a new version' : 'Create workflow'}
        </button>
      </div>
      <InstallProgress tracker={installs} />
    </form>
  );
}
