/**
 * RUN NOW and what became of the run. The server answers with the queued invocation's id; its log
 * lines carry that id and end with a "--- run finished/failed in N ms" marker (contract §3.7), so
 * polling the logs for that marker tells when it ended and how, whichever tab is open.
 */
import { useMutation, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import type { DeployedSourceT, LogEntryT } from '../api/endpoints.js';
import { useApi } from '../auth/session.js';
import { useToast } from '../components/toasts.js';
import { triggersOf } from '../components/trigger.js';

export interface RunOutcome {
  readonly ok: boolean;
  readonly durationMs: number;
  readonly error: string | null;
}

const POLL_MS = 750;
const SLOW_POLL_MS = 5000;
/** Past this the run is likely waiting behind a backlog; the status says so instead of spinning forever. */
const PATIENCE_MS = 60_000;

/** The end marker of an invocation among log lines, newest first or not. */
export function runOutcome(entries: readonly LogEntryT[], invocationId: string): RunOutcome | null {
  for (const entry of entries) {
    if (entry.invocation_id !== invocationId) continue;
    const match = /^--- run (finished|failed) in (\d+) ms(?:: (.*))?$/.exec(entry.message);
    if (match) return { ok: match[1] === 'finished', durationMs: Number(match[2]), error: match[3] ?? null };
  }
  return null;
}

export function describeOutcome(outcome: RunOutcome): string {
  return outcome.ok
    ? `Run finished in ${outcome.durationMs} ms`
    : `Run failed in ${outcome.durationMs} ms: ${outcome.error ?? 'error'}`;
}

export interface RunNowState {
  readonly start: () => void;
  readonly busy: boolean;
  readonly invocationId: string | null;
  readonly outcome: RunOutcome | null;
  readonly slow: boolean;
  readonly error: Error | null;
}

export function useRunNow(source: DeployedSourceT): RunNowState {
  const api = useApi();
  const toast = useToast();
  const [invocation, setInvocation] = useState<{ id: string; at: number } | null>(null);
  const run = useMutation({
    mutationFn: () => api.runSource(source.id),
    onSuccess: (result) => setInvocation({ id: result.invocation_id, at: Date.now() }),
  });
  const [outcome, setOutcome] = useState<RunOutcome | null>(null);
  const waiting = invocation !== null && outcome === null;
  const patient = waiting && Date.now() - (invocation?.at ?? 0) < PATIENCE_MS;
  const logs = useQuery({
    queryKey: ['run-now', source.id, invocation?.id],
    queryFn: () => api.listLogs(source.id),
    enabled: waiting,
    // Past its patience it keeps looking, less often: a run behind a long backlog still ends.
    refetchInterval: patient ? POLL_MS : SLOW_POLL_MS,
  });
  const found = invocation && logs.data ? runOutcome(logs.data.data, invocation.id) : null;
  useEffect(() => {
    if (!found || !invocation || outcome) return;
    setOutcome(found);
    toast({
      message: `${source.name}: ${describeOutcome(found)}`,
      tone: found.ok ? 'success' : 'error',
      links: [
        { to: `/sources/${source.id}/events`, label: 'Events' },
        { to: `/sources/${source.id}/logs#invocation-${invocation.id}`, label: 'Logs' },
      ],
    });
  }, [found, invocation, outcome, source.id, source.name, toast]);
  return {
    start: () => {
      setOutcome(null);
      setInvocation(null);
      run.mutate();
    },
    busy: run.isPending || waiting,
    invocationId: invocation?.id ?? null,
    outcome,
    slow: waiting && !patient,
    error: run.error ?? logs.error,
  };
}

export function RunNowButton({ source, state }: { readonly source: DeployedSourceT; readonly state: RunNowState }) {
  return (
    <button
      type="button"
      className="button button-primary"
      // aria-disabled, not disabled: a disabled button drops the keyboard focus to the page.
      onClick={() => {
        if (!state.busy) state.start();
      }}
      aria-disabled={state.busy}
      aria-describedby={source.active ? undefined : `run-now-hint`}
    >
      {state.busy ? 'Running…' : 'Run now'}
    </button>
  );
}

/** Under the header: what RUN NOW will do (inactive source), is doing, or did, with links to its output. */
export function RunStatus({ source, state }: { readonly source: DeployedSourceT; readonly state: RunNowState }) {
  const { invocationId, outcome } = state;
  const logsLink = `/sources/${source.id}/logs#invocation-${invocationId ?? ''}`;
  if (state.error) return <p className="field-error small">{state.error.message}</p>;
  if (invocationId && outcome)
    return (
      <p className="small" data-testid="run-status">
        <span className={outcome.ok ? '' : 'field-error'}>{describeOutcome(outcome)}.</span>{' '}
        <Link to={`/sources/${source.id}/events`}>Events</Link> · <Link to={logsLink}>Logs of this run</Link>
      </p>
    );
  if (invocationId)
    return (
      <p className="small muted" data-testid="run-status">
        {state.slow ? 'Still queued behind other runs' : 'Queued, waiting for it to finish'} ·{' '}
        <Link to={logsLink}>Logs</Link>
      </p>
    );
  if (!source.active)
    return (
      <p className="small muted" id="run-now-hint">
        Inactive: its triggers are off. Run now still runs it once, with{' '}
        {triggersOf(source).some((trigger) => trigger.kind === 'timer') ? 'a timer event' : 'an empty event'}.
      </p>
    );
  return null;
}
