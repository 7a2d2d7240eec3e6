/** Every trigger of a source, one line each: the endpoint URL with a copy button, timers with their next run. */
import type { DeployedSourceT } from '../api/endpoints.js';
import { CopyButton } from './copy-button.js';
import { formatDuration, useNow } from './time.js';
import { describeSchedule, nextRun, triggersOf, type TimerTrigger } from './trigger.js';

export function TriggerList({ source }: { readonly source: DeployedSourceT }) {
  const triggers = triggersOf(source);
  if (triggers.length === 0) return <span className="muted">Manual (Run now)</span>;
  return (
    <ul className="trigger-list" aria-label={`Triggers of ${source.name}`}>
      {triggers.map((trigger) => (
        <li key={trigger.kind === 'http' ? 'http' : trigger.prop} className="endpoint">
          {trigger.kind === 'http' ? (
            <>
              <span className="badge">HTTP</span>
              <code className="truncate" title={trigger.url}>
                {trigger.url}
              </code>
              <CopyButton value={trigger.url} label="Copy URL" />
            </>
          ) : (
            <TimerLine trigger={trigger} source={source} />
          )}
        </li>
      ))}
    </ul>
  );
}

function TimerLine({ trigger, source }: { readonly trigger: TimerTrigger; readonly source: DeployedSourceT }) {
  const now = useNow(1000);
  const next = source.active ? nextRun(trigger, source.next_run_at, now) : null;
  return (
    <span>
      <span className="badge">Timer</span> {describeSchedule(trigger)}
      {!source.active ? (
        <span className="muted"> · paused</span>
      ) : next !== null ? (
        <span className="muted"> · next in {formatDuration(next - now)}</span>
      ) : null}
    </span>
  );
}
