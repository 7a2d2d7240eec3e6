/**
 * The EVENTS tab: the last 100 events, newest first, live over SSE. Rows have a fixed height and
 * the list scrolls inside a fixed box, so an arriving event never moves the rest of the page.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { DeployedSourceT, EventSummaryT } from '../api/endpoints.js';
import { useEventStream } from '../api/sse.js';
import { useApi, useSession } from '../auth/session.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { JsonActions } from '../components/json-actions.js';
import { JsonViewer } from '../components/json-viewer.js';
import { StreamBadge } from '../components/stream-status.js';
import { Empty, QueryView } from '../components/states.js';
import { RelativeTime } from '../components/time.js';
import { ReplayButton } from './event-replay.js';

type EventPage = Awaited<ReturnType<ReturnType<typeof useApi>['listEvents']>>;
const BIN_SIZE = 100;

export function summaryOf(event: EventSummaryT): string {
  const summary = event.metadata['summary'];
  if (typeof summary === 'string' && summary) return summary;
  const text = typeof event.event === 'string' ? event.event : JSON.stringify(event.event);
  return text === undefined ? '(empty)' : text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

export function EventsTab({ source }: { readonly source: DeployedSourceT }) {
  const api = useApi();
  const { signedIn } = useSession();
  const queryClient = useQueryClient();
  const key = ['events', source.id];
  const events = useQuery({ queryKey: key, queryFn: () => api.listEvents(source.id) });
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [confirmingClear, setConfirmingClear] = useState(false);
  const clear = useMutation({
    mutationFn: () => api.clearEvents(source.id),
    onSuccess: async () => {
      setConfirmingClear(false);
      setSelectedId(null);
      await queryClient.invalidateQueries({ queryKey: key });
    },
  });
  const status = useEventStream<EventSummaryT>({
    path: `/sources/${encodeURIComponent(source.id)}/sse`,
    enabled: signedIn,
    onMessage: (record) => {
      queryClient.setQueryData<EventPage>(key, (page) => {
        if (!page || page.data.some((event) => event.id === record.id)) return page;
        return { ...page, data: [record, ...page.data].slice(0, BIN_SIZE) };
      });
    },
    onReopen: () => void queryClient.invalidateQueries({ queryKey: key }),
  });
  return (
    <div className="events-tab">
      <div className="tab-toolbar">
        <StreamBadge status={status} />
        <span className="muted small nowrap">
          {events.data ? `${events.data.data.length} of the last ${BIN_SIZE} events` : ''}
        </span>
        <button
          type="button"
          className="button button-small toolbar-end"
          disabled={!events.data?.data.length}
          onClick={() => setConfirmingClear(true)}
        >
          Clear events
        </button>
      </div>
      <ConfirmDialog
        open={confirmingClear}
        title="Clear all events?"
        confirmLabel="Clear events"
        busy={clear.isPending}
        onCancel={() => setConfirmingClear(false)}
        onConfirm={() => clear.mutate()}
      >
        <p>Every event in this source's event bin is deleted. New events keep arriving.</p>
        {clear.error ? <p className="field-error">{clear.error.message}</p> : null}
      </ConfirmDialog>
      <QueryView query={events} loadingLabel="Loading events…">
        {(page) => {
          const selected = page.data.find((event) => event.id === selectedId) ?? page.data[0] ?? null;
          if (page.data.length === 0) {
            return (
              <Empty title="No events yet">
                <p>
                  {source.endpoint_url ? (
                    <>
                      Send a request to <code>{source.endpoint_url}</code>, e.g.{' '}
                      <code>
                        curl -d '{'{"hello":"world"}'}' {source.endpoint_url}
                      </code>
                      ; its events appear here as they arrive.
                    </>
                  ) : (
                    <>Events appear here as the source emits them. Press Run now to run it once.</>
                  )}
                </p>
              </Empty>
            );
          }
          return (
            <div className="split">
              <ol className="event-list" aria-label="Events, newest first">
                {page.data.map((event) => (
                  <li key={event.id}>
                    <button
                      type="button"
                      className={`event-row${selected?.id === event.id ? ' selected' : ''}`}
                      aria-pressed={selected?.id === event.id}
                      onClick={() => setSelectedId(event.id)}
                    >
                      <span className="event-summary">{summaryOf(event)}</span>
                      <span className="event-time muted small">
                        <RelativeTime ms={event.indexed_at_ms} />
                      </span>
                    </button>
                  </li>
                ))}
              </ol>
              {selected ? (
                <div className="event-detail" aria-label="Selected event">
                  <h3>
                    Event <span className="mono small muted">{selected.id}</span>
                  </h3>
                  <p className="muted small">{new Date(selected.indexed_at_ms).toISOString()}</p>
                  <div className="detail-head">
                    <h4>Payload</h4>
                    <div className="detail-actions">
                      <JsonActions
                        value={selected.event}
                        fileName={`event-${selected.id}`}
                        what={`event ${selected.id}`}
                      />
                      <ReplayButton source={source} event={selected} />
                    </div>
                  </div>
                  <JsonViewer value={selected.event} label="Event payload" />
                  <h4>Metadata</h4>
                  <JsonViewer value={selected.metadata} label="Event metadata" openDepth={1} />
                </div>
              ) : null}
            </div>
          );
        }}
      </QueryView>
    </div>
  );
}
