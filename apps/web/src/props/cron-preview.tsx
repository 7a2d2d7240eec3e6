/**
 * The next fire times of a cron expression as it is typed, before anything is saved, so a wrong
 * field shows up as wrong dates (or as "not a cron expression") rather than as a silent timer.
 * Always three lines tall, so typing never moves the form below it.
 */
import { cronRuns } from '../components/trigger.js';

const COUNT = 3;
const format = new Intl.DateTimeFormat('en-GB', {
  weekday: 'short',
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZone: 'UTC',
});

export function CronPreview({ id, expression }: { readonly id: string; readonly expression: string }) {
  const runs = expression.trim() ? cronRuns(expression.trim(), new Date(), COUNT) : null;
  return (
    <div className="cron-preview small" id={id} data-testid="cron-preview">
      {runs && runs.length > 0 ? (
        <>
          <span className="muted">Next runs (UTC):</span>
          <ol>
            {runs.map((run) => (
              <li key={run.getTime()}>
                <time dateTime={run.toISOString()}>{format.format(run)}</time>
              </li>
            ))}
          </ol>
        </>
      ) : (
        <span className="field-error">
          {expression.trim() ? 'Not a cron expression that ever runs.' : 'Type a cron expression, e.g. 0 9 * * 1.'}
        </span>
      )}
    </div>
  );
}
