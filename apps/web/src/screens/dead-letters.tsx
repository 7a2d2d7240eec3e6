/**
 * Dead letters: invocations the platform failed to run on every attempt (not errors of the
 * component), with their event and last error; each can be queued again or deleted.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import type { DeadLetterT } from '../api/endpoints.js';
import { useApi } from '../auth/session.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { countOf } from '@tributary/contracts/count';
import { JsonViewer } from '../components/json-viewer.js';
import { Empty, ErrorState, QueryView } from '../components/states.js';
import { RelativeTime } from '../components/time.js';

export function DeadLetters() {
  const api = useApi();
  const queryClient = useQueryClient();
  const letters = useQuery({ queryKey: ['dead-letters'], queryFn: () => api.listDeadLetters() });
  const [deleting, setDeleting] = useState<DeadLetterT | null>(null);
  const [requeued, setRequeued] = useState<string | null>(null);
  const retry = useMutation({
    mutationFn: (id: string) => api.retryDeadLetter(id),
    onSuccess: async (result) => {
      setRequeued(result.invocation_id);
      await queryClient.invalidateQueries({ queryKey: ['dead-letters'] });
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) => api.deleteDeadLetter(id),
    onSuccess: async () => {
      setDeleting(null);
      await queryClient.invalidateQueries({ queryKey: ['dead-letters'] });
    },
  });
  return (
    <section className="card settings-section" aria-labelledby="dead-letters-title">
      <h2 id="dead-letters-title">Dead letters</h2>
      <p className="muted small">
        Invocations the platform could not run after three attempts (a failed commit, a worker that could not start). A
        component that throws is not here: its error is in the source&apos;s logs.
      </p>
      {requeued ? (
        <p className="muted small" role="status">
          Queued {requeued} again.
        </p>
      ) : null}
      {retry.error ? <ErrorState error={retry.error} /> : null}
      <QueryView query={letters} loadingLabel="Loading dead letters…">
        {(page) =>
          page.data.length === 0 ? (
            <Empty title="No dead letters" />
          ) : (
            <div className="table-wrap">
              <table className="table stack-table">
                <thead>
                  <tr>
                    <th scope="col">Invocation</th>
                    <th scope="col">Source</th>
                    <th scope="col">Failed</th>
                    <th scope="col">Last error</th>
                    <th scope="col">
                      <span className="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {page.data.map((letter) => (
                    <tr key={letter.id} data-testid="dead-letter">
                      <td data-label="Invocation">
                        <span className="mono">{letter.id}</span>
                        <div className="muted small">
                          {letter.trigger}, {countOf(letter.attempts, 'attempt')}
                        </div>
                        <details>
                          <summary className="small">Event</summary>
                          <JsonViewer value={letter.event} label={`Event of ${letter.id}`} />
                        </details>
                      </td>
                      <td data-label="Source">
                        <Link to={`/sources/${encodeURIComponent(letter.source_id)}/logs`} className="mono">
                          {letter.source_id}
                        </Link>
                      </td>
                      <td data-label="Failed">
                        <RelativeTime ms={letter.failed_at * 1000} />
                      </td>
                      <td data-label="Last error" className="small mono">
                        {letter.last_error}
                      </td>
                      <td data-label="Actions">
                        <button
                          type="button"
                          className="button button-small"
                          disabled={retry.isPending}
                          onClick={() => retry.mutate(letter.id)}
                        >
                          Retry<span className="visually-hidden"> {letter.id}</span>
                        </button>{' '}
                        <button
                          type="button"
                          className="button button-small button-danger"
                          onClick={() => setDeleting(letter)}
                        >
                          Delete<span className="visually-hidden"> {letter.id}</span>
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </QueryView>
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete ${deleting?.id ?? ''}?`}
        confirmLabel="Delete dead letter"
        busy={remove.isPending}
        onCancel={() => setDeleting(null)}
        onConfirm={() => deleting && remove.mutate(deleting.id)}
      >
        <p>The invocation is deleted without running; its event is lost.</p>
        {remove.error ? <p className="field-error">{remove.error.message}</p> : null}
      </ConfirmDialog>
    </section>
  );
}
