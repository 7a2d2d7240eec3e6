/**
 * What one step of a run (or of a step test) left: status, duration, the props it ran with,
 * `$return_value`, exports, logs and its error, at the step where it happened (the log line that
 * only repeats the error is left out: the error has its own box, stack included).
 */
import type { StepRunT } from '../api/endpoints.js';
import { JsonViewer } from '../components/json-viewer.js';
import { withoutErrorEcho } from '@tributary/contracts/error-echo';

export function StepResult({ step }: { readonly step: StepRunT }) {
  const logs = withoutErrorEcho(step.logs, step.error);
  return (
    <section className="card workflow-step-result" aria-label={`Step ${step.name}`} data-status={step.status}>
      <h3>
        {step.name} <span className={`badge status-${step.status}`}>{step.status}</span>{' '}
        {step.duration_ms !== null ? (
          <span className="muted small" data-testid="step-duration">
            {step.duration_ms} ms
          </span>
        ) : null}
      </h3>
      {step.error ? (
        <div className="notice notice-error" role="alert">
          <p>
            <code>{step.error.code}</code> {step.error.message}
          </p>
          {step.error.stack ? <pre className="stack">{step.error.stack}</pre> : null}
        </div>
      ) : null}
      {step.status === 'skipped' || step.status === 'pending' ? null : (
        <>
          {step.props ? (
            <details>
              <summary>Props</summary>
              <JsonViewer value={step.props} label={`Props of ${step.name}`} />
            </details>
          ) : null}
          {/* A step that threw, or is still running, has no return value: `null` there would read as one. */}
          {step.status === 'succeeded' || step.status === 'delayed' ? (
            <>
              <h4>Return value</h4>
              <JsonViewer value={step.return_value} label={`Return value of ${step.name}`} />
            </>
          ) : null}
          {Object.keys(step.exports).length > 0 ? (
            <>
              <h4>Exports</h4>
              <JsonViewer value={step.exports} label={`Exports of ${step.name}`} />
            </>
          ) : null}
          <h4>Logs</h4>
          {logs.length === 0 ? (
            <p className="muted">No logs.</p>
          ) : (
            <div className="log-view">
              {logs.map((line, index) => (
                <pre key={index} className={`log-line log-${line.level}`}>
                  <span className="log-level">{line.level}</span> {line.message}
                </pre>
              ))}
            </div>
          )}
        </>
      )}
    </section>
  );
}
